#include "disruption/methods.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "api/labels.h"
#include "api/nodepool.h"
#include "disruption/balanced.h"
#include "disruption/simulation.h"

namespace karpenter::disruption {
namespace {

double PriceOf(const Cluster& cluster, const std::vector<size_t>& candidates) {
  double total = 0;
  for (size_t index : candidates) total += cluster.candidates[index].price_per_hour;
  return total;
}

bool IsEmpty(const Candidate& candidate) { return candidate.pods.empty(); }

// Empty nodes are emptiness's (and its budget's), not consolidation's. Balanced consolidates
// what WhenEmptyOrUnderutilized does, only fewer of the moves.
bool MayConsolidate(const Candidate& candidate) {
  return candidate.consolidatable && !IsEmpty(candidate) && candidate.price_per_hour > 0 &&
         candidate.node_pool->spec.disruption.consolidation_policy !=
             api::ConsolidationPolicy::kWhenEmpty;
}

// Whether Balanced lets `command` go ahead, telling `scored` each score.
bool Approved(const Cluster& cluster, const Command& command, const Options& options,
              const ScoreObserver& scored, std::string* why_not = nullptr) {
  const std::vector<MoveScore> scores = ScoreMove(cluster, command, options.balanced_consolidation);
  for (const MoveScore& score : scores) {
    if (scored) scored(command, score);
    if (!score.approved() && why_not != nullptr) {
      *why_not = fmt::format("Balanced consolidation of NodePool \"{}\" rejected the move: {}",
                             score.node_pool, score.Describe());
    }
  }
  return AllApproved(scores);
}

bool MayEmpty(const Candidate& candidate) { return candidate.consolidatable && IsEmpty(candidate); }

bool IsDrifted(const Candidate& candidate) { return !candidate.drifted.empty(); }

// A static NodePool launches a node in place of one of its own the moment that one starts going
// (controllers/static_capacity.h): nothing is planned for its pods here.
bool ReplacedByItsPool(const Candidate& candidate) { return api::IsStatic(*candidate.node_pool); }

// The candidates `eligible` accepts, cheapest to disrupt per dollar first.
template <class Eligible>
std::vector<size_t> Ordered(const Cluster& cluster, Eligible eligible) {
  std::vector<size_t> selected;
  for (size_t i = 0; i < cluster.candidates.size(); ++i) {
    if (eligible(cluster.candidates[i])) selected.push_back(i);
  }
  auto key = [&](size_t i) {
    const Candidate& c = cluster.candidates[i];
    return c.disruption_cost / std::max(c.price_per_hour, 1e-6);
  };
  std::stable_sort(selected.begin(), selected.end(), [&](size_t a, size_t b) {
    const double ka = key(a);
    const double kb = key(b);
    if (ka != kb) return ka < kb;
    return cluster.candidates[a].node < cluster.candidates[b].node;
  });
  return selected;
}

// Counts the candidates a command takes from each NodePool against what its budget for one reason
// still allows.
class BudgetCounter {
 public:
  BudgetCounter(const Cluster& cluster, api::DisruptionReason reason)
      : cluster_(cluster), reason_(reason) {}

  bool Allows(const Candidate& candidate) const {
    const auto it = taken_.find(candidate.node_pool->metadata.name);
    return (it == taken_.end() ? 0 : it->second) < cluster_.Remaining(candidate, reason_);
  }
  void Take(const Candidate& candidate) { ++taken_[candidate.node_pool->metadata.name]; }

