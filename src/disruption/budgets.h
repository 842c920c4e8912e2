#pragma once
// NodePool disruption budgets (spec.disruption.budgets): how many of a NodePool's nodes may be
// disrupting at once, for a disruption reason, at a point in time.
//
// A budget applies to a reason when its `reasons` list is empty or names the reason. It is active
// always when it has no schedule, otherwise for `duration` from each time its cron schedule (UTC)
// fires: fire <= now < fire + duration. Its `nodes` is a count ("5") or a percentage of the
// NodePool's nodes ("10%", rounded up). The nodes allowed to be disrupting for a reason are the
// least of the active budgets that apply to it, or all of the NodePool's nodes when none does. A
// NodePool without budgets has the default: one budget of 10%.

#include <string_view>

#include "api/nodepool.h"
#include "common/clock.h"
#include "common/result.h"

namespace karpenter::disruption {

// "Underutilized", "Empty", "Drifted": the names budgets' `reasons` and events use.
std::string_view ReasonName(api::DisruptionReason reason);

// Nodes of `pool` that may be disrupting at once for `reason` at `now`, out of `total_nodes`
// (>= 0). A count is not capped at `total_nodes`. The error (a schedule, duration or nodes value
// that validation would reject) names the NodePool and the budget:
// `nodepool "default": spec.disruption.budgets[1].schedule: ...`.
Result<int> AllowedDisruptions(const api::NodePool& pool, api::DisruptionReason reason,
                               TimePoint now, int total_nodes);

// AllowedDisruptions minus the `disrupting` nodes of the pool (being deleted or tainted for
// disruption, whatever the reason), never negative.
Result<int> RemainingDisruptions(const api::NodePool& pool, api::DisruptionReason reason,
                                 TimePoint now, int total_nodes, int disrupting);

}  // namespace karpenter::disruption
