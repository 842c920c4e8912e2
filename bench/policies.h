#pragma once
// `karpenter-bench policies`: how much Balanced consolidation saves and how much it disrupts
// against WhenEmptyOrUnderutilized (and WhenEmpty) on the same cluster. One seeded workload —
// Deployments of mixed shapes, a third of them rescaled every ten minutes — runs through
// `karpenter simulate` once per policy, the BalancedConsolidation gate on.

#include <cstdint>
#include <vector>

namespace karpenter::bench {

struct PoliciesArgs {
  int deployments = 30;
  int duration_minutes = 120;
  std::vector<uint64_t> seeds = {1, 2, 3};
};

// Prints {"durationMinutes", "runs": [{"seed", "policy" ("WhenEmptyOrUnderutilized", "Balanced
// k=2", "Balanced k=3", "WhenEmpty"), "consolidationMoves", "emptinessMoves", "podsDisrupted",
// "nodesAfter", "pricePerHourAfter", "meanPricePerHour"}]} and per policy the sums over seeds in
// "summary"; returns the exit code.
int RunPolicies(const PoliciesArgs& args);

}  // namespace karpenter::bench