 private:
  const Cluster& cluster_;
  api::DisruptionReason reason_;
  std::map<std::string_view, int> taken_;
};

// Ordered(), as many per NodePool as its budget for `reason` allows.
template <class Eligible>
std::vector<size_t> Select(const Cluster& cluster, api::DisruptionReason reason,
                           Eligible eligible) {
  BudgetCounter budget(cluster, reason);
  std::vector<size_t> within;
  for (size_t index : Ordered(cluster, eligible)) {
    const Candidate& candidate = cluster.candidates[index];
    if (budget.Allows(candidate)) {
      budget.Take(candidate);
      within.push_back(index);
    }
  }
  return within;
}

// Whether every pool's share of `candidates` fits its budget for `reason`.
bool WithinBudget(const Cluster& cluster, const std::vector<size_t>& candidates,
                  api::DisruptionReason reason) {
  BudgetCounter budget(cluster, reason);
  for (size_t index : candidates) {
    const Candidate& candidate = cluster.candidates[index];
    if (!budget.Allows(candidate)) return false;
    budget.Take(candidate);
  }
  return true;
}

// Narrows a replacement to the instance types strictly cheaper than `current`, priced within one
// class of capacity — spot, or the others — so that whichever offering a launch picks, it is
// cheaper: spot first when allowed (for candidates that are all spot only behind the gate, and
// then, for a single node, only with enough cheaper types; a merge that takes an on-demand node
// too may go to spot without it, as upstream's), otherwise on-demand. When no class has a cheaper
// type, says why.
std::optional<std::string> KeepCheaperOptions(provisioning::PlannedNodeClaim& claim, double current,
                                              bool all_spot, bool single_node,
                                              const Options& options) {
  std::vector<std::vector<std::string>> classes;
  std::vector<std::string> others;
  bool spot = false;
  for (const std::string& capacity_type : claim.capacity_types) {
    if (capacity_type == api::kCapacityTypeSpot) {
      spot = true;
    } else {
      others.push_back(capacity_type);
    }
  }
  const bool spot_to_spot = all_spot && spot;
  std::string why = "No cheaper node can replace it";
  if (spot_to_spot && !options.spot_to_spot_consolidation) {
    why =
        "SpotToSpotConsolidation is disabled: a spot node is replaced only by a cheaper "
        "on-demand node, and none is cheaper";
  }
  if (spot && (!all_spot || options.spot_to_spot_consolidation)) {
    classes.push_back({std::string(api::kCapacityTypeSpot)});
  }
  if (!others.empty()) classes.push_back(std::move(others));
  for (std::vector<std::string>& capacity_types : classes) {
    std::vector<std::pair<double, const cloud::InstanceType*>> cheaper;
    for (const cloud::InstanceType* type : claim.instance_types) {
      const double price = CheapestPrice(*type, claim.zones, capacity_types);
      if (price >= 0 && price < current) cheaper.emplace_back(price, type);
    }
    std::stable_sort(cheaper.begin(), cheaper.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (spot_to_spot && capacity_types.front() == api::kCapacityTypeSpot) {
      // One node replaced by a cheaper spot node with few cheaper choices would likely be
      // interrupted and replaced again, down the price ladder; several nodes merged into one
      // shrink the fleet whatever the choices (upstream's rule, docs/upstream-reference.md). The
      // cheapest few are all a launch needs.
      if (single_node && cheaper.size() < kMinSpotReplacementTypes) {
        if (!cheaper.empty()) {
          why = fmt::format(
              "SpotToSpotConsolidation needs {} cheaper spot instance types to replace a spot "
              "node, and {} are",
              kMinSpotReplacementTypes, cheaper.size());
        }
        continue;
      }
      cheaper.resize(std::min(cheaper.size(), kMinSpotReplacementTypes));
    }
    if (cheaper.empty()) continue;
    claim.instance_types.clear();
    std::vector<std::string> names;
    for (const auto& [price, type] : cheaper) {
      claim.instance_types.push_back(type);
      names.push_back(type->name);
    }
    claim.capacity_types = std::move(capacity_types);
    claim.requirements.Add(
        scheduling::Requirement::In(std::string(api::kLabelCapacityType), claim.capacity_types));
    claim.requirements.Add(
        scheduling::Requirement::In(std::string(api::kLabelInstanceType), std::move(names)));
    claim.price_per_hour = cheaper.front().first;
    return std::nullopt;
  }
  return why;
}

// A command, or why there is none.
struct Consolidation {
  std::optional<Command> command;
  std::string why_not;
};

// Consolidating `candidates`: delete them when their pods fit elsewhere, or replace them by one
// strictly cheaper NodeClaim.
Consolidation Consolidate(const Cluster& cluster, const RemovalSimulator& simulator,
                          const std::vector<size_t>& candidates, Method method,
                          const Options& options) {
  const double current = PriceOf(cluster, candidates);
  Simulation simulation = simulator.Simulate(candidates);
  if (!simulation.all_scheduled) {
    return {std::nullopt, "Not all pods would schedule elsewhere: " + simulation.unschedulable};
  }
  if (simulation.new_claims.size() > 1) {
    return {std::nullopt, fmt::format("Its pods would need {} new nodes; consolidation "
                                      "replaces with at most one",
                                      simulation.new_claims.size())};
  }
  if (simulation.new_claims.empty()) return {Command{method, candidates, {}, current}, {}};
  provisioning::PlannedNodeClaim& replacement = simulation.new_claims.front();
  const bool all_spot = std::all_of(candidates.begin(), candidates.end(), [&](size_t index) {
    return cluster.candidates[index].capacity_type == api::kCapacityTypeSpot;
  });
  if (std::optional<std::string> why =
          KeepCheaperOptions(replacement, current, all_spot, candidates.size() == 1, options)) {
    return {std::nullopt, std::move(*why)};
  }
  const double savings = current - WorstCasePrice(replacement);
  return {Command{method, candidates, std::move(simulation.new_claims), savings}, {}};
}

// `drifted` in order, as many per NodePool as its budget allows: the empty ones and static
// NodePools' (which replace their own), or else those whose pods can all be rescheduled. A
// candidate whose pods cannot spends none of the budget.
std::optional<Command> DriftCommand(const Cluster& cluster, const std::vector<size_t>& drifted) {
  BudgetCounter budget(cluster, api::DisruptionReason::kDrifted);
  std::vector<size_t> empty;
  for (size_t index : drifted) {
    const Candidate& candidate = cluster.candidates[index];
    if ((IsEmpty(candidate) || ReplacedByItsPool(candidate)) && budget.Allows(candidate)) {
      budget.Take(candidate);
      empty.push_back(index);
    }
  }
  if (!empty.empty()) return Command{Method::kDrift, empty, {}, PriceOf(cluster, empty)};
  // Take drifted nodes one after another while all their pods still find a place.
  const RemovalSimulator simulator(cluster);
  std::vector<size_t> taken;
  Simulation accepted;
  for (size_t index : drifted) {
    const Candidate& candidate = cluster.candidates[index];
    if (!budget.Allows(candidate)) continue;
    taken.push_back(index);
    Simulation simulation = simulator.Simulate(taken);
    if (!simulation.all_scheduled) {
      taken.pop_back();
      continue;
    }
    budget.Take(candidate);
    accepted = std::move(simulation);
  }
  if (taken.empty()) return std::nullopt;
  double replacement_price = 0;
  for (const provisioning::PlannedNodeClaim& claim : accepted.new_claims) {
    replacement_price += WorstCasePrice(claim);
  }
  return Command{Method::kDrift, taken, std::move(accepted.new_claims),
                 PriceOf(cluster, taken) - replacement_price};
}

}  // namespace

std::optional<Command> Emptiness(const Cluster& cluster) {
  std::vector<size_t> empty = Select(cluster, api::DisruptionReason::kEmpty, MayEmpty);
  if (empty.empty()) return std::nullopt;
  const double savings = PriceOf(cluster, empty);
  return Command{Method::kEmptiness, std::move(empty), {}, savings};
}

std::optional<Command> Drift(const Cluster& cluster) {
  return DriftCommand(cluster, Ordered(cluster, IsDrifted));
}

std::optional<Command> MultiNodeConsolidation(const Cluster& cluster, const Options& options,
                                              const TimeoutObserver& timed_out,
                                              const ScoreObserver& scored) {
  const auto deadline = std::chrono::steady_clock::now() + options.multi_node_timeout;
  const std::vector<size_t> candidates =
      Select(cluster, api::DisruptionReason::kUnderutilized, MayConsolidate);
  // Binary search for the longest prefix that consolidates. Prefixes of one are left to
  // single-node consolidation.
  if (candidates.size() < 2) return std::nullopt;
  const RemovalSimulator simulator(cluster);
  std::optional<Command> best;
  size_t low = 2;
  size_t high = candidates.size();
  while (low <= high) {
    if (std::chrono::steady_clock::now() >= deadline) {
      if (timed_out) timed_out(Method::kMultiNodeConsolidation);
      break;
    }
    const size_t middle = low + (high - low) / 2;
    const std::vector<size_t> prefix(candidates.begin(),
                                     candidates.begin() + static_cast<std::ptrdiff_t>(middle));
    if (std::optional<Command> command =
            Consolidate(cluster, simulator, prefix, Method::kMultiNodeConsolidation, options)
                .command) {
      best = std::move(command);
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  // Like upstream, the largest move found is the one scored: a smaller one is single-node
  // consolidation's to find.
  if (best && !Approved(cluster, *best, options, scored)) return std::nullopt;
  return best;
}

std::optional<Command> SingleNodeConsolidation(const Cluster& cluster, const Options& options,
                                               const UnconsolidatableObserver& unconsolidatable,
                                               const TimeoutObserver& timed_out,
                                               const ScoreObserver& scored) {
  const auto deadline = std::chrono::steady_clock::now() + options.single_node_timeout;
  std::optional<RemovalSimulator> simulator;  // prepared for the first candidate tried
  // Every candidate whose NodePool allows one more is worth a try: one that cannot go takes none
  // of the budget.
  for (size_t index : Ordered(cluster, MayConsolidate)) {
    if (cluster.Remaining(cluster.candidates[index], api::DisruptionReason::kUnderutilized) < 1) {
      continue;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      if (timed_out) timed_out(Method::kSingleNodeConsolidation);
      return std::nullopt;
    }
    const Candidate& candidate = cluster.candidates[index];
    if (ScoresMoves(*candidate.node_pool, options.balanced_consolidation)) {
      // Not even deleting it would score: skip the simulation.
      if (const MoveScore best = DeleteScore(cluster, candidate); !best.approved()) {
        if (unconsolidatable) {
          unconsolidatable(index,
                           "Balanced consolidation: even deleting it would not justify "
                           "its disruption, " +
                               best.Describe());
        }
        continue;
      }
    }
    if (!simulator) simulator.emplace(cluster);
    Consolidation consolidation =
        Consolidate(cluster, *simulator, {index}, Method::kSingleNodeConsolidation, options);
    if (consolidation.command &&
        Approved(cluster, *consolidation.command, options, scored, &consolidation.why_not)) {
      return std::move(consolidation.command);
    }
    if (unconsolidatable) unconsolidatable(index, consolidation.why_not);
  }
  return std::nullopt;
}

size_t EligibleCount(const Cluster& cluster, Method method) {
  bool (*eligible)(const Candidate&) = MayConsolidate;
  if (method == Method::kEmptiness) eligible = MayEmpty;
  if (method == Method::kDrift) eligible = IsDrifted;
  return static_cast<size_t>(
      std::count_if(cluster.candidates.begin(), cluster.candidates.end(), eligible));
}

std::optional<Command> ComputeCommand(const Cluster& cluster, const Options& options,
                                      const PassObserver& observe) {
  const std::pair<Method, std::function<std::optional<Command>()>> methods[] = {
      {Method::kEmptiness, [&] { return Emptiness(cluster); }},
      {Method::kDrift, [&] { return Drift(cluster); }},
      {Method::kMultiNodeConsolidation,
       [&] { return MultiNodeConsolidation(cluster, options, observe.timed_out, observe.scored); }},
      {Method::kSingleNodeConsolidation,
       [&] {
         return SingleNodeConsolidation(cluster, options, observe.unconsolidatable,
                                        observe.timed_out, observe.scored);
       }},
  };
  for (const auto& [method, run] : methods) {
    const auto started = std::chrono::steady_clock::now();
    std::optional<Command> command = run();
    if (observe.method) {
      observe.method(method, EligibleCount(cluster, method),
                     std::chrono::steady_clock::now() - started);
    }
    if (command) return command;
  }
  return std::nullopt;
}

std::optional<Command> Revalidate(const Cluster& cluster, Method method,
                                  const std::vector<size_t>& candidates, size_t max_replacements,
                                  const Options& options) {
  if (candidates.empty() || !WithinBudget(cluster, candidates, DisruptionReasonOf(method))) {
    return std::nullopt;
  }
  auto all = [&](auto predicate) {
    return std::all_of(candidates.begin(), candidates.end(),
                       [&](size_t index) { return predicate(cluster.candidates[index]); });
  };
  switch (method) {
    case Method::kEmptiness:
      if (!all(MayEmpty)) return std::nullopt;
      return Command{method, candidates, {}, PriceOf(cluster, candidates)};
    case Method::kDrift: {
      if (!all(IsDrifted)) return std::nullopt;
      std::optional<Command> command = DriftCommand(cluster, candidates);
      // Every node of the decision must still go (a pod that no longer fits stops it).
      if (!command || command->candidates.size() != candidates.size()) return std::nullopt;
      return command;
    }
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation: {
      if (!all(MayConsolidate)) return std::nullopt;
      Consolidation consolidation =
          Consolidate(cluster, RemovalSimulator(cluster), candidates, method, options);
      if (!consolidation.command || consolidation.command->replacements.size() > max_replacements ||
          !Approved(cluster, *consolidation.command, options, {})) {
        return std::nullopt;
      }
      return std::move(consolidation.command);
    }
  }
  return std::nullopt;
}

}  // namespace karpenter::disruption
