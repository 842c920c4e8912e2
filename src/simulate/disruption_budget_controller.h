#pragma once
// kube-controller-manager's disruption controller for a simulated cluster: it keeps every
// PodDisruptionBudget's status (observedGeneration, expectedPods, currentHealthy, desiredHealthy,
// disruptionsAllowed) current with the pods of its namespace. The store's evictions then decide
// by that status and charge it, as the API server does, instead of counting pods on every
// eviction; Karpenter's disruption reads it as on a real cluster.
//
// Each budget's counts follow the pod events (a pod is matched against the budgets of its
// namespace when it changes), so a run costs what changed, not the cluster's size. The simulation
// runs it once per instant, so budgets lag the pods by at most one instant (as a real controller
// lags a little), while evictions in between charge them.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"
#include "kube/selector.h"

namespace karpenter::simulate {

class DisruptionBudgetController {
 public:
  // Registers handlers on `cluster`'s pod and budget informers: construct before they sync.
  DisruptionBudgetController(kube::Client& client, controllers::ClusterCache& cluster);

  // Writes the statuses that changed; returns how many.
  Result<size_t> Run();

 private:
  struct Budget {
    std::string namespace_;
    std::string name;
    int64_t generation = 0;  // of the spec its pods were matched with
    std::optional<kube::LabelSelector> selector;
    int64_t expected = 0;  // pods it selects
    int64_t healthy = 0;   // of those, Ready and not being deleted
  };
  // What a pod counts for.
  struct Member {
    std::vector<size_t> budgets;  // indexes into budgets_
    bool healthy = false;
    bool operator==(const Member&) const = default;
  };

  void ObservePod(kube::WatchEventType type, const kube::Object& pod);
  void ObserveBudget(kube::WatchEventType type, const kube::Object& budget);
  // Adds (sign 1) or takes away (-1) what `member` counts for, and marks those budgets dirty.
  void Count(const Member& member, int sign);

  kube::Client& client_;
  controllers::ClusterCache& cluster_;
  // Budgets by index; a deleted one's entry stays, unreachable from the maps below.
  std::vector<Budget> budgets_;
  std::map<std::string, size_t, std::less<>> budget_index_;             // namespace/name
  std::map<std::string, std::vector<size_t>, std::less<>> namespaces_;  // namespace → budgets
  std::unordered_map<std::string, Member> members_;                     // pod namespace/name
  std::set<size_t> dirty_;  // budgets whose counts or object changed since the last run
};

}  // namespace karpenter::simulate
