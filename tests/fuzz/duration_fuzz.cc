// Durations (expireAfter, consolidateAfter, budgets' duration): whatever parses prints as text
// that parses back to the same value.

#include "common/duration.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using karpenter::Duration;
  const karpenter::Result<Duration> parsed = Duration::Parse(karpenter::fuzz::Text(data, size));
  if (!parsed.ok()) return 0;
  const karpenter::Result<Duration> again = Duration::Parse(parsed->ToString());
  karpenter::fuzz::Check(again.ok() && again->ToString() == parsed->ToString());
  return 0;
}
