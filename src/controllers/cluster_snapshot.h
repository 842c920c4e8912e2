#pragma once
// One decoded view of the cluster for a controller pass (provisioning, disruption), taken from the
// informers at one moment, and the capacity the scheduler sees in it: every Node with the pods
// bound to it, and every in-flight NodeClaim (launched or launching, no Node yet).
// Pods, Nodes and NodeClaims come decoded from the cache; other objects that do not decode are
// skipped (and logged); the pass goes on with the rest.

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/workloads.h"
#include "cloud/cloud_provider.h"
#include "common/log.h"
#include "controllers/cluster_cache.h"
#include "provisioning/scheduler.h"

namespace karpenter::controllers {

struct NodePoolView {
  api::NodePool pool;
  kube::Object object;
  std::shared_ptr<const std::vector<cloud::InstanceType>> instance_types;
};

struct ClusterSnapshot {
  std::vector<std::shared_ptr<const api::Pod>> pods;
  std::vector<std::shared_ptr<const api::Node>> nodes;             // those not being deleted
  std::vector<std::shared_ptr<const api::NodeClaim>> node_claims;  // deleting ones included
  std::vector<NodePoolView> node_pools;  // not deleting, with their EC2NodeClass present
  std::vector<api::Workload> daemon_sets;
};

// Takes the rest of the cluster beside `pods` (from cluster.decoded_pods()), and asks the cloud
// for each NodePool's instance types (a pool whose listing fails is left out, with an error
// logged).
ClusterSnapshot TakeSnapshot(const ClusterCache& cluster, cloud::CloudProvider& cloud,
                             const Logger& logger,
                             std::vector<std::shared_ptr<const api::Pod>> pods);
// The DaemonSets that decode (their pod templates are every new node's overhead).
std::vector<api::Workload> DecodeDaemonSets(const ClusterCache& cluster);
// Only the capacity that exists or is on its way: `pods`, Nodes and NodeClaims; no NodePools (so
// nothing new can be planned) and no DaemonSets.
ClusterSnapshot TakeCapacitySnapshot(const ClusterCache& cluster,
                                     std::vector<std::shared_ptr<const api::Pod>> pods);

// Where a scheduler node came from.
struct CapacitySource {
  const api::Node* node = nullptr;             // nullptr for an in-flight NodeClaim
  const api::NodeClaim* node_claim = nullptr;  // nullptr for a Node Karpenter does not manage
};

// The scheduler's input for a snapshot, without pending pods: NodePools with their instance
// types and usage, every Node with the pods bound to it, the in-flight NodeClaims, and the
// DaemonSets. Nodes whose NodeClaim is being deleted carry karpenter.sh/disrupted:NoSchedule, so
// nothing is planned onto them. Points into `snapshot`, which must outlive it.
struct SchedulingView {
  provisioning::SchedulerInput input;
  std::vector<CapacitySource> sources;  // parallel to input.existing_nodes
};
SchedulingView BuildSchedulingView(const ClusterSnapshot& snapshot);

// Adds to `pods` unbound copies (kept in `copies`) of the reschedulable pods bound to `node`: the
// pods that need a new home when that Node goes.
void AddDisplacedPods(const provisioning::ExistingNode& node, std::deque<api::Pod>& copies,
                      std::vector<const api::Pod*>& pods);

}  // namespace karpenter::controllers
