#pragma once
// What makes a NodeClaim disruptable, kept on it as status (upstream-reference §9–§10):
// - expiration: a NodeClaim older than its spec.expireAfter is deleted (not budgeted);
// - status.lastPodEventTime: when a pod last arrived on or left its Node;
// - Consolidatable: True once the NodePool's consolidateAfter has passed since that time (or
//   since initialization), never with consolidateAfter: Never;
// - Drifted: True, with the reason, when the NodeClaim no longer matches what its NodePool and
//   EC2NodeClass would make now (template hash, class hash, requirements, instance type gone,
//   and what the cloud provider resolves now: AMI, subnet, security groups).
// The disruption controller reads these conditions.

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mutex.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/metrics.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::controllers {

class NodeClaimDisruption {
 public:
  NodeClaimDisruption(ClusterCache& cluster, kube::Client& client, cloud::CloudProvider& cloud,
                      kube::EventRecorder& events, Metrics& metrics, const Clock& clock,
                      Logger logger);

  // From the pod informer (any thread): notes a pod being bound to a node or leaving it
  // (deleted, deleting or finished). Returns that node's name when it is such an event.
  std::optional<std::string> ObservePod(kube::WatchEventType type, const kube::Object& pod);

  // From the node informer: the Node is gone, and so is what was noted about it.
  void ForgetNode(std::string_view node);

  // Expires, or updates lastPodEventTime, Consolidatable and Drifted of, the NodeClaim `name`.
  // Returns when to look again without a change to watch for.
  Result<std::optional<std::chrono::milliseconds>> Reconcile(std::string_view name);

 private:
  // Why the NodeClaim is drifted ("NodePoolDrifted", …, and what the cloud provider says of its
  // instance); empty when it is not.
  std::string DriftReason(const kube::Object& claim_object, const api::NodeClaim& claim,
                          const kube::Object& node_pool_object, const kube::Object* node) const;
  std::optional<TimePoint> LastPodEvent(std::string_view node) const;
  // Drops the node's pod event time once `written` (as recent) is in its NodeClaim's status.
  void ForgetPodEvent(std::string_view node, TimePoint written);

  ClusterCache& cluster_;
  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  kube::EventRecorder& events_;
  Metrics& metrics_;
  const Clock& clock_;
  Logger logger_;

  mutable Mutex mutex_;
  std::map<std::string, std::string, std::less<>> bound_pods_
      GUARDED_BY(mutex_);  // pod uid -> node
  // Node -> the time of its last pod event.
  std::map<std::string, TimePoint, std::less<>> last_pod_event_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::controllers
