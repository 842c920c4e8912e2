// Manifests as `karpenter validate`, `plan` and `simulate` read them: YAML or JSON documents,
// decoded by kind with validation (the CRDs' rules, labels, sizes).

#include "api/manifest.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const karpenter::api::DecodeOutcome outcome =
      karpenter::api::DecodeManifest(karpenter::fuzz::Text(data, size), "fuzz.yaml");
  (void)outcome;
  return 0;
}
