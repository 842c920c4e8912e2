#pragma once
// Node repair (the NodeRepair gate; docs/upstream-reference.md §15, as upstream v1.1–v1.14 and
// v1.15's --legacy-node-repair): a Node whose condition matches one of the cloud provider's repair
// policies for longer than the policy's toleration has its NodeClaim force-terminated — annotated
// karpenter.sh/nodeclaim-termination-timestamp=now and deleted, so termination neither drains nor
// waits for budgets, PDBs or do-not-disrupt, and no replacement is launched first (provisioning
// finds the displaced pods a new home). Not while more than 20 % of the NodePool's Nodes are
// unhealthy: a cluster-wide fault is no reason to replace a fifth of the fleet at once; then a
// NodeRepairBlocked Event on each Node due says so. Only Nodes of a NodePool are repaired (as in
// v1.15; a NodeClaim without one is not ours to judge against its peers).

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/metrics.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::controllers {

inline constexpr std::string_view kControllerNodeRepair = "node.health";
// How long the same NodeRepairBlocked Event is not written again for a Node.
inline constexpr std::chrono::minutes kRepairBlockedRepeat(15);

struct RepairResult {
  size_t repaired = 0;  // NodeClaims deleted
  size_t blocked = 0;   // Nodes due but held back by the 20 % limit
  // When the earliest toleration not yet over ends; nullopt when no Node is unhealthy.
  std::optional<TimePoint> next_deadline;
};

class NodeRepair {
 public:
  // The references must outlive this.
  NodeRepair(ClusterCache& cluster, kube::Client& client, const cloud::CloudProvider& cloud,
             kube::EventRecorder& events, Metrics& metrics, const Clock& clock, Logger logger);

  // One pass over every Node of ours. A failed write is logged and tried on the next pass.
  Result<RepairResult> Repair();

 private:
  // When the Node's `condition` became unhealthy: its lastTransitionTime, or (when it has none) the
  // first pass that saw it so.
  TimePoint UnhealthySince(const std::string& node, std::string_view condition,
                           std::optional<TimePoint> transition, TimePoint now);
  Status ForceTerminate(const kube::Object& claim, const kube::Object& node,
                        std::string_view condition, std::string_view message, TimePoint now);

  ClusterCache& cluster_;
  kube::Client& client_;
  const cloud::CloudProvider& cloud_;
  kube::EventRecorder& events_;
  Metrics& metrics_;
  const Clock& clock_;
  Logger logger_;
  // (Node, condition type) → first seen unhealthy, for conditions without a lastTransitionTime.
  std::map<std::pair<std::string, std::string>, TimePoint> first_seen_;
};

}  // namespace karpenter::controllers
