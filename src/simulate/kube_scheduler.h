#pragma once
// The kube-scheduler and kubelets of a simulated cluster. Pending pods are placed on Ready,
// schedulable Nodes by the same scheduling engine Karpenter plans with (resources, pod count,
// taints and tolerations, node selectors and affinity, pod (anti-)affinity, topology spread, host
// ports), given the Nodes only and choosing as kube-scheduler does (provisioning::Placement::
// kKubeScheduler: its queue's order, its resource scores), not as Karpenter packs: where pods land
// decides which ones a new fleet strands. A pod that fits nowhere is marked PodScheduled=False
// reason Unschedulable, which is what makes Karpenter provision for it. A bound pod starts at once:
// its "kubelet" sets phase Running and Ready.
//
// Work happens only after pods or Nodes changed while some pod waits to be placed or started
// (informer handlers keep count), so an idle cluster of 50,000 pods costs nothing per round. As
// kube-scheduler parks a pod that fits nowhere until an event could make room for it, a pod found
// unschedulable is tried again only after a Node changed or a pod went away (or, while such a pod
// wants pod affinity, another pod was bound): new pods do not make every parked one be tried again.

#include <cstddef>
#include <set>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"

namespace karpenter::simulate {

class KubeScheduler {
 public:
  // Registers handlers on `cluster`'s pod and node informers: construct before they sync.
  KubeScheduler(kube::Client& client, controllers::ClusterCache& cluster, const Clock& clock);

  // Binds what fits, starts bound pods, marks the rest; returns how many pods were bound.
  Result<size_t> Run();

 private:
  // Every parked pod is worth another try.
  void Unpark();

  kube::Client& client_;
  controllers::ClusterCache& cluster_;
  const Clock& clock_;
  bool dirty_ = true;
  std::set<std::string, std::less<>> waiting_;  // keys of pods not yet bound or not yet started
  // Pending pods found unschedulable since the last event that could make room for them.
  std::set<std::string, std::less<>> parked_;
  bool parked_want_affinity_ = false;  // some parked pod requires pod affinity
};

}  // namespace karpenter::simulate
