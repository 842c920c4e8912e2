#pragma once
// `karpenter-bench consolidation`: one full disruption pass (every method, in order) of the pure
// engine over a generated cluster whose nodes are about 40% over-provisioned.

#include <cstdint>
#include <string>

namespace karpenter::bench {

struct ConsolidationArgs {
  int nodes = 1000;
  int pods_per_node = 20;
  std::string catalog = "aws";
  // The NodePool's disruption budget; empty: the seed NodePool's own (the default 10%).
  std::string budget;
  double utilization = 0.6;  // of each node's allocatable CPU and memory its pods request
  uint64_t seed = 42;
  // Store the cluster in kube/memory and time the controller's whole pass: the view built from
  // synced informers (the snapshot, candidates, budgets) and then the engine.
  bool from_informers = false;
};

// Prints {"nodes", "pods", "seconds", "commands", "nodesRemoved", "savingsPerHour", "peakRssMb"}
// plus the method that decided and what single-node consolidation alone would have saved (and,
// from informers, "viewSeconds": the part of "seconds" spent building the view); returns the exit
// code.
int RunConsolidation(const ConsolidationArgs& args);

}  // namespace karpenter::bench
