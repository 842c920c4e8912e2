#pragma once
// Provisioning (upstream-reference §8): pods the kube-scheduler marked Unschedulable are batched (a
// window closes after BATCH_IDLE_DURATION without new pods, or BATCH_MAX_DURATION after the first),
// then one scheduling pass over the cluster as the informers see it — existing nodes and their
// pods, in-flight NodeClaims, daemonset overhead, NodePool limits — decides the NodeClaims to
// create. The pods a Node being deleted still runs count as pending too (as upstream does), so that
// their new capacity is on its way before they are evicted. Each pending pod gets an Event: where
// it should land, or why nothing fits.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mutex.h"
#include "common/result.h"
#include "controllers/capacity_buffers.h"
#include "controllers/cluster_cache.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/metrics.h"
#include "kube/client.h"
#include "kube/event_recorder.h"
#include "provisioning/scheduler.h"

namespace karpenter::controllers {

struct BatchOptions {
  std::chrono::milliseconds idle{1000};
  std::chrono::milliseconds max{10000};
};

// The batching window: opens with the first trigger, closes when triggers pause for `idle` or
// `max` after it opened.
class Batcher {
 public:
  explicit Batcher(BatchOptions options) : options_(options) {}
  void Trigger(MonoTime now);
  // True (and the window resets) when an open window has closed by `now`.
  bool Ready(MonoTime now);
  // When the open window closes at the latest, for sleeping until then; nullopt when closed.
  std::optional<MonoTime> Deadline() const;

 private:
  const BatchOptions options_;
  mutable Mutex mutex_;
  std::optional<MonoTime> first_ GUARDED_BY(mutex_);
  MonoTime last_ GUARDED_BY(mutex_);
};

// Whether the pod waits for capacity Karpenter can provide: not bound, not preempting (no
// status.nominatedNodeName), not terminal or deleting, not a DaemonSet's, and marked Unschedulable
// by the kube-scheduler.
bool IsProvisionable(const api::Pod& pod);

struct ProvisioningResult {
  std::vector<std::string> node_claims;  // names created
  size_t pods_nominated = 0;             // to new NodeClaims or existing capacity
  size_t pods_unschedulable = 0;
};

class Provisioner {
 public:
  // `buffers` (the CapacityBuffer gate; may be null): their copies of pods are planned for as
  // pending pods.
  Provisioner(ClusterCache& cluster, kube::Client& client, cloud::CloudProvider& cloud,
              kube::EventRecorder& events, Metrics& metrics, Logger logger, uint64_t seed,
              provisioning::SchedulingPolicy policy = {}, CapacityBuffers* buffers = nullptr);

  // One pass now.
  Result<ProvisioningResult> Provision();

  // Creates the NodeClaim `planned` describes from its NodePool's template (also used for the
  // replacements disruption launches).
  Result<kube::Object> CreateNodeClaim(const provisioning::PlannedNodeClaim& planned,
                                       const kube::Object& node_pool);

  // The CapacityBuffers' copies the last pass placed on existing capacity, bound to its Nodes
  // (none without buffers): the room consolidation keeps.
  std::vector<std::shared_ptr<const api::Pod>> BufferCopies() const;

 private:
  ClusterCache& cluster_;
  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  kube::EventRecorder& events_;
  Metrics& metrics_;
  Logger logger_;
  std::mt19937_64 random_;
  const provisioning::SchedulingPolicy policy_;
  CapacityBuffers* const buffers_;
  // The NodeClaim the last pass nominated each pending pod to ("namespace/name" → NodeClaim name):
  // the next pass tries it there first while that NodeClaim is in flight.
  std::map<std::string, std::string, std::less<>> nominations_;
};

}  // namespace karpenter::controllers
