#pragma once
// The IAM the controller needs, as documents: the controller policy scoped like upstream's
// getting-started template (docs/upstream-reference.md §14) to the actions the controller calls,
// and the aws-auth entry of the node role. `karpenter iam` prints them.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/result.h"

namespace karpenter::aws::iam {

struct PolicyInputs {
  std::string partition = "aws";  // aws, aws-cn or aws-us-gov
  std::string region;
  std::string account;  // twelve digits
  std::string cluster_name;
  std::string interruption_queue;  // empty: no SQS statement (the controller reads no queue)
  std::string node_role;           // empty: KarpenterNodeRole-<cluster>, as the migration guide
};

// Checks every input (the region only when `with_region`); an error names the flag (--region,
// --account, …) and what is wrong.
Status Validate(const PolicyInputs& inputs, bool with_region = true);

// The domain of the partition's service principals (ec2.<suffix>): amazonaws.com.cn in aws-cn.
std::string UrlSuffix(std::string_view partition);

// The node role's name: `node_role`, or the guide's default.
std::string NodeRoleName(const PolicyInputs& inputs);

// The controller policy document (validated inputs). Its statements, by Sid:
//   AllowScopedEC2InstanceAccessActions    RunInstances/CreateFleet on images, snapshots, subnets,
//                                          security groups (not ours to tag)
//   AllowScopedEC2LaunchTemplateAccessActions  ... and on launch templates that carry our tags
//   AllowScopedEC2InstanceActionsWithTags  launches and CreateLaunchTemplate only with our tags
//   AllowScopedResourceCreationTagging     tags at creation, of those launches only
//   AllowScopedResourceTagging             tags after launch: our instances, two keys only
//   AllowScopedDeletion                    TerminateInstances, DeleteLaunchTemplate: ours only
//   AllowRegionalReadActions               the Describe calls, in the region
//   AllowSSMReadActions                    ssm:GetParameter of AWS's public parameters
//   AllowPricingReadActions                pricing:GetProducts
//   AllowInterruptionQueueActions          the queue's messages (with an interruption queue)
//   AllowPassingInstanceRole               iam:PassRole of the node role, to EC2 only
//   AllowScopedInstanceProfile*            instance profiles the controller creates and tags
//   AllowInstanceProfileReadActions        iam:GetInstanceProfile
//   AllowAPIServerEndpointDiscovery        eks:DescribeCluster of this cluster
nlohmann::ordered_json ControllerPolicy(const PolicyInputs& inputs);

// IAM's limit on a managed policy: characters of its JSON without whitespace.
inline constexpr size_t kManagedPolicyMaxCharacters = 6144;

// The mapRoles entry of the aws-auth ConfigMap that lets nodes of the node role join (the
// migration guide's step 4), as YAML; {{EC2PrivateDNSName}} is kept literally.
std::string AwsAuthMapRoles(const PolicyInputs& inputs);

}  // namespace karpenter::aws::iam
