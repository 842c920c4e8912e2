#pragma once
// The instance types the NodePools may launch, as upstream's cloud-provider gauges say them:
// karpenter_cloudprovider_instance_type_offering_available and _offering_price_estimate
// (instance_type, capacity_type, zone), _instance_type_cpu_cores and _memory_bytes
// (instance_type). Refreshed on the controller thread (a cloud call per NodePool, as often as
// upstream's minute), read at scrape time; a type no NodePool may launch any more loses its series
// at the next refresh.

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "common/mutex.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"

namespace karpenter::controllers {

class InstanceTypeMetrics : public prometheus::Collectable {
 public:
  // Both must outlive this.
  InstanceTypeMetrics(const ClusterCache& cluster, cloud::CloudProvider& cloud);

  // Reads the instance types of every NodePool that decodes (controller thread). A NodePool whose
  // types cannot be read keeps none; the error names it.
  Status Refresh();
  // Whether a NodePool was added, removed or its spec changed since the last Refresh (controller
  // thread): then the manager refreshes at once, so a new NodePool's types show without waiting
  // for the minute.
  bool NodePoolsChanged() const;

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  // The NodePools' names and generations, sorted.
  std::vector<std::string> NodePoolVersions() const;

  const ClusterCache& cluster_;
  cloud::CloudProvider& cloud_;
  std::vector<std::string> refreshed_for_;  // controller thread only
  // The cache's generation when NodePoolsChanged last looked: unchanged, nothing to compare.
  mutable uint64_t looked_at_ = 0;
  mutable Mutex mutex_;
  // Each NodePool's list, as the provider shares it (immutable).
  std::vector<std::shared_ptr<const std::vector<cloud::InstanceType>>> lists_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::controllers
