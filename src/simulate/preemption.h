#pragma once
// kube-scheduler's preemption (its DefaultPreemption plugin) for the simulated kube-scheduler. A
// pod that fits no node, whose preemptionPolicy is not Never, looks for a node where deleting pods
// of lower priority makes it fit. On each node it could, the pods of lower priority all go, then
// come back one at a time, those a PodDisruptionBudget protects first and then the most important,
// as long as the pod still fits: what cannot come back are the victims. Of those nodes it takes
// the one whose victims break the fewest budgets, then whose most important victim matters least,
// then the smallest sum of victims' priorities, then the fewest victims. kube-scheduler deletes
// the victims and nominates the node (status.nominatedNodeName); the pod binds there once they
// are gone, and Karpenter provisions for the victims, not for it.
//
// The fit is the scheduling engine's, on every node at once (a zone spread counts the other
// nodes' pods), with the pod held to the node; weighed over at most a handful of nodes, as
// kube-scheduler weighs a sample of them.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/pod.h"
#include "provisioning/scheduler.h"

namespace karpenter::simulate {

struct Preemption {
  std::string node;
  std::vector<const api::Pod*> victims;
};

// How many of `victims` going together a PodDisruptionBudget forbids.
using BudgetViolations = std::function<int(const std::vector<const api::Pod*>& victims)>;

// Where `preemptor` runs if pods of lower priority are deleted, and which; nullopt when nowhere.
// `pass`: kube-scheduler's view of the Ready nodes with their pods, the pods being bound to them
// and those nominated to them (unbound pods are never victims; a nominated one of lower priority
// yields its room); its pods list and nodes' pods are changed while searching, and restored.
std::optional<Preemption> FindPreemption(const api::Pod& preemptor,
                                         provisioning::SchedulerInput& pass,
                                         const BudgetViolations& violations);

}  // namespace karpenter::simulate
