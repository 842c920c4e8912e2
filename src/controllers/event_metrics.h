#pragma once
// What the event recorder did with the Events it was given, read at scrape time:
// karpenter_events_dropped_total (reason: repeat, rate_limited, queue_full, write_failed) and
// karpenter_events_written_total. Not upstream series: ours, so that an alert can tell that
// "kubectl describe" is missing events because the API server could not take them.

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <vector>

#include "kube/event_recorder.h"

namespace karpenter::controllers {

class EventMetrics : public prometheus::Collectable {
 public:
  explicit EventMetrics(const kube::EventRecorder& recorder) : recorder_(recorder) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const kube::EventRecorder& recorder_;
};

}  // namespace karpenter::controllers
