#pragma once
// One line of a watch response: the API server streams newline-delimited JSON events
// ({"type":"ADDED","object":{...}}). Decoding a line is apart from the transfer so it can be
// tested and fuzzed on its own (tests/fuzz/watch_event_fuzz.cc).

#include <optional>
#include <string_view>

#include "common/result.h"
#include "kube/client.h"

namespace karpenter::kube::http {

// A line longer than this is no event of a Kubernetes object (etcd stores at most 1.5 MiB per
// object): the watch ends with an error rather than buffering without bound.
inline constexpr size_t kMaxWatchEventBytes = size_t{16} * 1024 * 1024;

// Decodes one line of the watch of `path` (named in errors). nullopt: nothing to act on (an empty
// line, or an event type of a newer server). An Error ends the watch: a malformed line, or an
// ERROR event (the Status it carries). Objects without apiVersion or kind get `api_version` and
// `kind`.
Result<std::optional<WatchEvent>> ParseWatchEvent(std::string_view line, std::string_view path,
                                                  std::string_view api_version,
                                                  std::string_view kind);

}  // namespace karpenter::kube::http
