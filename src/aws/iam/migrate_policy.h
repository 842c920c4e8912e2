#pragma once
// The IAM `karpenter migrate plan` needs, as a policy document `karpenter iam migrate-policy`
// prints: reads only, scoped to the cluster where IAM can scope them. Its statements, by Sid:
//   MigrateReadCluster        eks:DescribeCluster, ListAccessEntries, ListNodegroups of this
//                             cluster
//   MigrateReadNodeGroups     eks:DescribeNodegroup of this cluster's node groups
//   MigrateReadRoles          iam:GetRole of the node role and the controller role
//   MigrateReadAmiRelease     ssm:GetParameter of AWS's EKS AMI parameters
//   MigrateReadNetwork        ec2:DescribeSubnets, DescribeSecurityGroups, DescribeImages in the
//                             region (EC2 cannot scope Describe calls to resources)

#include <nlohmann/json.hpp>

#include "aws/iam/controller_policy.h"

namespace karpenter::aws::iam {

// `inputs` validated (Validate); interruption_queue is not used.
nlohmann::ordered_json MigratePolicy(const PolicyInputs& inputs);

}  // namespace karpenter::aws::iam
