#pragma once
// How long pods take to be bound to a node and to become ready, from their creation: observed once
// per pod as the pod informer delivers the change (upstream's karpenter_pods_bound_duration_seconds
// histogram and karpenter_pods_startup_duration_seconds summary). These are the figures a
// migration from Cluster Autoscaler is judged by.

#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>

#include <set>
#include <string>

#include "common/clock.h"
#include "common/mutex.h"
#include "kube/client.h"
#include "kube/object.h"

namespace karpenter::controllers {

class PodStartMetrics {
 public:
  // Registered on `registry`, which must outlive this. Transitions before `clock`'s now are not
  // counted: a restarted controller would count every running pod again.
  PodStartMetrics(prometheus::Registry& registry, const Clock& clock);

  // Hears every pod event (on the informer's thread).
  void Observe(kube::WatchEventType type, const kube::Object& pod);

 private:
  prometheus::Histogram& bound_;
  prometheus::Summary& started_;
  const TimePoint since_;
  Mutex mutex_;
  // Pods (by uid) already counted, until they are deleted.
  std::set<std::string, std::less<>> bound_seen_ GUARDED_BY(mutex_);
  std::set<std::string, std::less<>> started_seen_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::controllers
