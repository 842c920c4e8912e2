#pragma once
// Records core/v1 Events about objects ("kubectl describe" shows them), so users see why a pod
// stays Pending or why a NodeClaim was deleted. Repeats of the same event for the same object
// within a minute are dropped rather than flooding the API server.

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/mutex.h"
#include "kube/client.h"

namespace karpenter::kube {

enum class EventType { kNormal, kWarning };

class EventRecorder {
 public:
  EventRecorder(Client& client, const Clock& clock, std::string component);

  // `involved` is the object the event is about (its kind, name, namespace and uid are used).
  // Failures to write are returned, not retried: events are best effort.
  Status Record(const Object& involved, EventType type, std::string_view reason,
                std::string_view message);

 private:
  Client& client_;
  const Clock& clock_;
  const std::string component_;
  Mutex mutex_;
  // uid/reason/message → when last recorded; recorded_ holds the same, oldest first.
  std::map<std::string, MonoTime, std::less<>> recent_ GUARDED_BY(mutex_);
  std::deque<std::pair<MonoTime, std::string>> recorded_ GUARDED_BY(mutex_);
  uint64_t sequence_ GUARDED_BY(mutex_) = 0;
};

}  // namespace karpenter::kube
