// The interruption queue's messages (EventBridge JSON: spot interruptions, rebalance
// recommendations, scheduled changes, state changes, capacity reservation interruptions).

#include "aws/provider/interruption_message.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)karpenter::aws::ParseInterruptionMessage(karpenter::fuzz::Text(data, size));
  return 0;
}
