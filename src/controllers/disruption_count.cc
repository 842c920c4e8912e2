#include "controllers/disruption_count.h"

#include <optional>
#include <string>

#include "api/labels.h"
#include "api/pod.h"

namespace karpenter::controllers {

void CountDisrupted(Metrics& metrics, const ClusterCache& cluster, const kube::Object& node_claim,
                    std::string_view reason) {
  const std::string_view node_pool = kube::Label(node_claim, api::kLabelNodePool);
  const std::string_view capacity_type = kube::Label(node_claim, api::kLabelCapacityType);
  metrics.NodeClaimDisrupted(reason, node_pool, capacity_type);

  size_t pods = 0;
  const std::string_view node = kube::StringAt(node_claim, {"status", "nodeName"});
  if (!node.empty()) {
    cluster.pods().VisitIndexed(kIndexPodsByNode, node,
                                [&](const std::vector<const kube::Object*>& objects) {
                                  for (const kube::Object* object : objects) {
                                    const std::optional<api::Pod> pod = DecodePod(*object);
                                    if (pod && !api::IsDaemonSetPod(*pod) &&
                                        !api::IsMirrorPod(*pod) && !api::IsTerminal(*pod)) {
                                      ++pods;
                                    }
                                  }
                                });
  }
  std::string_view policy;
  if (const std::optional<kube::Object> object = cluster.node_pools().Get(node_pool)) {
    if (const std::optional<api::NodePool> pool = DecodeNodePool(*object)) {
      policy = pool->spec.disruption.consolidation_policy == api::ConsolidationPolicy::kWhenEmpty
                   ? "when_empty"
                   : "when_empty_or_underutilized";
    }
  }
  std::string_view mode = "graceful";
  if (const std::optional<api::NodeClaim> claim = DecodeNodeClaim(node_claim);
      claim && claim->spec.termination_grace_period &&
      !claim->spec.termination_grace_period->never()) {
    mode = claim->spec.termination_grace_period->value().count() > 0 ? "eventual" : "forceful";
  }
  metrics.PodsDisruptionInitiated(reason, node_pool, capacity_type, policy, mode, pods);
}

}  // namespace karpenter::controllers
