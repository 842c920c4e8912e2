#pragma once
// NodePool status and hash: status.resources (the capacity of its NodeClaims, plus "nodes"),
// status.nodes, the conditions NodeClassReady, ValidationSucceeded and Ready, and the
// karpenter.sh/nodepool-hash annotation that drift compares NodeClaims against;
// ConsolidationPolicyUnsupported while a Balanced NodePool waits for its feature gate. A NodePool
// whose nodeClassRef names no EC2NodeClass is not Ready and gets a Warning Event; the provisioner
// skips it.

#include <string_view>

#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::controllers {

class NodePoolStatus {
 public:
  // `balanced_consolidation`, `static_capacity`: the BalancedConsolidation and StaticCapacity
  // gates. Without the latter a static NodePool (spec.replicas) is not Ready: nothing launches its
  // nodes, and none of its pods' claims are planned on it either.
  NodePoolStatus(ClusterCache& cluster, kube::Client& client, kube::EventRecorder& events,
                 const Clock& clock, Logger logger, bool balanced_consolidation,
                 bool static_capacity);

  Status Reconcile(std::string_view name);

 private:
  ClusterCache& cluster_;
  kube::Client& client_;
  kube::EventRecorder& events_;
  const Clock& clock_;
  Logger logger_;
  const bool balanced_consolidation_;
  const bool static_capacity_;
};

}  // namespace karpenter::controllers
