#include "disruption/cluster.h"

#include <algorithm>

namespace karpenter::disruption {

double NodeDisruptionCost(const std::vector<double>& eviction_costs) {
  // The 1 stands for draining the node itself, so an empty node's share is never zero.
  double cost = 1;
  for (double pod : eviction_costs) cost += std::max(0.0, pod);
  return cost;
}

int Cluster::Remaining(const Candidate& candidate, api::DisruptionReason reason) const {
  const auto it = budgets.find(candidate.node_pool->metadata.name);
  return it == budgets.end() ? 0 : it->second[static_cast<size_t>(reason)];
}

PoolTotals Cluster::TotalsOf(std::string_view node_pool) const {
  const auto it = pool_totals.find(node_pool);
  return it == pool_totals.end() ? PoolTotals{} : it->second;
}

}  // namespace karpenter::disruption
