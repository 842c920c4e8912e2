#include "api/capacity_buffer.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace karpenter::api {

int32_t BufferReplicas(const CapacityBuffer::Spec& spec, std::optional<int32_t> workload_replicas,
                       const ResourceList& pod_requests) {
  std::optional<int64_t> count;
  if (spec.replicas) count = *spec.replicas;
  if (spec.percentage && spec.scalable_ref && workload_replicas && *workload_replicas > 0) {
    const int64_t share = (int64_t{*workload_replicas} * *spec.percentage + 99) / 100;
    const int64_t at_least = *spec.percentage > 0 ? std::max<int64_t>(share, 1) : share;
    count = std::max(count.value_or(0), at_least);
  }
  std::optional<int64_t> cap;
  for (const std::string& resource : spec.limited_resources) {
    const int64_t request = pod_requests.Get(resource).milli();
    if (request <= 0) continue;
    const int64_t fits = spec.limits.Get(resource).milli() / request;
    cap = std::min(cap.value_or(std::numeric_limits<int64_t>::max()), std::max<int64_t>(fits, 0));
  }
  int64_t replicas = 0;
  if (count && cap) {
    replicas = std::min(*count, *cap);
  } else if (count) {
    replicas = *count;
  } else if (cap) {
    replicas = *cap;
  }
  return static_cast<int32_t>(std::min<int64_t>(replicas, std::numeric_limits<int32_t>::max()));
}

}  // namespace karpenter::api
