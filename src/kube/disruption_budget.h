#pragma once
// PodDisruptionBudget arithmetic as the disruption controller does it: which pods a budget
// selects, how many must stay healthy and how many may be disrupted now. On a real cluster the
// controller writes this into the budget's status and eviction reads it from there; the memory
// store has no controllers, so its Evict computes it from the pods at hand, and so does
// disruption for a budget whose status nobody has written yet.

#include <cstdint>
#include <optional>
#include <vector>

#include "common/result.h"
#include "kube/object.h"
#include "kube/selector.h"

namespace karpenter::kube {

struct DisruptionBudgetStatus {
  int64_t expected_pods = 0;
  int64_t desired_healthy = 0;
  int64_t current_healthy = 0;
  int64_t disruptions_allowed = 0;

  bool operator==(const DisruptionBudgetStatus&) const = default;
};

// Whether the pod has the condition Ready=True.
bool IsPodReady(const Object& pod);

// Whether `budget` (policy/v1) selects `pod`: the same namespace and a spec.selector its labels
// match. An empty selector selects every pod of the namespace; a missing or invalid one none.
bool SelectsPod(const Object& budget, const Object& pod);

// The budget's spec.selector; nullopt when missing or invalid (it selects nothing).
std::optional<LabelSelector> BudgetSelector(const Object& budget);

// What the controller reports for `budget` when it selects `expected_pods` pods of which
// `current_healthy` are healthy (the counting done elsewhere, e.g. as pods change).
Result<DisruptionBudgetStatus> DisruptionBudgetFromCounts(const Object& budget,
                                                          int64_t expected_pods,
                                                          int64_t current_healthy);

// What the controller would report for `budget` given `pods` (those it does not select are
// skipped). Healthy pods are Ready and not being deleted. The controller takes the expected count
// for a percentage or maxUnavailable from the pods' controllers' scale; without controllers here,
// every selected pod is expected. Fails when minAvailable or maxUnavailable is neither an integer
// nor a percentage.
Result<DisruptionBudgetStatus> ComputeDisruptionBudget(const Object& budget,
                                                       const std::vector<SharedObject>& pods);
// The same over pods held elsewhere (a store's, an informer's), without copying them; when
// `selected` is given, the pods the budget selects are appended to it.
Result<DisruptionBudgetStatus> ComputeDisruptionBudget(
    const Object& budget, const std::vector<const Object*>& pods,
    std::vector<const Object*>* selected = nullptr);

}  // namespace karpenter::kube
