#pragma once
// `karpenter validate FILE...`: decodes and validates manifests without touching a cluster.

#include <ostream>
#include <string>
#include <vector>

namespace karpenter::cli {

// Decodes and validates every file (a directory stands for the .yaml, .yml and .json files under
// it; "-" reads standard input). Prints one line per problem on `out` and a one-line summary on
// `err`. Returns 0 when every object in every file is valid, 1 otherwise.
int RunValidate(const std::vector<std::string>& files, std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli
