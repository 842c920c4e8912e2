#include "metrics/families.h"

#include <algorithm>

namespace karpenter::metrics {

prometheus::MetricFamily GaugeFamily(std::string name, std::string help) {
  return prometheus::MetricFamily{
      std::move(name), std::move(help), prometheus::MetricType::Gauge, {}};
}

prometheus::MetricFamily CounterFamily(std::string name, std::string help) {
  return prometheus::MetricFamily{
      std::move(name), std::move(help), prometheus::MetricType::Counter, {}};
}

void AddSeries(prometheus::MetricFamily& family,
               std::vector<prometheus::ClientMetric::Label> labels, double value) {
  std::sort(labels.begin(), labels.end());
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  if (family.type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(std::move(metric));
}

void AddSample(prometheus::MetricFamily& family, LabelPairs labels, double value) {
  std::vector<prometheus::ClientMetric::Label> list;
  list.reserve(labels.size());
  for (const auto& [name, label_value] : labels) {
    list.push_back({std::string(name), std::string(label_value)});
  }
  AddSeries(family, std::move(list), value);
}

}  // namespace karpenter::metrics
