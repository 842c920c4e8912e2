#pragma once
// The workload controllers of a simulated cluster, on the same store Karpenter uses:
// - Deployments, ReplicaSets, StatefulSets and Jobs (parallelism) keep their replica count of
//   pods: an evicted or deleted pod is replaced by a new, pending one; scaling down deletes
//   pods in the ReplicaSet controller's order — unbound and not Ready first, then those whose
//   Node holds most of the workload's pods, then the newest on a log scale (StatefulSets: the
//   highest ordinals).
// - DaemonSets keep one pod, bound directly, on every Node their template's node selector and
//   affinity match and whose taints it tolerates (with the tolerations the DaemonSet controller
//   adds), and none elsewhere.
// - The pod garbage collector deletes pods bound to Nodes that no longer exist.
// Pods find their workload by their controller owner reference; a snapshot's Deployment pods are
// owned by a ReplicaSet named `<deployment>-<pod-template-hash>`, which leads back to the
// Deployment whether or not the ReplicaSet is in the snapshot. Pods run until deleted (Jobs
// never complete).
//
// Like the real controllers, each run reconciles only what changed since the last: the workloads
// whose object or pods changed, the Nodes that came, changed or went. A cluster of 50,000 pods
// where one pod was evicted costs one workload's reconcile, not a walk over every pod.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"
#include "kube/informer.h"

namespace karpenter::simulate {

class WorkloadControllers {
 public:
  // Registers handlers on `cluster`'s informers: construct before they sync. `clock` dates the
  // pods' ages when choosing which to delete.
  WorkloadControllers(kube::Client& client, controllers::ClusterCache& cluster, const Clock& clock);

  // The informers of the workload kinds this owns (DaemonSets come from `cluster`).
  std::vector<kube::Informer*> informers();

  // Creates and deletes pods until every workload that changed has what it asks for; returns
  // how many pods were created or deleted.
  Result<size_t> Run();

 private:
  // "Kind/namespace/name".
  using WorkloadKey = std::string;
  using Keys = std::set<std::string, std::less<>>;

  // Brings the pods whose events arrived since the last run into owners_/pods_of_, marking
  // their workloads dirty, and collects those bound to Nodes that do not exist.
  Status TrackChangedPods();
  Status CollectPodsOfGoneNodes();
  Status Reconcile(const WorkloadKey& key);
  // One pod of each DaemonSet of `daemon_sets` on each of `nodes` that takes it.
  Status ReconcileDaemonSets(const std::vector<kube::Object>& daemon_sets,
                             const std::vector<std::shared_ptr<const api::Node>>& nodes);
  // The live (not deleting, not finished) pods of `key`.
  std::vector<std::shared_ptr<const api::Pod>> LivePods(const WorkloadKey& key) const;
  kube::Informer* InformerOf(std::string_view kind);
  Status DeletePod(const api::Pod& pod);
  Status CreatePod(const kube::Object& pod);

  kube::Client& client_;
  controllers::ClusterCache& cluster_;
  const Clock& clock_;
  kube::Informer deployments_;
  kube::Informer replica_sets_;
  kube::Informer stateful_sets_;
  kube::Informer jobs_;

  bool first_run_ = true;  // everything is dirty
  size_t changes_ = 0;     // pods created or deleted by the current run
  Keys changed_pods_;      // pod keys with events since the last run
  Keys dirty_;             // workloads to reconcile
  Keys deleted_;           // workloads deleted since the last run
  Keys dirty_nodes_;       // Nodes added or changed: their DaemonSet pods to check
  Keys gone_nodes_;        // Nodes deleted: their pods to collect
  struct Owned {
    WorkloadKey workload;
    std::string node;  // for a DaemonSet's pod: the Node it runs on
  };
  std::map<std::string, Owned, std::less<>> owners_;  // pod key -> its workload
  std::map<WorkloadKey, Keys, std::less<>> pods_of_;  // workload -> its pod keys
};

}  // namespace karpenter::simulate
