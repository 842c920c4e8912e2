#pragma once
// The workload controllers of a simulated cluster, on the same store Karpenter uses:
// - Deployments, ReplicaSets, StatefulSets and Jobs (parallelism) keep their replica count of
//   pods: an evicted or deleted pod is replaced by a new, pending one; scaling down deletes
//   pending pods first, then the newest (StatefulSets: the highest ordinals).
// - DaemonSets keep one pod, bound directly, on every Node their template's node selector and
//   affinity match and whose taints it tolerates (with the tolerations the DaemonSet controller
//   adds), and none elsewhere.
// - The pod garbage collector deletes pods bound to Nodes that no longer exist.
// Pods find their workload by their controller owner reference; a snapshot's Deployment pods are
// owned by a ReplicaSet named `<deployment>-<pod-template-hash>`, which leads back to the
// Deployment whether or not the ReplicaSet is in the snapshot. Pods run until deleted (Jobs
// never complete).

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"
#include "kube/informer.h"

namespace karpenter::simulate {

class WorkloadControllers {
 public:
  // Registers handlers on `cluster`'s informers: construct before they sync.
  WorkloadControllers(kube::Client& client, controllers::ClusterCache& cluster);

  // The informers of the workload kinds this owns (DaemonSets come from `cluster`).
  std::vector<kube::Informer*> informers();

  // Creates and deletes pods until every workload has what it asks for; returns how many pods
  // were created or deleted.
  Result<size_t> Run();

 private:
  kube::Client& client_;
  controllers::ClusterCache& cluster_;
  kube::Informer deployments_;
  kube::Informer replica_sets_;
  kube::Informer stateful_sets_;
  kube::Informer jobs_;
  bool dirty_ = true;
  std::set<std::string, std::less<>> deleted_;  // workloads deleted since the last run
};

}  // namespace karpenter::simulate
