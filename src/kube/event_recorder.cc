#include "kube/event_recorder.h"

#include <fmt/format.h>

#include <utility>

#include "common/mutex.h"

namespace karpenter::kube {
namespace {

constexpr std::chrono::minutes kDeduplicationWindow(1);

std::string StringOf(const Object& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

EventRecorder::EventRecorder(Client& client, const Clock& clock, std::string component)
    : client_(client), clock_(clock), component_(std::move(component)) {}

Status EventRecorder::Record(const Object& involved, EventType type, std::string_view reason,
                             std::string_view message) {
  const TimePoint now = clock_.Now();        // written on the Event
  const MonoTime mono = clock_.Monotonic();  // the deduplication window
  const std::string key =
      fmt::format("{}\n{}\n{}\n{}", Uid(involved), Key(involved), reason, message);
  uint64_t sequence = 0;
  {
    MutexLock lock(mutex_);
    const auto it = recent_.find(key);
    if (it != recent_.end() && mono - it->second < kDeduplicationWindow) return {};
    recent_[key] = mono;
    recorded_.emplace_back(mono, key);
    // Forget entries past the window, oldest first, so the map stays small on long runs.
    while (!recorded_.empty() && mono - recorded_.front().first >= kDeduplicationWindow) {
      const auto old = recent_.find(recorded_.front().second);
      if (old != recent_.end() && old->second == recorded_.front().first) recent_.erase(old);
      recorded_.pop_front();
    }
    sequence = ++sequence_;
  }
  // Events of cluster-scoped objects (Nodes, NodePools, NodeClaims) live in "default", as
  // kubectl expects.
  const std::string_view object_namespace = Namespace(involved);
  const std::string event_namespace =
      object_namespace.empty() ? std::string("default") : std::string(object_namespace);
  const std::string time = FormatTime(now);
  Object event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       {{"name",
         fmt::format(
             "{}.{:x}{:04x}", Name(involved),
             std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count(),
             sequence & 0xffff)},
        {"namespace", event_namespace}}},
      {"involvedObject",
       {{"apiVersion", StringOf(involved, "apiVersion")},
        {"kind", StringOf(involved, "kind")},
        {"name", std::string(Name(involved))},
        {"namespace", std::string(object_namespace)},
        {"uid", std::string(Uid(involved))}}},
      {"type", type == EventType::kWarning ? "Warning" : "Normal"},
      {"reason", std::string(reason)},
      {"message", std::string(message)},
      {"source", {{"component", component_}}},
      {"reportingComponent", component_},
      {"firstTimestamp", time},
      {"lastTimestamp", time},
      {"count", 1}};
  Result<Object> created = client_.Create(resources::kEvents, event, WriteOptions{});
  if (!created.ok()) {
    // Not recorded, so the next attempt is no repeat.
    MutexLock lock(mutex_);
    recent_.erase(key);
    return created.error();
  }
  return {};
}

}  // namespace karpenter::kube
