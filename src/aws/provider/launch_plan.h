#pragma once
// What to ask EC2 for when launching a NodeClaim (upstream-reference §6): the capacity type
// (reserved when the NodeClaim allows it and a reservation it allows has room, else spot when it
// allows that and a spot offering is available, else on-demand) and the candidates
// — each compatible instance type that fits the NodeClaim's requests, in each allowed zone where
// its offering is available and the EC2NodeClass has a subnet (the one with the most free
// addresses), with the newest AMI whose requirements the type meets; reserved candidates are one
// per type and zone, the reservation with the most room (one fleet override per pool, as
// upstream). Cheapest types first, at most kMaxLaunchInstanceTypes of them. Pure: no AWS calls.

#include <cstddef>
#include <string>
#include <vector>

#include "api/ec2nodeclass.h"
#include "api/nodeclaim.h"
#include "cloud/instance_type.h"
#include "common/result.h"

namespace karpenter::aws {

inline constexpr size_t kMaxLaunchInstanceTypes = 60;

struct LaunchCandidate {
  const cloud::InstanceType* instance_type = nullptr;  // into the list given to PlanLaunch
  std::string zone;
  std::string subnet_id;
  std::string image_id;
  double price = 0;            // USD/hour of the offering
  std::string reservation_id;  // reserved candidates: the capacity reservation
};

struct LaunchPlan {
  std::string capacity_type;                // "reserved", "spot" or "on-demand"
  std::vector<LaunchCandidate> candidates;  // cheapest first
};

// The AMI an instance of `type` launches with: the first of `amis` (newest first) whose
// requirements the type meets; empty when none does.
std::string ImageForType(const cloud::InstanceType& type, const std::vector<api::AmiStatus>& amis);

// Fails when the EC2NodeClass has not resolved subnets or AMIs yet, and with reason
// cloud::kReasonInsufficientCapacity when no available offering fits the NodeClaim.
Result<LaunchPlan> PlanLaunch(const api::NodeClaim& node_claim, const api::EC2NodeClass& node_class,
                              const std::vector<cloud::InstanceType>& instance_types);

}  // namespace karpenter::aws
