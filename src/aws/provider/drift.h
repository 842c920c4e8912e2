#pragma once
// Drift of an AWS instance from what its EC2NodeClass resolves to now (upstream-reference §9),
// checked in upstream's order: the AMI (the newest of status.amis whose requirements its instance
// type meets is no longer the one it runs), the security groups (not exactly status's), the subnet
// (not among status's), the capacity reservation (one it runs in is not among status's). Pure: the
// caller describes the instance.

#include <string>

#include "api/ec2nodeclass.h"
#include "aws/api/ec2_api.h"
#include "cloud/instance_type.h"

namespace karpenter::aws {

// "AMIDrift", "SecurityGroupDrift", "SubnetDrift", "CapacityReservationDrift", or empty when the
// instance matches. A part of the status that is empty (not resolved yet) decides nothing; without
// `type` (no longer offered: the controllers report InstanceTypeNotFound) the AMI decides nothing.
std::string DriftOf(const Instance& instance, const cloud::InstanceType* type,
                    const api::EC2NodeClass& node_class);

}  // namespace karpenter::aws
