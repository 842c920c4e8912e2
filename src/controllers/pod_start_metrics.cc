#include "controllers/pod_start_metrics.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "common/clock.h"
#include "metrics/buckets.h"

namespace karpenter::controllers {
namespace {

// Seconds from the pod's creation to when its condition `type` turned True; nullopt when it is
// not True, turned True before `since`, or a time is missing.
std::optional<double> SecondsTo(const kube::Object& pod, std::string_view type, TimePoint since) {
  const kube::Object* conditions = kube::Find(pod, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return std::nullopt;
  for (const kube::Object& condition : *conditions) {
    if (kube::StringAt(condition, {"type"}) != type) continue;
    if (kube::StringAt(condition, {"status"}) != "True") return std::nullopt;
    const std::optional<TimePoint> created =
        ParseTime(kube::StringAt(pod, {"metadata", "creationTimestamp"}));
    const std::optional<TimePoint> at =
        ParseTime(kube::StringAt(condition, {"lastTransitionTime"}));
    if (!created || !at || *at < since) return std::nullopt;
    return std::max(0.0, std::chrono::duration<double>(*at - *created).count());
  }
  return std::nullopt;
}

}  // namespace

PodStartMetrics::PodStartMetrics(prometheus::Registry& registry, const Clock& clock)
    : bound_(prometheus::BuildHistogram()
                 .Name("karpenter_pods_bound_duration_seconds")
                 .Help("From a pod's creation to its being bound to a node, in seconds.")
                 .Register(registry)
                 .Add({}, metrics::DurationBuckets())),
      started_(prometheus::BuildSummary()
                   .Name("karpenter_pods_startup_duration_seconds")
                   .Help("From a pod's creation to its being ready, in seconds.")
                   .Register(registry)
                   .Add({}, metrics::SummaryQuantiles())),
      // Condition times have whole seconds: a transition in the second the controller started
      // counts.
      since_(std::chrono::floor<std::chrono::seconds>(clock.Now())) {}

void PodStartMetrics::Observe(kube::WatchEventType type, const kube::Object& pod) {
  const std::string_view uid = kube::StringAt(pod, {"metadata", "uid"});
  MutexLock lock(mutex_);
  if (type == kube::WatchEventType::kDeleted) {
    if (auto it = bound_seen_.find(uid); it != bound_seen_.end()) bound_seen_.erase(it);
    if (auto it = started_seen_.find(uid); it != started_seen_.end()) started_seen_.erase(it);
    return;
  }
  if (!bound_seen_.contains(uid)) {
    if (std::optional<double> seconds = SecondsTo(pod, "PodScheduled", since_)) {
      bound_.Observe(*seconds);
      bound_seen_.emplace(uid);
    }
  }
  if (!started_seen_.contains(uid)) {
    if (std::optional<double> seconds = SecondsTo(pod, "Ready", since_)) {
      started_.Observe(*seconds);
      started_seen_.emplace(uid);
    }
  }
}

}  // namespace karpenter::controllers
