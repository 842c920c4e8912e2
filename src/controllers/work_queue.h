#pragma once
// A de-duplicating, delayed work queue of object keys: informer handlers add keys from their
// threads; the manager takes the keys that are due. A key added twice is kept once, at the
// earlier time. With series, it keeps controller-runtime's workqueue_depth, workqueue_adds_total
// and workqueue_queue_duration_seconds (from when a key is due to when it is taken: a delay asked
// for is not waiting, as in client-go's delaying queue).

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"

namespace karpenter::controllers {

// One queue's series (controllers::Metrics::QueueSeries); null ones are not kept.
struct WorkQueueSeries {
  prometheus::Gauge* depth = nullptr;
  prometheus::Counter* adds = nullptr;
  prometheus::Histogram* queue_duration = nullptr;
};

class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueSeries series = {}) : series_(series) {}

  void Add(const std::string& key, MonoTime when);
  // Removes and returns the keys due at `now`, earliest first (ties by key).
  std::vector<std::string> TakeDue(MonoTime now);
  std::optional<MonoTime> NextDue() const;
  size_t size() const;

 private:
  const WorkQueueSeries series_;
  mutable Mutex mutex_;
  std::map<std::string, MonoTime, std::less<>> due_ GUARDED_BY(mutex_);  // key → when
  std::set<std::pair<MonoTime, std::string>> order_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::controllers
