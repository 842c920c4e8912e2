#pragma once
// `karpenter-bench cost --suite`: one provisioning pass over each of many workload mixes (CPU- or
// memory-heavy, balanced, a few very large pods, thousands of tiny ones, long-tailed sizes, random
// Deployments over several seeds, zone spread, hostname anti-affinity, amd64+arm64, one family,
// existing nodes partly full, 10,000 pods) against the embedded AWS catalog, each plan's $/h set
// against the LP lower bound of its pods (provisioning/fractional_fleet.h says what it relaxes).
// Spot pools are priced by the catalog's spot price model, on-demand pools by its on-demand table.
// With
// --optimum, mixes without placement constraints are also solved exactly by a MILP solver
// (scripts/cost_optimum.py says how, and what its bound relaxes when no packing meets it).

#include <cstdint>

namespace karpenter::bench {

struct CostArgs {
  uint64_t seed = 0;     // the random mixes' seed; 0: a new one (printed, so a run can be repeated)
  bool optimum = false;  // run scripts/cost-optimum (HiGHS, from PyPI) too
  double optimum_seconds = 20;  // its time per mix; past it, its proven bound only
};

// Prints {"seed", "mixes": [{"name", "pool", "pricing", "pods", "nodes", "unschedulable",
// "pricePerHour", "lowerBoundPricePerHour" (the LP's), "integerBoundPricePerHour" and
// "optimumPricePerHour" (the MILP's; null: not computed, or no packing meets its bound), "ratio"
// (to the optimum where known, else to the higher bound), "seconds", "inTargets"}], "summary":
// {"mixes", "mixesInTargets", "geometricMeanRatio", "worstRatio", "worstMix"}}. The summary covers
// the mixes the targets speak of: at least 100 pods, no hostname anti-affinity, every pod
// scheduled.
int RunCost(const CostArgs& args);

}  // namespace karpenter::bench
