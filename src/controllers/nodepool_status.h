#pragma once
// NodePool status and hash: status.resources (the capacity of its NodeClaims, plus "nodes"),
// status.nodes, the conditions NodeClassReady, ValidationSucceeded and Ready, and the
// karpenter.sh/nodepool-hash annotation that drift compares NodeClaims against;
// ConsolidationPolicyUnsupported while a Balanced NodePool waits for its feature gate;
// NodeRegistrationHealthy (Unknown after every change to the NodePool or its node class, then True
// once a NodeClaim of it registers, False when one fails to launch or register first). A NodePool
// whose nodeClassRef names no EC2NodeClass is not Ready and gets a Warning Event; the provisioner
// skips it.

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/registration_health.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::controllers {

class NodePoolStatus {
 public:
  // `balanced_consolidation`, `static_capacity`: the BalancedConsolidation and StaticCapacity
  // gates. Without the latter a static NodePool (spec.replicas) is not Ready: nothing launches its
  // nodes, and none of its pods' claims are planned on it either.
  // `health`: what the NodeClaim lifecycle saw of the NodePools' registrations, for their
  // NodeRegistrationHealthy condition.
  NodePoolStatus(ClusterCache& cluster, kube::Client& client, kube::EventRecorder& events,
                 const Clock& clock, Logger logger, bool balanced_consolidation,
                 bool static_capacity, RegistrationHealth& health);

  Status Reconcile(std::string_view name);

 private:
  // Sets NodeRegistrationHealthy in `conditions` (those of `object`, a NodePool whose node class
  // is at `class_generation`, if it exists).
  void UpdateRegistrationHealth(const kube::Object& object, kube::Object& conditions,
                                std::optional<int64_t> class_generation, TimePoint now);

  ClusterCache& cluster_;
  kube::Client& client_;
  kube::EventRecorder& events_;
  const Clock& clock_;
  Logger logger_;
  const bool balanced_consolidation_;
  const bool static_capacity_;
  RegistrationHealth& health_;
};

}  // namespace karpenter::controllers
