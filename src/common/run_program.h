#pragma once
// Runs another program and waits for it: `karpenter migrate` drives `helm` as the migration guide
// does, instead of linking a Helm of its own.

#include <string>
#include <vector>

#include "common/result.h"

namespace karpenter {

// Runs argv[0] (looked up on the PATH) with the rest as its arguments, no shell in between, and
// returns what it wrote to standard output and standard error together. An Error when it cannot
// be started (reason "NotFound" when it is not on the PATH) or exits non-zero: the message names
// the program, the exit status and the end of what it printed.
Result<std::string> RunProgram(const std::vector<std::string>& argv);

}  // namespace karpenter
