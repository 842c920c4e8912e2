// Quantities (resource requests, capacities): whatever parses prints as text that parses back to
// the same value.

#include "common/quantity.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using karpenter::Quantity;
  const karpenter::Result<Quantity> parsed = Quantity::Parse(karpenter::fuzz::Text(data, size));
  if (!parsed.ok()) return 0;
  const karpenter::Result<Quantity> again = Quantity::Parse(parsed->ToString());
  karpenter::fuzz::Check(again.ok() && *again == *parsed);
  return 0;
}
