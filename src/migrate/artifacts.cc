#include "migrate/artifacts.h"

#include <fmt/format.h>

#include "api/labels.h"
#include "aws/iam/roles.h"

namespace karpenter::migrate {

Result<std::vector<RoleArtifact>> SeedRoles(const AwsInventory& aws,
                                            const std::string& namespace_) {
  aws::iam::PolicyInputs inputs = PolicyInputsOf(aws.cluster);
  RETURN_IF_ERROR(aws::iam::Validate(inputs));
  // The queue the chart's settings.interruptionQueue names, when there is one.
  if (aws.interruption_queue) inputs.interruption_queue = aws.cluster.name;
  std::string issuer = aws.cluster.oidc_issuer;
  if (issuer.starts_with("https://")) issuer = issuer.substr(8);
  while (issuer.ends_with('/')) issuer.pop_back();
  RoleArtifact node;
  node.name = aws::iam::NodeRoleName(inputs);
  node.trust = aws::iam::NodeRoleTrust(inputs.partition);
  node.managed_policies = aws::iam::NodeRoleManagedPolicies(inputs.partition);
  RoleArtifact controller;
  controller.name = "KarpenterControllerRole-" + aws.cluster.name;
  controller.trust = {
      {"Version", "2012-10-17"},
      {"Statement", {aws::iam::IrsaTrustStatement(inputs, issuer, namespace_, "karpenter")}}};
  controller.inline_policy_name = "KarpenterControllerPolicy-" + aws.cluster.name;
  controller.inline_policy = aws::iam::ControllerPolicy(inputs);
  return std::vector<RoleArtifact>{std::move(node), std::move(controller)};
}

Json ChartValues(const AwsInventory& aws, const std::string& node_group) {
  const aws::iam::PolicyInputs inputs = PolicyInputsOf(aws.cluster);
  Json values = {
      {"settings", {{"clusterName", aws.cluster.name}}},
      {"serviceAccount",
       {{"annotations",
         {{"eks.amazonaws.com/role-arn",
           fmt::format("arn:{}:iam::{}:role/KarpenterControllerRole-{}", inputs.partition,
                       inputs.account, aws.cluster.name)}}}}},
      {"controller",
       {{"resources",
         {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}},
          {"limits", {{"cpu", "1"}, {"memory", "1Gi"}}}}}}},
      {"affinity",
       {{"nodeAffinity",
         {{"requiredDuringSchedulingIgnoredDuringExecution",
           {{"nodeSelectorTerms",
             {{{"matchExpressions",
                {{{"key", api::kLabelNodePool}, {"operator", "DoesNotExist"}},
                 {{"key", kLabelNodeGroup}, {"operator", "In"}, {"values", {node_group}}}}}}}}}}}},
        {"podAntiAffinity",
         {{"requiredDuringSchedulingIgnoredDuringExecution",
           {{{"topologyKey", "kubernetes.io/hostname"}}}}}}}}};
  if (aws.interruption_queue) values["settings"]["interruptionQueue"] = aws.cluster.name;
  return values;
}

}  // namespace karpenter::migrate
