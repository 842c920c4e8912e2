#pragma once
// Draining a Node before its machine goes (upstream-reference §9, termination): the pods bound to
// it are evicted through the Eviction API, which honours PodDisruptionBudgets, in four tiers —
// ordinary pods, then DaemonSet pods, then critical pods, then critical DaemonSet pods — each tier
// only once the one before it is gone. Pods that finished, mirror pods and pods that tolerate the
// karpenter.sh/disrupted taint (they would come straight back) do not hold the Node; pods marked
// karpenter.sh/do-not-disrupt hold it until the NodeClaim's terminationGracePeriod runs out.
// Pods already terminating are waited for (for a minute past their deletionTimestamp at most: a
// kubelet that long silent is gone); an eviction a budget refuses is retried with backoff. As the
// deadline nears, a pod whose own grace period would outlast it is deleted outright (bypassing its
// budget) with the time left; at the deadline every pod left is, and the Node counts as drained.
//
// Drained, the Node's machine still waits for its VolumeAttachments to go (the attach/detach
// controller and CSI driver detach the volumes of the pods that left), so that a volume is not
// torn from a terminated instance and its pod's next attach does not wait for EC2 to notice
// (docs/upstream-reference.md §17): until the same deadline, as upstream's VolumesDetached.

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/nodeclaim.h"
#include "api/pod.h"
#include "common/clock.h"
#include "common/log.h"
#include "controllers/cluster_cache.h"
#include "controllers/metrics.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::controllers {

struct DrainOutcome {
  bool drained = false;
  std::chrono::milliseconds requeue{0};  // when not drained: when to take the next step
};

// One drain step at a time, driven by the NodeClaim lifecycle. Not thread-safe: it keeps, per
// Node, the backoff of the pods whose eviction failed.
class NodeDrainer {
 public:
  NodeDrainer(ClusterCache& cluster, kube::Client& client, kube::EventRecorder& events,
              Metrics& metrics, const Clock& clock, Logger logger);

  // Evicts or deletes what is due on `node` (the NodeClaim `claim`'s, which is being deleted and
  // sets the deadline) and says whether nothing holds the Node any more.
  DrainOutcome Drain(const kube::Object& node, const api::NodeClaim& claim);
  // Drops what was kept about the Node `node_name` (once it is gone).
  void Forget(std::string_view node_name);
  // The VolumeAttachments (names, sorted) the termination of `node` (the NodeClaim `claim`'s)
  // still waits for: those of a PersistentVolume, but for the volumes of the pods the drain leaves
  // on the Node (mirror pods, pods tolerating karpenter.sh/disrupted), which would never detach;
  // none once the claim's deadline has passed.
  std::vector<std::string> AttachedVolumes(const kube::Object& node,
                                           const api::NodeClaim& claim) const;

 private:
  struct Backoff {
    MonoTime next_attempt;  // a timer of ours: on the monotonic clock
    std::chrono::milliseconds delay{0};
  };
  using PodBackoffs = std::map<std::string, Backoff, std::less<>>;  // by pod uid

  // Evicts `pod`; returns whether it is on its way out (evicted, or already gone). `reason`: the
  // NodeClaim's disruption reason, for the drained-pods series.
  bool Evict(const kube::Object& node, const api::Pod& pod, std::string_view reason,
             PodBackoffs& backoffs, MonoTime now);
  // Deletes `pod` with `grace` seconds to stop, bypassing its budget.
  void Delete(const kube::Object& node, const api::Pod& pod, std::string_view reason, int64_t grace,
              std::string_view why);

  ClusterCache& cluster_;
  kube::Client& client_;
  kube::EventRecorder& events_;
  Metrics& metrics_;
  const Clock& clock_;
  Logger logger_;
  std::map<std::string, PodBackoffs, std::less<>> backoffs_;  // by Node name
};

}  // namespace karpenter::controllers
