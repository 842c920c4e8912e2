#pragma once
// `karpenter-bench simulate`: `karpenter simulate` on a generated snapshot of a large cluster —
// EKS managed node groups of 500 m5.2xlarge nodes across three zones, Deployments of 100 replicas
// (each with a PodDisruptionBudget of maxUnavailable 10%, ten to a namespace) bound to them about
// 75% full, the seed's NodePool and EC2NodeClass — with a timeline that retires the first node
// group 25 nodes at a time from t=1m, doubles 50 Deployments at t=5m (Karpenter provisions) and
// halves them again at t=35m (Karpenter consolidates).

#include <cstdint>
#include <string>

namespace karpenter::bench {

struct SimulateArgs {
  int nodes = 5000;
  int pods = 50000;
  std::string duration = "1h";
  uint64_t seed = 1;
  // Route the snapshot through `kubectl get -A -o json` text, dressed with what kubectl prints
  // on EKS (probes, env, the service-account volume, container statuses; node images and info),
  // and load it the way `karpenter simulate -f` does.
  bool kubectl_json = false;
};

// Prints {"nodes", "pods", "virtualSeconds", "seconds", "peakRssMb"}; with kubectl_json also
// "snapshotMb", "decodeSeconds" (text to objects: parsing and validation) and "loadSeconds" (text
// to the simulation's first instant: decoded, stored, informers synced); and what happened
// ("nodesAfter", "pricePerHourAfter", "lowerBoundPricePerHourAfter" — the cheapest fractional
// fleet for the pods left — "launched", "decisions", "podsDisrupted", "pdbViolations",
// "unschedulablePods");
// returns the exit code.
int RunSimulate(const SimulateArgs& args);

}  // namespace karpenter::bench
