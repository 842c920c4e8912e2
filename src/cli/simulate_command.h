#pragma once
// `karpenter simulate [FILES…]`: what Karpenter would do to a cluster, and what it would cost, on
// the production controllers over a simulated cluster (simulate/simulation.h). With no files it
// runs the built-in migration scenario (cli/builtin_scenario.h).

#include <ostream>
#include <string>
#include <vector>

namespace karpenter::cli {

struct SimulateOptions {
  std::vector<std::string> files;  // manifests or `kubectl get … -o json` snapshots
  std::string timeline;            // a timeline file (simulate/timeline.h); empty: none
  std::string duration = "1h";
  uint64_t seed = 1;
  std::string catalog = "aws";  // aws | fake<N> | FILE
  std::string region = "us-east-1";
  // The zones of the subnets the EC2NodeClass selects; empty: those of the cluster's Nodes and
  // node groups (simulate/launch_zones.h).
  std::vector<std::string> zones;
  std::string spot_prices;      // FILE of spot prices (aws catalog)
  std::string output = "text";  // text | json
  std::string report;           // FILE.html
  // The controller's FEATURE_GATES ("NodeRepair=true,…"): NodeRepair and SpotToSpotConsolidation
  // change what the simulated controller does.
  std::string feature_gates;
  bool progress = true;  // a progress bar on stderr when it is a terminal
};

// Returns the exit code: 0 simulated, 1 bad input or a simulation error.
int RunSimulate(const SimulateOptions& options, std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli
