#pragma once
// `karpenter controller [FLAGS]`: the node autoscaler, until SIGTERM or SIGINT.

#include <ostream>
#include <string>
#include <vector>

namespace karpenter::cli {

// `args` are the arguments after "controller". Returns the process exit code: 0 after a clean
// stop, 2 on bad options (a usage error), 1 on a fatal error (lost leadership, unusable
// kubeconfig).
int RunController(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli
