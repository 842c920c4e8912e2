#pragma once
// `karpenter-bench fuzz`: runs every libFuzzer target scripts/fuzz built (tests/fuzz) from its seed
// corpus, for a time or a number of executions each, and reports what each did.

#include <cstdint>
#include <string>
#include <vector>

namespace karpenter::bench {

struct FuzzArgs {
  std::string fuzzers;  // the folder of the *_fuzz executables; empty: SOURCE/build-fuzz
  std::string corpus;   // the seed corpora, one folder per target; empty: SOURCE/tests/fuzz/corpus
  int seconds = 60;     // per target, unless `runs` is set
  int64_t runs = 0;     // executions per target (0: run for `seconds`)
  unsigned seed = 0;    // libFuzzer's random seed (0: a new one each run); CI fixes it
  // Only these targets (names without "_fuzz"); empty: every one. A long run spends hours per
  // target, so it is split across sessions.
  std::vector<std::string> targets;
};

// Prints {"targets": [{"name", "executions", "coverage", "features", "corpus", "seconds",
// "crash"}], "summary": {"targets", "executions", "crashes"}}; returns 1 when a target crashed
// (its input is kept where "crash" says) or could not run.
int RunFuzz(const FuzzArgs& args);

}  // namespace karpenter::bench
