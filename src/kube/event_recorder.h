#pragma once
// Records core/v1 Events about objects ("kubectl describe" shows them), so users see why a pod
// stays Pending or why a NodeClaim was deleted.
//
// Recording never waits for the API server: an event is checked and queued on the caller's thread
// and written by the recorder's own thread, so a slow or failing API server cannot hold up a
// reconcile. What keeps the API server from being flooded, checked when the event is recorded:
// - a repeat (same object, reason and message) within its window is dropped — a minute unless the
//   caller says longer (a "why not" event that every disruption pass would repeat);
// - each object gets a burst of events, then one more per refill period (client-go's spam filter
//   does the same for every Kubernetes component);
// - the queue is bounded: when the API server cannot keep up, new events are dropped.
// Every drop is counted (counts()), so a dashboard shows what was not written.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <thread>

#include "common/clock.h"
#include "common/mutex.h"
#include "kube/client.h"

namespace karpenter::kube {

enum class EventType { kNormal, kWarning };

struct EventRecorderOptions {
  size_t queue_capacity = 1000;      // events waiting to be written
  int burst = 25;                    // events an object gets at once
  std::chrono::seconds refill{300};  // one more event per object after each period
  // Write on the caller's thread instead: for a simulation on a virtual clock, which has no API
  // latency to hide and must run the same way every time.
  bool synchronous = false;
};

// What happened to the events recorded so far.
struct EventCounts {
  uint64_t written = 0;
  uint64_t repeats = 0;       // dropped: the same event within its window
  uint64_t rate_limited = 0;  // dropped: the object had used its burst
  uint64_t queue_full = 0;    // dropped: the queue was full
  uint64_t failed = 0;        // the API server refused the write (not retried)
};

class EventRecorder {
 public:
  EventRecorder(Client& client, const Clock& clock, std::string component,
                EventRecorderOptions options = {});
  // Stops the writer after the write in progress; events still queued are not written.
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  static constexpr std::chrono::seconds kRepeatWindow{60};

  // `involved` is the object the event is about (its kind, name, namespace and uid are used). The
  // same event for the same object is not recorded again within `repeat_window`.
  void Record(const Object& involved, EventType type, std::string_view reason,
              std::string_view message, std::chrono::seconds repeat_window = kRepeatWindow)
      EXCLUDES(mutex_);
  // Waits until every event recorded before the call was written (or refused).
  void Flush() EXCLUDES(mutex_);
  EventCounts counts() const EXCLUDES(mutex_);

 private:
  struct Pending {
    std::string key;  // its repeat key
    Object event;
  };
  struct Bucket {
    double tokens = 0;
    MonoTime updated;
  };

  // Whether the object identified by `object_key` may have one more event at `now`.
  bool TakeToken(const std::string& object_key, MonoTime now) REQUIRES(mutex_);
  void Write(const Pending& pending) EXCLUDES(mutex_);
  void Run() EXCLUDES(mutex_);

  Client& client_;
  const Clock& clock_;
  const std::string component_;
  const EventRecorderOptions options_;
  mutable Mutex mutex_;
  CondVar changed_;  // queued, written, or stopping
  // uid/reason/message → until when a repeat is dropped; expiries_ holds the same, soonest first.
  std::map<std::string, MonoTime, std::less<>> recent_ GUARDED_BY(mutex_);
  std::multimap<MonoTime, std::string> expiries_ GUARDED_BY(mutex_);
  std::map<std::string, Bucket, std::less<>> buckets_ GUARDED_BY(mutex_);  // by object
  std::deque<Pending> queue_ GUARDED_BY(mutex_);
  uint64_t queued_total_ GUARDED_BY(mutex_) = 0;  // ever queued
  uint64_t done_total_ GUARDED_BY(mutex_) = 0;    // of those, written or refused
  uint64_t sequence_ GUARDED_BY(mutex_) = 0;
  EventCounts counts_ GUARDED_BY(mutex_);
  bool stopping_ GUARDED_BY(mutex_) = false;
  std::thread writer_;  // last: it is joined before the members it uses go
};

}  // namespace karpenter::kube
