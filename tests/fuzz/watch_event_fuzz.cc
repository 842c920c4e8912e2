// The lines of a watch response from the API server, each decoded as the watch decodes it.

#include <string_view>

#include "fuzz/fuzz_input.h"
#include "kube/http/watch_event.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = karpenter::fuzz::Text(data, size);
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    const auto event = karpenter::kube::http::ParseWatchEvent(line, "/api/v1/pods", "v1", "Pod");
    if (!event.ok()) return 0;  // the watch ends at the first bad line
    if (event->has_value() && (*event)->object->is_object()) {
      karpenter::fuzz::Check((*event)->object->contains("apiVersion") &&
                             (*event)->object->contains("kind"));
    }
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return 0;
}
