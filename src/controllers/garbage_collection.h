#pragma once
// Garbage collection between the cloud and the cluster (upstream-reference §9): an instance this
// cluster owns whose NodeClaim is gone (a crash between launch and recording it, a NodeClaim
// deleted by hand with its finalizer removed) is terminated once older than a grace period; a
// NodeClaim whose instance has disappeared is deleted so its pods get capacity again; a Node of
// ours whose instance is gone and that no NodeClaim claims is deleted (there is no NodeClaim to
// finalize it). Only
// instances the CloudProvider lists as ours are ever touched. From the same listing, a reserved
// NodeClaim whose instance the cloud no longer reports as reserved (its capacity reservation
// ended; the instance runs on as on-demand) is relabelled, with its Node, as upstream does: the
// capacity type the cloud reports, the reservation labels removed — so NodePools that require
// reserved capacity see it drift.

#include <chrono>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/metrics.h"
#include "kube/client.h"

namespace karpenter::controllers {

struct GarbageCollectionResult {
  size_t instances_terminated = 0;
  size_t node_claims_deleted = 0;
  size_t capacity_types_updated = 0;
  size_t nodes_deleted = 0;
};

class GarbageCollector {
 public:
  GarbageCollector(ClusterCache& cluster, kube::Client& client, cloud::CloudProvider& cloud,
                   Metrics& metrics, const Clock& clock, Logger logger,
                   std::chrono::milliseconds grace = std::chrono::seconds(30));

  Result<GarbageCollectionResult> Collect();

 private:
  // Deletes the Node `name` (and lifts our finalizer from it); false when the delete failed.
  bool DeleteNode(const std::string& name);
  // Relabels the reserved NodeClaims (and Nodes) whose instances `instances` report otherwise.
  size_t UpdateCapacityTypes(const std::vector<cloud::Instance>& instances);

  ClusterCache& cluster_;
  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  Metrics& metrics_;
  const Clock& clock_;
  Logger logger_;
  const std::chrono::milliseconds grace_;
};

}  // namespace karpenter::controllers
