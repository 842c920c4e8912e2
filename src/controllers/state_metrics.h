#pragma once
// The series that describe the cluster as it is now, read from the cluster cache at each scrape
// under upstream's names and labels (docs/metrics.md): per node (allocatable, pods' and
// DaemonSets' requests and limits, system overhead, age), per NodePool (usage, limits), per pod
// (state, time unbound or unstarted), and the cache's own (node count, synced, utilization).
// Built afresh at each scrape, a deleted node's, NodePool's or pod's series go with it, so the
// per-object series are bounded by the objects that exist.

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "controllers/cluster_cache.h"

namespace karpenter::controllers {

class StateMetrics : public prometheus::Collectable {
 public:
  // Both must outlive this; Collect runs on the scraping thread (the cache's reads are
  // thread-safe).
  StateMetrics(const ClusterCache& cluster, const Clock& clock);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const ClusterCache& cluster_;
  const Clock& clock_;
};

// "cpu", "memory", "ephemeral_storage", "nvidia.com/gpu": upstream's resource_type label (CPU is
// then given in cores, everything else in units: bytes, pods, devices).
std::string ResourceTypeLabel(std::string_view resource);

}  // namespace karpenter::controllers
