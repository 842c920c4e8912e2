#include "disruption/cluster.h"

namespace karpenter::disruption {

int Cluster::Remaining(const Candidate& candidate, api::DisruptionReason reason) const {
  const auto it = budgets.find(candidate.node_pool->metadata.name);
  return it == budgets.end() ? 0 : it->second[static_cast<size_t>(reason)];
}

}  // namespace karpenter::disruption
