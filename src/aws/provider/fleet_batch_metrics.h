#pragma once
// Upstream's CreateFleet batcher series: karpenter_cloudprovider_batcher_batch_size, how many
// NodeClaims one CreateFleet request launches, and _batch_time_seconds, how long the oldest of them
// waited for it (from its creation) — ours are batched by the NodeClaim lifecycle controller,
// which hands the cloud every NodeClaim due at once, not by a window of their own.

#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <cstddef>

namespace karpenter::aws {

class FleetBatchMetrics {
 public:
  // Registered on `registry`, which must outlive this.
  explicit FleetBatchMetrics(prometheus::Registry& registry);

  void Sent(size_t node_claims, std::chrono::nanoseconds oldest_waited);

 private:
  prometheus::Histogram& batch_size_;
  prometheus::Histogram& batch_time_;
};

}  // namespace karpenter::aws
