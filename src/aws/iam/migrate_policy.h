#pragma once
// The IAM `karpenter migrate` needs, as a policy document `karpenter iam migrate-policy` prints,
// scoped to the cluster where IAM can scope them. Its statements, by Sid:
//   MigrateReadCluster        eks:DescribeCluster, ListAccessEntries, ListNodegroups of this
//                             cluster
//   MigrateReadNodeGroups     eks:DescribeNodegroup of this cluster's node groups
//   MigrateReadRoles          iam:GetRole of the node role and the controller role
//   MigrateReadAmiRelease     ssm:GetParameter of AWS's EKS AMI parameters
//   MigrateReadNetwork        ec2:DescribeSubnets, DescribeSecurityGroups, DescribeImages in the
//                             region (EC2 cannot scope Describe calls to resources)
// and for `apply` and `rollback`:
//   MigrateTagNetwork         ec2:CreateTags of subnets and security groups: the discovery tag
//                             with this cluster's name, and no other tag (step 3)
//   MigrateUntagNetwork       ec2:DeleteTags of that tag, where it names this cluster (rollback)
//   MigrateAdmitNodeRole      eks:CreateAccessEntry of type EC2_LINUX for the node role (step 4)
//   MigrateRemoveNodeRole     eks:DeleteAccessEntry of the node role's entry (rollback)
//   MigrateResizeNodeGroups   eks:UpdateNodegroupConfig of this cluster's node groups (step 8)
//   MigrateCreateRoles        iam:CreateRole (and TagRole) of the two roles, tagged
//                             app.kubernetes.io/managed-by=karpenter-migrate (step 2)
//   MigrateNodeRolePolicies   iam:Attach/DetachRolePolicy of the node role: its four AWS policies
//   MigrateControllerRolePolicy  iam:Put/DeleteRolePolicy of the controller role
//   MigrateRemoveRoles        iam:DeleteRole and the lists of their policies (rollback)
//   MigrateFindInterruptionQueue  sqs:GetQueueUrl of the queue named after the cluster (the
//                             controller policy grants it when it exists)
//   MigrateListInterruptionRules  events:ListRuleNamesByTarget in the region (it takes no
//                             resource) and
//   MigrateReadInterruptionRules  events:DescribeRule: which events reach that queue

#include <nlohmann/json.hpp>

#include "aws/iam/controller_policy.h"

namespace karpenter::aws::iam {

// `inputs` validated (Validate); interruption_queue is not used.
nlohmann::ordered_json MigratePolicy(const PolicyInputs& inputs);

}  // namespace karpenter::aws::iam
