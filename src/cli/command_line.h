#pragma once
// The `karpenter` command line: its subcommands (controller, iam, migrate, plan, simulate,
// validate), `--help` for the program and for each subcommand, and `--version`.
//
// Exit codes follow the usual conventions: 0 success (and --help, --version); 1 a run that failed
// (a manifest that does not validate, a controller that lost its cluster); 2 a usage error (an
// unknown command or flag, a missing or malformed argument), reported on `err` with the name of
// what was wrong.

#include <ostream>
#include <span>
#include <string>

namespace karpenter::cli {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// `args` are the arguments after the program name.
int RunCommandLine(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli
