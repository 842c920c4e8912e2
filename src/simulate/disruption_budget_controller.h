#pragma once
// kube-controller-manager's disruption controller for a simulated cluster: it keeps every
// PodDisruptionBudget's status (observedGeneration, expectedPods, currentHealthy, desiredHealthy,
// disruptionsAllowed) current with the pods of its namespace. The store's evictions then decide
// by that status and charge it, as the API server does, instead of counting pods on every
// eviction; Karpenter's disruption reads it as on a real cluster.
//
// Only namespaces whose pods or budgets changed since the last run are recomputed; the
// simulation runs it once per instant, so budgets lag the pods by at most one instant (as a real
// controller lags a little), while evictions in between charge them.

#include <set>
#include <string>

#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"

namespace karpenter::simulate {

class DisruptionBudgetController {
 public:
  // Registers handlers on `cluster`'s pod and budget informers: construct before they sync.
  DisruptionBudgetController(kube::Client& client, controllers::ClusterCache& cluster);

  // Writes the statuses that changed; returns how many.
  Result<size_t> Run();

 private:
  kube::Client& client_;
  controllers::ClusterCache& cluster_;
  std::set<std::string, std::less<>> dirty_;  // namespaces
};

}  // namespace karpenter::simulate
