#include "metrics/exposition.h"

#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace karpenter::metrics {

std::string TextExposition(std::span<const prometheus::Collectable* const> sources) {
  std::vector<prometheus::MetricFamily> families;
  for (const prometheus::Collectable* source : sources) {
    std::vector<prometheus::MetricFamily> collected = source->Collect();
    std::move(collected.begin(), collected.end(), std::back_inserter(families));
  }
  std::stable_sort(families.begin(), families.end(),
                   [](const prometheus::MetricFamily& a, const prometheus::MetricFamily& b) {
                     return a.name < b.name;
                   });
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace karpenter::metrics
