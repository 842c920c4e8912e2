#include "aws/provider/fleet_batch_metrics.h"

#include <algorithm>

#include "metrics/buckets.h"

namespace karpenter::aws {
namespace {

constexpr const char* kBatcher = "create_fleet";

// Upstream's batch size buckets: 1 to 1,000 requests.
prometheus::Histogram::BucketBoundaries SizeBuckets() {
  return {1,   2,   4,   5,   10,  15,  20,  25,  30,  40,  50,  60,  70,  80,  90,  100, 125,
          150, 175, 200, 225, 250, 275, 300, 350, 400, 450, 500, 550, 600, 700, 800, 900, 1000};
}

}  // namespace

FleetBatchMetrics::FleetBatchMetrics(prometheus::Registry& registry)
    : batch_size_(prometheus::BuildHistogram()
                      .Name("karpenter_cloudprovider_batcher_batch_size")
                      .Help("NodeClaims launched by one CreateFleet request.")
                      .Register(registry)
                      .Add({{"batcher", kBatcher}}, SizeBuckets())),
      batch_time_(prometheus::BuildHistogram()
                      .Name("karpenter_cloudprovider_batcher_batch_time_seconds")
                      .Help("How long the oldest NodeClaim of a CreateFleet request waited for "
                            "it, from its creation, in seconds.")
                      .Register(registry)
                      .Add({{"batcher", kBatcher}}, metrics::DurationBuckets())) {}

void FleetBatchMetrics::Sent(size_t node_claims, std::chrono::nanoseconds oldest_waited) {
  batch_size_.Observe(static_cast<double>(node_claims));
  batch_time_.Observe(std::max(0.0, std::chrono::duration<double>(oldest_waited).count()));
}

}  // namespace karpenter::aws
