#include "kube/event_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace karpenter::kube {
namespace {

// Objects whose bucket is full again are forgotten once there are more than this many.
constexpr size_t kBucketsKept = 4096;

std::string StringOf(const Object& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

EventRecorder::EventRecorder(Client& client, const Clock& clock, std::string component,
                             EventRecorderOptions options)
    : client_(client), clock_(clock), component_(std::move(component)), options_(options) {
  if (!options_.synchronous) writer_ = std::thread([this] { Run(); });
}

EventRecorder::~EventRecorder() {
  if (!writer_.joinable()) return;
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  changed_.NotifyAll();
  writer_.join();
}

bool EventRecorder::TakeToken(const std::string& object_key, MonoTime now) {
  const double burst = options_.burst;
  const auto refilled = [&](const Bucket& bucket) {
    const std::chrono::duration<double> elapsed = now - bucket.updated;
    return std::min(burst, bucket.tokens + elapsed / options_.refill);
  };
  if (buckets_.size() > kBucketsKept) {
    std::erase_if(buckets_, [&](const auto& entry) { return refilled(entry.second) >= burst; });
  }
  const auto [it, added] = buckets_.try_emplace(object_key, Bucket{burst, now});
  Bucket& bucket = it->second;
  bucket.tokens = refilled(bucket);
  bucket.updated = now;
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

void EventRecorder::Record(const Object& involved, EventType type, std::string_view reason,
                           std::string_view message, std::chrono::seconds repeat_window) {
  const TimePoint now = clock_.Now();        // written on the Event
  const MonoTime mono = clock_.Monotonic();  // the windows
  const std::string object_key = fmt::format("{}\n{}", Uid(involved), Key(involved));
  std::string key = fmt::format("{}\n{}\n{}", object_key, reason, message);
  uint64_t sequence = 0;
  {
    MutexLock lock(mutex_);
    // Forget repeats whose window passed, soonest first, so the map stays small on long runs.
    while (!expiries_.empty() && expiries_.begin()->first <= mono) {
      const auto old = recent_.find(expiries_.begin()->second);
      if (old != recent_.end() && old->second == expiries_.begin()->first) recent_.erase(old);
      expiries_.erase(expiries_.begin());
    }
    if (recent_.contains(key)) {
      ++counts_.repeats;
      return;
    }
    if (!options_.synchronous && queue_.size() >= options_.queue_capacity) {
      ++counts_.queue_full;
      return;
    }
    if (!TakeToken(object_key, mono)) {
      ++counts_.rate_limited;
      return;
    }
    const MonoTime until = mono + repeat_window;
    recent_[key] = until;
    expiries_.emplace(until, key);
    sequence = ++sequence_;
  }
  // Events of cluster-scoped objects (Nodes, NodePools, NodeClaims) live in "default", as
  // kubectl expects.
  const std::string_view object_namespace = Namespace(involved);
  const std::string event_namespace =
      object_namespace.empty() ? std::string("default") : std::string(object_namespace);
  const std::string time = FormatTime(now);
  Pending pending{
      std::move(key),
      {{"apiVersion", "v1"},
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
       {"count", 1}}};
  if (options_.synchronous) {
    Write(pending);
    return;
  }
  {
    MutexLock lock(mutex_);
    queue_.push_back(std::move(pending));
    ++queued_total_;
  }
  changed_.NotifyAll();
}

void EventRecorder::Write(const Pending& pending) {
  const bool written = client_.Create(resources::kEvents, pending.event, WriteOptions{}).ok();
  {
    MutexLock lock(mutex_);
    if (written) {
      ++counts_.written;
    } else {
      ++counts_.failed;
      recent_.erase(pending.key);  // not written, so the next attempt is no repeat
    }
    ++done_total_;
  }
  changed_.NotifyAll();
}

void EventRecorder::Run() {
  while (true) {
    Pending pending;
    {
      MutexLock lock(mutex_);
      while (queue_.empty() && !stopping_) changed_.Wait(lock);
      if (stopping_) return;
      pending = std::move(queue_.front());
      queue_.pop_front();
    }
    Write(pending);
  }
}

void EventRecorder::Flush() {
  MutexLock lock(mutex_);
  const uint64_t target = queued_total_;
  while (done_total_ < target && !stopping_) changed_.Wait(lock);
}

EventCounts EventRecorder::counts() const {
  MutexLock lock(mutex_);
  return counts_;
}

}  // namespace karpenter::kube
