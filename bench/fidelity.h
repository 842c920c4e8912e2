#pragma once
// `karpenter-bench fidelity`: does `karpenter simulate` forecast what the controller does? Each
// scenario's manifests go both to the controller on the test cluster (scripts/testenv/up and
// identity; `--cloud-provider sim` with the node boot delay simulate assumes, kwok playing the
// kubelets, the real kube-scheduler and workload controllers) for `runs` runs, and to
// `karpenter simulate` for the same elapsed time. The controller varies from run to run, so the
// forecast is compared with the spread of the real runs: per scenario the nodes, $/h,
// instance-type histogram, longest pending time and pods disrupted, real and simulated.
//
// Scenarios: scale-ups from zero of mixed Deployment shapes (one per seed); one with zone spread
// and hostname anti-affinity; a PDB-guarded scale-down that consolidation packs; and the seed's
// migration at test-cluster scale (a managed node group retired under Karpenter); a spot zone
// interrupted (the warnings go to an SQS queue in moto, the controller's interruption controller
// reads them). Their timelines are `karpenter simulate`'s; on the test cluster the simulation's
// node groups stand in for EKS's (kwok plays their kubelets), the only part the test cluster lacks.

#include <cstdint>
#include <string>
#include <vector>

namespace karpenter::bench {

struct FidelityArgs {
  std::string testenv_dir;  // scripts/testenv/up's directory (kubeconfig, identity)
  int runs = 3;             // real runs per scenario; 0: the simulation's figures only
  int sim_seeds = 5;        // simulations per scenario, seeds 1..sim_seeds
  int pods = 1000;          // per scenario
  int duration_seconds = 300;
  std::vector<uint64_t> seeds = {1, 2, 3};  // one mixed scale-up per seed
  // Which scenarios run: mixed (one per seed), spread, scale-down, node-group-retirement,
  // spot-interruption (with `moto_dir`).
  std::vector<std::string> scenarios = {"mixed", "spread", "scale-down", "node-group-retirement"};
  // scripts/testenv/moto-up's directory: the interruption queue of spot-interruption.
  std::string moto_dir;
  std::string karpenter_binary;  // empty: `karpenter` beside this executable
  std::string source_dir;        // where deploy/crds is; empty: this build's source
  // Every this many seconds, what each run and the simulation had (a time series, to see where
  // they part); 0: none.
  int series_seconds = 0;
  // Where each real run's controller log is kept, as <scenario>-<run>.log; empty: a failed
  // run's only.
  std::string logs_dir;
};

// Prints {"durationSeconds", "runs", "scenarios": [{"name", "pods", "real": {"runs": [figures],
// "medianNodes", "minNodes", "maxNodes", "medianPricePerHour"}, "simulated": (the same over the
// seeds, each run's figures with its "seed"), "nodeError", "priceError" (the simulation's medians
// against the real ones), "sameFamilies", "withinTarget"}], "summary": {"scenarios",
// "withinTarget", "worstNodeError", "worstPriceError"}} where figures are {"nodes",
// "pricePerHour", "instanceTypes", "families", "mainFamilies", "longestPendingSeconds",
// "podsDisrupted", "pendingPods", "nodeGroupNodes"} (with `series_seconds`, also "series": [{"t",
// "launched", "nodes", "pendingPods", "pricePerHour"}], launched counting every NodeClaim seen so
// far). The target: nodes within max(1, 10 %) of the real median, $/h within 5 %, the same
// instance families — no main family (a tenth of the fleet's $/h or more) of the simulation's
// median seed that no real run used, none missing that is main in every real run (from any seed).
// Returns 0 when every run completed (whether or not the targets held).
int RunFidelity(const FidelityArgs& args);

}  // namespace karpenter::bench
