#pragma once
// `karpenter-bench cost --suite`: one provisioning pass over each of many workload mixes (CPU- or
// memory-heavy, balanced, a few very large pods, thousands of tiny ones, long-tailed sizes, random
// Deployments over several seeds, zone spread, hostname anti-affinity, amd64+arm64, one family,
// existing nodes partly full, 10,000 pods) against the embedded AWS catalog, each plan's $/h set
// against the LP lower bound of its pods (lower_bound.h says what it relaxes). Spot pools are
// priced by the catalog's spot price model, on-demand pools by its on-demand table.

#include <cstdint>

namespace karpenter::bench {

struct CostArgs {
  uint64_t seed = 0;  // the random mixes' seed; 0: a new one (printed, so a run can be repeated)
};

// Prints {"seed", "mixes": [{"name", "pool", "pricing", "pods", "nodes", "unschedulable",
// "pricePerHour", "lowerBoundPricePerHour", "optimumPricePerHour" (null: not computed), "ratio",
// "seconds", "inTargets"}], "summary": {"mixes", "mixesInTargets", "geometricMeanRatio",
// "worstRatio", "worstMix"}}. The summary covers the mixes the targets speak of: at least 100 pods,
// no hostname anti-affinity, every pod scheduled.
int RunCost(const CostArgs& args);

}  // namespace karpenter::bench
