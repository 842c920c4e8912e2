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
//
// The queue is kube-scheduler's too: a pod that failed goes back with the time of its failure, and
// after its k-th failure it backs off for 1 s * 2^(k-1), at most 10 s, before it is tried again.
// So pods that waited long come to a new node seconds after it is Ready (on the test cluster, 1 to
// 16 s into a scale-up of 1,000 pods), and pods that have just come take it first: a 1-CPU pod
// Karpenter launched a node for can watch smaller, newer pods take it, again and again, as
// `karpenter-bench fidelity` saw on a real cluster (README, "Fidelity").
//
// And it tries one pod at a time, in the order pods came: workload controllers create theirs in
// slow-start batches (1, 2, 4, ...), each batch one run in the queue, and the pods of a sweep that
// fit nowhere fail a turn apart (5 ms), so their backoffs end as far apart. A node that joins
// mid-sweep goes to the next few pods in line, mostly of one workload: that is why the nodes of a
// real scale-up mostly hold one Deployment's pods, or a large one's beside a small one's.
//
// A pod that fits nowhere may preempt pods of lower priority (preemption.h): they are deleted
// (their workloads make new ones, for Karpenter to provision for), and it is nominated to their
// node (status.nominatedNodeName), where it binds when its backoff ends.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/pod.h"
#include "common/clock.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"

namespace karpenter::simulate {

class KubeScheduler {
 public:
  // Told of each preemption: the preemptor ("namespace/name") and what it did.
  using PreemptionNote = std::function<void(std::string preemptor, std::string detail)>;

  // Registers handlers on `cluster`'s pod and node informers: construct before they sync.
  KubeScheduler(kube::Client& client, controllers::ClusterCache& cluster, const Clock& clock,
                PreemptionNote note = {});

  // Binds what fits, starts bound pods, marks the rest; returns how many pods were bound.
  Result<size_t> Run();
  // When a pod's backoff ends, if one is waiting for that.
  std::optional<TimePoint> NextWake() const;

 private:
  // Every parked pod is worth another try.
  void Unpark();
  // How many of `victims` going together a PodDisruptionBudget forbids (its status's
  // disruptionsAllowed, charged victim by victim).
  int BudgetViolations(const std::vector<const api::Pod*>& victims) const;

  kube::Client& client_;
  controllers::ClusterCache& cluster_;
  const Clock& clock_;
  const PreemptionNote note_;
  bool dirty_ = true;
  std::set<std::string, std::less<>> waiting_;  // keys of pods not yet bound or not yet started
  // Pending pods found unschedulable since the last event that could make room for them.
  std::set<std::string, std::less<>> parked_;
  bool parked_want_affinity_ = false;  // some parked pod requires pod affinity
  // Pending pods that failed: how often, and when last.
  struct Failures {
    int count = 0;
    TimePoint last;
  };
  std::map<std::string, Failures, std::less<>> failures_;
  std::optional<TimePoint> backoff_ends_;  // the soonest a skipped pod's backoff ends
};

}  // namespace karpenter::simulate
