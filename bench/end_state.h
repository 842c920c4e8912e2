#pragma once
// `karpenter-bench end-state`: how far the fleet `karpenter simulate` leaves after the built-in
// migration scenario is from the cheapest one for the pods that remain. Three references, each
// with the nodes Karpenter did not launch (the kept node groups) at their price and their free
// room usable: the LP bound the report prints (fractional nodes, no placement rules); the integer
// optimum (whole nodes and pods, by the MILP solver of scripts/cost-optimum); and the integer
// optimum that keeps every workload's zone spread as its pods ask (topology.kubernetes.io/zone,
// within maxSkew, preferred ones too) — the fleet a Karpenter honouring those spreads, as
// upstream's does while it can, could reach. The two optimums buy in the zones the end state's
// nodes are in (kube-scheduler's domains for the spreads), each type at its offering's price there.

#include <cstdint>
#include <string>

namespace karpenter::bench {

struct EndStateArgs {
  uint64_t seed = 1;
  std::string duration = "1h";
  bool spot_to_spot = false;    // the SpotToSpotConsolidation feature gate
  double optimum_seconds = 60;  // the solver's time per model; past it, its proven bound only
};

// Prints {"scenario", "seed", "duration", "nodes", "pricePerHour", "keptNodesPricePerHour",
// "lowerBoundWithKeptNodesPricePerHour" (the LP's), then for "integer" (no placement rules) and
// "spread" (the zone spreads kept) the solver's "…BoundPricePerHour" (proven: no fleet costs
// less), "…OptimumPricePerHour" (null unless proven and met by a real packing) and
// "…FoundPricePerHour" (a real fleet for the solver's best plan in the time; null: none),
// "zones", "workloads", "spreadWorkloads", "ratioToLowerBound", "ratioToSpreadBound" (the fleet
// against the least any fleet keeping the spreads costs) and "ratioToSpreadFound" (against that
// real fleet; the ratio to the optimum lies between the two), "simulationSeconds",
// "solverSeconds"}; returns the exit code.
int RunEndState(const EndStateArgs& args);

}  // namespace karpenter::bench
