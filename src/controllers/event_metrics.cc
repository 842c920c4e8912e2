#include "controllers/event_metrics.h"

#include <utility>

#include "metrics/families.h"

namespace karpenter::controllers {

std::vector<prometheus::MetricFamily> EventMetrics::Collect() const {
  const kube::EventCounts counts = recorder_.counts();
  auto written = metrics::CounterFamily("karpenter_events_written_total",
                                        "Kubernetes Events written to the API server.");
  metrics::AddSample(written, {}, static_cast<double>(counts.written));
  auto dropped = metrics::CounterFamily(
      "karpenter_events_dropped_total",
      "Kubernetes Events not written: a repeat within its window, the object's rate limit, a full "
      "queue, or a write the API server refused.");
  metrics::AddSample(dropped, {{"reason", "repeat"}}, static_cast<double>(counts.repeats));
  metrics::AddSample(dropped, {{"reason", "rate_limited"}},
                     static_cast<double>(counts.rate_limited));
  metrics::AddSample(dropped, {{"reason", "queue_full"}}, static_cast<double>(counts.queue_full));
  metrics::AddSample(dropped, {{"reason", "write_failed"}}, static_cast<double>(counts.failed));
  std::vector<prometheus::MetricFamily> families;
  families.push_back(std::move(written));
  families.push_back(std::move(dropped));
  return families;
}

}  // namespace karpenter::controllers
