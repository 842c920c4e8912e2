#include "kube/disruption_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include "kube/selector.h"

namespace karpenter::kube {
namespace {

// An IntOrString of the budget's spec scaled to `total`: an integer as it is, "N%" as N percent
// of `total`, rounded up like the controller does.
Result<int64_t> Scaled(const Object& value, int64_t total) {
  if (value.is_number_integer()) return value.get<int64_t>();
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  int64_t percent = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, percent);
  if (!value.is_string() || error != std::errc() || at + 1 != end || *at != '%' || percent < 0) {
    return Error(fmt::format("invalid value {}: want an integer or a percentage", text));
  }
  return (percent * total + 99) / 100;
}

// The non-null value of the budget's spec field `name`, or nullptr.
const Object* SpecField(const Object& budget, std::string_view name) {
  const Object* value = Find(budget, {"spec", name});
  return value != nullptr && !value->is_null() ? value : nullptr;
}

}  // namespace

std::optional<LabelSelector> BudgetSelector(const Object& budget) {
  const Object* selector = SpecField(budget, "selector");
  if (selector == nullptr) return std::nullopt;
  Result<LabelSelector> parsed = LabelSelector::FromObject(*selector);
  if (!parsed.ok()) return std::nullopt;
  return std::move(parsed).value();
}

bool IsPodReady(const Object& pod) { return ConditionTrue(pod, "Ready"); }

bool SelectsPod(const Object& budget, const Object& pod) {
  if (Namespace(budget) != Namespace(pod)) return false;
  const std::optional<LabelSelector> selector = BudgetSelector(budget);
  return selector && selector->Matches(pod);
}

Result<DisruptionBudgetStatus> ComputeDisruptionBudget(const Object& budget,
                                                       const std::vector<SharedObject>& pods) {
  std::vector<const Object*> pointers;
  pointers.reserve(pods.size());
  for (const SharedObject& pod : pods) pointers.push_back(pod.get());
  return ComputeDisruptionBudget(budget, pointers);
}

Result<DisruptionBudgetStatus> ComputeDisruptionBudget(const Object& budget,
                                                       const std::vector<const Object*>& pods,
                                                       std::vector<const Object*>* selected) {
  const std::optional<LabelSelector> selector = BudgetSelector(budget);
  const std::string_view namespace_ = Namespace(budget);
  int64_t expected_pods = 0;
  int64_t current_healthy = 0;
  for (const Object* pod : pods) {
    if (!selector || !selector->Matches(*pod) || Namespace(*pod) != namespace_) continue;
    if (selected != nullptr) selected->push_back(pod);
    ++expected_pods;
    if (DeletionTimestamp(*pod).empty() && IsPodReady(*pod)) ++current_healthy;
  }
  return DisruptionBudgetFromCounts(budget, expected_pods, current_healthy);
}

Result<DisruptionBudgetStatus> DisruptionBudgetFromCounts(const Object& budget,
                                                          int64_t expected_pods,
                                                          int64_t current_healthy) {
  DisruptionBudgetStatus status;
  status.expected_pods = expected_pods;
  status.current_healthy = current_healthy;
  if (const Object* max_unavailable = SpecField(budget, "maxUnavailable")) {
    const Result<int64_t> unavailable = Scaled(*max_unavailable, status.expected_pods);
    if (!unavailable.ok()) return Error("spec.maxUnavailable: " + unavailable.error().message);
    status.desired_healthy = std::max<int64_t>(0, status.expected_pods - *unavailable);
  } else if (const Object* min_available = SpecField(budget, "minAvailable")) {
    const Result<int64_t> available = Scaled(*min_available, status.expected_pods);
    if (!available.ok()) return Error("spec.minAvailable: " + available.error().message);
    status.desired_healthy = *available;
  }
  // Like the controller: a budget that selects no pods allows nothing, so that pods it is about
  // to select are safe before it has seen them.
  if (status.expected_pods > 0) {
    status.disruptions_allowed =
        std::max<int64_t>(0, status.current_healthy - status.desired_healthy);
  }
  return status;
}

}  // namespace karpenter::kube
