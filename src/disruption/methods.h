#pragma once
// The disruption methods (upstream-reference §10), each a pure function of a Cluster, and one pass
// that tries them in order — emptiness, drift, multi-node consolidation, single-node consolidation
// — until one yields a command. Budgets are respected per NodePool and reason.

#include <chrono>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "disruption/balanced.h"
#include "disruption/cluster.h"
#include "disruption/command.h"

namespace karpenter::disruption {

struct Options {
  // Feature gate SpotToSpotConsolidation: replace spot nodes with cheaper spot nodes (one node
  // only when at least kMinSpotReplacementTypes cheaper types could be launched).
  bool spot_to_spot_consolidation = false;
  // Feature gate BalancedConsolidation: NodePools with consolidationPolicy Balanced consolidate
  // only moves that score (balanced.h); off, Balanced acts as WhenEmptyOrUnderutilized.
  bool balanced_consolidation = false;
  // How long a consolidation method may search before it stops with what it has (upstream's
  // limits): a huge cluster delays the next pass, never stalls the controller.
  std::chrono::nanoseconds multi_node_timeout = std::chrono::minutes(1);
  std::chrono::nanoseconds single_node_timeout = std::chrono::minutes(3);
};

inline constexpr size_t kMinSpotReplacementTypes = 15;

// Consolidatable nodes without pods to move, all at once.
std::optional<Command> Emptiness(const Cluster& cluster);
// Drifted nodes: the empty ones deleted at once, otherwise as many as the budget allows whose
// pods can all be rescheduled (onto replacements where needed).
std::optional<Command> Drift(const Cluster& cluster);
// Hears that a consolidation method stopped at its timeout.
using TimeoutObserver = std::function<void(Method method)>;
// Hears each consolidation move Balanced scored, approved or not (once per NodePool scored).
using ScoreObserver = std::function<void(const Command& command, const MoveScore& score)>;

// The largest set of candidates, cheapest to disrupt first, that can go with at most one cheaper
// replacement: a binary search over the whole candidate list (no 100-candidate cap), so a pass
// costs O(log n) simulations. Past options.multi_node_timeout it returns the best found so far.
// A move Balanced scores below its threshold is not made (`scored` hears its score).
std::optional<Command> MultiNodeConsolidation(const Cluster& cluster, const Options& options,
                                              const TimeoutObserver& timed_out = {},
                                              const ScoreObserver& scored = {});
// Hears why a candidate that consolidation tried cannot go (index into cluster.candidates; a
// sentence for its Unconsolidatable event).
using UnconsolidatableObserver = std::function<void(size_t candidate, std::string_view why)>;

// The first candidate, cheapest to disrupt first, that can go or be replaced by a cheaper node
// (and, in a Balanced NodePool, whose move scores). `unconsolidatable`, when given, hears of each
// candidate tried before it. Past options.single_node_timeout it stops trying.
std::optional<Command> SingleNodeConsolidation(
    const Cluster& cluster, const Options& options,
    const UnconsolidatableObserver& unconsolidatable = {}, const TimeoutObserver& timed_out = {},
    const ScoreObserver& scored = {});

// The candidates `method` may consider (eligible by its rule, whatever the budgets say).
size_t EligibleCount(const Cluster& cluster, Method method);

// What a pass tells as it goes; either may be empty.
struct PassObserver {
  // Each method tried: how many candidates it could consider, how long it took.
  std::function<void(Method method, size_t eligible, std::chrono::nanoseconds took)> method;
  UnconsolidatableObserver unconsolidatable;  // as SingleNodeConsolidation's
  TimeoutObserver timed_out;
  ScoreObserver scored;
};

// One pass: the first method with a command.
std::optional<Command> ComputeCommand(const Cluster& cluster, const Options& options,
                                      const PassObserver& observe = {});

// Checks again, on a newer view of the cluster, that `method` may still disrupt `candidates`
// (indexes into this cluster's candidates) — still candidates, within budget, and for
// consolidation still no more replacements than `max_replacements` — and returns the command to
// execute now, with its replacements planned on this view.
std::optional<Command> Revalidate(const Cluster& cluster, Method method,
                                  const std::vector<size_t>& candidates, size_t max_replacements,
                                  const Options& options);

}  // namespace karpenter::disruption
