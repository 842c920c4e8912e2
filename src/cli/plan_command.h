#pragma once
// `karpenter plan FILES…`: one provisioning pass over manifests, printed as a table or JSON.

#include <ostream>
#include <string>
#include <vector>

namespace karpenter::cli {

struct PlanOptions {
  std::vector<std::string> files;  // empty: the built-in example
  std::string catalog = "aws";     // aws | fake400 | FILE
  std::string region = "us-east-1";
  std::vector<std::string> zones;  // empty: every zone of the region
  std::string output = "table";    // table | json
};

// Returns the process exit code: 0 planned (even with unschedulable pods), 1 bad input.
int RunPlan(const PlanOptions& options, std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli
