#pragma once
// The disruption engine's input built from the informers (upstream-reference §10): a snapshot of
// the cluster, the scheduler's view of it, and the candidates — managed, initialized nodes that are
// not already disrupting, carry no karpenter.sh/do-not-disrupt (on the Node, the NodeClaim or
// any of their pods) and host no pod a PodDisruptionBudget protects right now — with their
// price, the pods that must move, and each NodePool's remaining budget per reason. Nodes
// Karpenter does not manage (a managed node group's, CAS's) are never candidates; managed ones
// that are not, and are not disrupting already, are listed with the reason (their
// DisruptionBlocked event).

#include <memory>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "controllers/cluster_cache.h"
#include "controllers/cluster_snapshot.h"
#include "disruption/cluster.h"

namespace karpenter::controllers {

// A managed, initialized-or-not node that is not a candidate, and why (for its DisruptionBlocked
// event): "Pod \"shop/web-1\" has the karpenter.sh/do-not-disrupt annotation".
struct BlockedNode {
  const api::Node* node = nullptr;  // into the snapshot
  const api::NodeClaim* node_claim = nullptr;
  std::string reason;
};

struct DisruptionView {
  ClusterSnapshot snapshot;
  std::vector<CapacitySource> sources;  // parallel to cluster.capacity.existing_nodes
  disruption::Cluster cluster;          // points into snapshot
  std::vector<BlockedNode> blocked;
};

// Evicting more pods, and more important ones, costs more: 1 a pod, plus its
// controller.kubernetes.io/pod-deletion-cost / 2^27 and its priority / 2^25, within [-10, 10] —
// upstream's scale, so Balanced consolidation weighs pods as upstream's does.
double EvictionCost(const api::Pod& pod);

// Heap-allocated so the pointers into the snapshot stay put. `buffer_copies`: CapacityBuffers'
// copies bound to the Nodes whose room they keep (controllers/capacity_buffers.h), counted as
// those Nodes' pods.
std::unique_ptr<DisruptionView> BuildDisruptionView(
    const ClusterCache& cluster, cloud::CloudProvider& cloud, const Logger& logger, TimePoint now,
    const std::vector<std::shared_ptr<const api::Pod>>& buffer_copies = {});

}  // namespace karpenter::controllers
