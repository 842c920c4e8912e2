#include "kube/disruption_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
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

// The value at `pointer` ("/spec/selector"), or null when the object has none.
Object At(const Object& object, const char* pointer) {
  const Object::json_pointer at(pointer);
  return object.contains(at) ? object.at(at) : Object();
}

}  // namespace

bool IsPodReady(const Object& pod) {
  const Object conditions = At(pod, "/status/conditions");
  if (!conditions.is_array()) return false;
  return std::any_of(conditions.begin(), conditions.end(), [](const Object& condition) {
    return condition.is_object() && condition.value("type", "") == "Ready" &&
           condition.value("status", "") == "True";
  });
}

bool SelectsPod(const Object& budget, const Object& pod) {
  if (Namespace(budget) != Namespace(pod)) return false;
  const Object selector = At(budget, "/spec/selector");
  if (selector.is_null()) return false;
  const Result<LabelSelector> parsed = LabelSelector::FromObject(selector);
  return parsed.ok() && parsed->Matches(pod);
}

Result<DisruptionBudgetStatus> ComputeDisruptionBudget(const Object& budget,
                                                       const std::vector<Object>& pods) {
  DisruptionBudgetStatus status;
  for (const Object& pod : pods) {
    if (!SelectsPod(budget, pod)) continue;
    ++status.expected_pods;
    if (DeletionTimestamp(pod).empty() && IsPodReady(pod)) ++status.current_healthy;
  }
  if (const Object max_unavailable = At(budget, "/spec/maxUnavailable");
      !max_unavailable.is_null()) {
    const Result<int64_t> unavailable = Scaled(max_unavailable, status.expected_pods);
    if (!unavailable.ok()) return Error("spec.maxUnavailable: " + unavailable.error().message);
    status.desired_healthy = std::max<int64_t>(0, status.expected_pods - *unavailable);
  } else if (const Object min_available = At(budget, "/spec/minAvailable");
             !min_available.is_null()) {
    const Result<int64_t> available = Scaled(min_available, status.expected_pods);
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
