#include "kube/http/watch_event.h"

#include <memory>
#include <string>
#include <utility>

#include "kube/http/api_error.h"

namespace karpenter::kube::http {

Result<std::optional<WatchEvent>> ParseWatchEvent(std::string_view line, std::string_view path,
                                                  std::string_view api_version,
                                                  std::string_view kind) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return std::optional<WatchEvent>();
  // nlohmann's parser is fast enough for the event rates of one cluster; simdjson's on-demand
  // parser could replace it here if profiling ever shows parsing as the cost of a watch.
  Json event = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  const auto type = event.is_object() ? event.find("type") : event.end();
  const auto object = event.is_object() ? event.find("object") : event.end();
  if (type == event.end() || !type->is_string() || object == event.end()) {
    return Error{"watch " + std::string(path) + ": malformed event from the server", 0,
                 "Unavailable"};
  }
  const std::string& name = type->get_ref<const std::string&>();
  WatchEvent out;
  if (name == "ADDED") {
    out.type = WatchEventType::kAdded;
  } else if (name == "MODIFIED") {
    out.type = WatchEventType::kModified;
  } else if (name == "DELETED") {
    out.type = WatchEventType::kDeleted;
  } else if (name == "BOOKMARK") {
    out.type = WatchEventType::kBookmark;
  } else if (name == "ERROR") {
    return StatusError("watch " + std::string(path), *object);
  } else {
    return std::optional<WatchEvent>();  // a newer server's event type: nothing to act on
  }
  if (object->is_object()) {
    if (!object->contains("apiVersion")) (*object)["apiVersion"] = std::string(api_version);
    if (!object->contains("kind")) (*object)["kind"] = std::string(kind);
  }
  out.object = std::make_shared<const Object>(std::move(*object));
  return std::optional<WatchEvent>(std::move(out));
}

}  // namespace karpenter::kube::http
