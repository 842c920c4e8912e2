#pragma once
// Static NodePools (spec.replicas, the StaticCapacity gate; docs/upstream-reference.md §16): each
// keeps exactly `replicas` NodeClaims that are not being deleted, whatever the pods.
//
// Short of that, it launches NodeClaims made from the NodePool's template alone (every instance
// type its requirements allow, as provisioning::PlanTemplateClaims plans them) while the NodePool
// is Ready and limits.nodes — which counts the NodeClaims still being deleted, so that it is the
// room left for replacements — allows. A NodeClaim that starts going (expiry, drift, interruption,
// repair, a user's delete) is replaced at once.
//
// Over it (the user scaled down), it deletes the surplus: NodeClaims not launched yet first, then
// empty nodes (only DaemonSet pods, none with karpenter.sh/do-not-disrupt), then the cheapest to
// disrupt, nodes with a do-not-disrupt pod last. The user asked for fewer nodes, so the NodePool's
// disruption budgets are not consulted; the drain still honours PodDisruptionBudgets.
//
// What it created or deleted counts as such until the informer shows it (for at most
// kExpectationTimeout), so a reconcile that comes before the cache caught up neither launches
// nor deletes twice. Runs on the controller loop's thread only.

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/metrics.h"
#include "controllers/provisioner.h"
#include "kube/client.h"
#include "kube/event_recorder.h"
#include "provisioning/scheduler.h"

namespace karpenter::controllers {

inline constexpr std::string_view kControllerStaticCapacity = "static.capacity";
// How soon a NodePool short of its replicas is looked at again when nothing it watches changes
// (its limits or instance types held it back).
inline constexpr std::chrono::minutes kStaticRecheck(1);
inline constexpr std::chrono::minutes kExpectationTimeout(1);

class StaticCapacity {
 public:
  using Requeue = std::optional<std::chrono::milliseconds>;  // when to look again, if at all

  // The references must outlive this.
  StaticCapacity(ClusterCache& cluster, kube::Client& client, cloud::CloudProvider& cloud,
                 Provisioner& provisioner, kube::EventRecorder& events, Metrics& metrics,
                 const Clock& clock, Logger logger, provisioning::SchedulingPolicy policy = {});

  // Brings NodePool `name` (when static) to its replicas; when to look again, if it could not.
  Result<Requeue> Reconcile(std::string_view name);

 private:
  Result<Requeue> ScaleUp(const api::NodePool& pool, const kube::Object& object, int64_t wanted,
                          int64_t existing);

  // How much deleting a NodeClaim hurts, for choosing which to remove: lower goes first.
  struct Removal {
    bool launched = false;        // has an instance (a providerID)
    bool has_pods = false;        // pods that must move elsewhere
    bool do_not_disrupt = false;  // one of them asks not to be disrupted
    double eviction_cost = 0;
    std::string name;

    auto Key() const { return std::tie(launched, has_pods, do_not_disrupt, eviction_cost, name); }
  };
  Removal RemovalOf(const api::NodeClaim& claim) const;
  Status ScaleDown(const api::NodePool& pool, const kube::Object& object,
                   const std::vector<std::shared_ptr<const api::NodeClaim>>& active,
                   int64_t surplus);

  // A NodeClaim this controller created or deleted that the informer does not show so yet.
  struct Expectation {
    std::string node_pool;
    MonoTime at;
  };
  using Expectations = std::map<std::string, Expectation, std::less<>>;  // by NodeClaim name

  ClusterCache& cluster_;
  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  Provisioner& provisioner_;
  kube::EventRecorder& events_;
  Metrics& metrics_;
  const Clock& clock_;
  Logger logger_;
  const provisioning::SchedulingPolicy policy_;
  Expectations created_;
  Expectations deleted_;
};

}  // namespace karpenter::controllers
