#pragma once
// Families built at scrape time by collectors that read the current state (nodes, pods, NodePools,
// the process): each scrape builds them afresh, so the series of an object that is gone are gone
// with it, and no label set outlives what it describes.

#include <prometheus/metric_family.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace karpenter::metrics {

using LabelPairs = std::initializer_list<std::pair<std::string_view, std::string_view>>;

prometheus::MetricFamily GaugeFamily(std::string name, std::string help);
prometheus::MetricFamily CounterFamily(std::string name, std::string help);

// Adds one series to `family` (a gauge or counter family) with `labels` (written sorted by name,
// as client_golang writes them).
void AddSample(prometheus::MetricFamily& family, LabelPairs labels, double value);
void AddSeries(prometheus::MetricFamily& family,
               std::vector<prometheus::ClientMetric::Label> labels, double value);

}  // namespace karpenter::metrics
