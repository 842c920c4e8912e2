#include "disruption/budgets.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <system_error>

#include "api/defaults.h"
#include "common/cron.h"

namespace karpenter::disruption {
namespace {

constexpr int kMaxPercent = 100;

// The error of budget `index` of `pool`, at `field` (".schedule", or empty for the budget).
Error BudgetError(const api::NodePool& pool, size_t index, std::string_view field,
                  std::string_view message) {
  return Error{fmt::format("nodepool \"{}\": spec.disruption.budgets[{}]{}: {}", pool.metadata.name,
                           index, field, message)};
}

// Reads a budget's `nodes` against `total` nodes; the error names the reason only.
Result<int> ScaleNodes(std::string_view nodes, int total) {
  const bool percent = nodes.ends_with('%');
  const std::string_view digits = percent ? nodes.substr(0, nodes.size() - 1) : nodes;
  const bool numeric = !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
  int value = 0;
  if (!numeric ||
      std::from_chars(digits.data(), digits.data() + digits.size(), value).ec != std::errc()) {
    return Error{fmt::format(
        "invalid value \"{}\": must be a node count such as \"5\" or a percentage such as \"10%\"",
        nodes)};
  }
  if (!percent) return value;
  if (value > kMaxPercent) {
    return Error{fmt::format("invalid value \"{}\": a percentage must be at most 100%", nodes)};
  }
  return static_cast<int>((int64_t{total} * value + kMaxPercent - 1) / kMaxPercent);
}

// The nodes `budget` (number `index` of `pool`) allows out of `total` at `now`; nullopt while it
// is inactive.
Result<std::optional<int>> BudgetLimit(const api::NodePool& pool, const api::Budget& budget,
                                       size_t index, TimePoint now, int total) {
  const Result<int> nodes = ScaleNodes(budget.nodes, total);
  if (!nodes.ok()) return BudgetError(pool, index, ".nodes", nodes.error().message);
  if (budget.schedule.empty() && !budget.duration) return std::optional<int>(*nodes);
  if (budget.schedule.empty() || !budget.duration) {
    return BudgetError(pool, index, "", "schedule and duration must be set together");
  }
  const Result<CronSchedule> schedule = CronSchedule::Parse(budget.schedule);
  if (!schedule.ok()) return BudgetError(pool, index, ".schedule", schedule.error().message);
  if (budget.duration->never()) {
    return BudgetError(pool, index, ".duration", "must be a length of time, not Never");
  }
  // Active from each fire time for the window: some fire f has f <= now < f + window. The latest
  // fire at or before now is the one whose window reaches furthest.
  const std::chrono::milliseconds window = budget.duration->value();
  const std::optional<TimePoint> fire =
      schedule->LastFireAtOrBefore(now, std::chrono::ceil<std::chrono::minutes>(window));
  if (fire && now < *fire + window) return std::optional<int>(*nodes);
  return std::optional<int>();
}

bool Applies(const api::Budget& budget, api::DisruptionReason reason) {
  return budget.reasons.empty() ||
         std::find(budget.reasons.begin(), budget.reasons.end(), reason) != budget.reasons.end();
}

}  // namespace

std::string_view ReasonName(api::DisruptionReason reason) {
  switch (reason) {
    case api::DisruptionReason::kUnderutilized:
      return "Underutilized";
    case api::DisruptionReason::kEmpty:
      return "Empty";
    case api::DisruptionReason::kDrifted:
      return "Drifted";
  }
  return "Unknown";
}

Result<int> AllowedDisruptions(const api::NodePool& pool, api::DisruptionReason reason,
                               TimePoint now, int total_nodes) {
  api::Budget fallback;
  fallback.nodes = std::string(api::kDefaultBudgetNodes);
  const std::span<const api::Budget> budgets =
      pool.spec.disruption.budgets.empty()
          ? std::span<const api::Budget>(&fallback, 1)
          : std::span<const api::Budget>(pool.spec.disruption.budgets);
  // Every budget is checked, so that a bad one surfaces whichever reason is asked about.
  std::optional<int> allowed;
  for (size_t i = 0; i < budgets.size(); ++i) {
    ASSIGN_OR_RETURN(const std::optional<int> limit,
                     BudgetLimit(pool, budgets[i], i, now, total_nodes));
    if (!limit.has_value() || !Applies(budgets[i], reason)) continue;
    allowed = allowed ? std::min(*allowed, *limit) : *limit;
  }
  return allowed.value_or(total_nodes);
}

Result<int> RemainingDisruptions(const api::NodePool& pool, api::DisruptionReason reason,
                                 TimePoint now, int total_nodes, int disrupting) {
  ASSIGN_OR_RETURN(const int allowed, AllowedDisruptions(pool, reason, now, total_nodes));
  return std::max(0, allowed - disrupting);
}

}  // namespace karpenter::disruption
