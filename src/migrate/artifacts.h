#pragma once
// What the migration creates besides the NodePools (node_pools.h), as `migrate plan` shows it and
// `migrate apply` makes it: the seed's two IAM roles with their trust and policies (the documents
// `karpenter iam` prints), and the chart's values with the seed's affinity edit.

#include <string>
#include <vector>

#include "aws/iam/controller_policy.h"
#include "common/json.h"
#include "common/result.h"
#include "migrate/inventory.h"

namespace karpenter::migrate {

struct RoleArtifact {
  std::string name;
  nlohmann::ordered_json trust;
  std::vector<std::string> managed_policies;  // ARNs to attach
  std::string inline_policy_name;             // "" for none
  nlohmann::ordered_json inline_policy;
};

// KarpenterNodeRole-<cluster> (EC2 trust, the four AWS policies) and KarpenterControllerRole-
// <cluster> (IRSA trust of the cluster's OIDC issuer for <namespace_>:karpenter, the controller
// policy inline, with the interruption queue's statement when the queue exists). Errors: a
// cluster ARN that does not give a partition, region and account.
Result<std::vector<RoleArtifact>> SeedRoles(const AwsInventory& aws, const std::string& namespace_);

// The chart's values as the seed's step 5 sets them: clusterName, the controller role's IRSA
// annotation, 1 CPU and 1Gi, the interruption queue when it exists, and the affinity edit — the
// controller required onto `node_group` and off Karpenter's nodes, its replicas on different hosts.
Json ChartValues(const AwsInventory& aws, const std::string& node_group);

}  // namespace karpenter::migrate
