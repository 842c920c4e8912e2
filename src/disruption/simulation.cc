#include "disruption/simulation.h"

#include <algorithm>
#include <functional>
#include <string>

#include "api/labels.h"

namespace karpenter::disruption {

namespace {

// `pod` held to `zone`: a node selector for it, and no ScheduleAnyway spread over zones.
api::Pod InZone(const api::Pod& pod, const std::string& zone) {
  api::Pod pinned = pod;
  pinned.spec.node_selector[std::string(api::kLabelZone)] = zone;
  std::erase_if(pinned.spec.topology_spread_constraints,
                [](const api::TopologySpreadConstraint& spread) {
                  return spread.topology_key == api::kLabelZone &&
                         spread.when_unsatisfiable ==
                             api::UnsatisfiableConstraintAction::kScheduleAnyway;
                });
  return pinned;
}

}  // namespace

Simulation RemovalSimulator::Simulate(const std::vector<size_t>& candidates,
                                      Placement placement) const {
  // Nodes that take no displaced pods are left out, as the removed ones are.
  std::vector<bool> left_out(cluster_.accepts_pods.size());
  for (size_t i = 0; i < left_out.size(); ++i) left_out[i] = !cluster_.accepts_pods[i];
  std::vector<const api::Pod*> pods;
  std::vector<api::Pod> pinned;  // kStayInZone: the copies scheduled in place of `pods`
  for (size_t index : candidates) {
    const Candidate& candidate = cluster_.candidates[index];
    left_out[candidate.capacity_index] = true;
    pods.insert(pods.end(), candidate.pods.begin(), candidate.pods.end());
    if (placement == Placement::kStayInZone && !candidate.zone.empty()) {
      for (const api::Pod* pod : candidate.pods) pinned.push_back(InZone(*pod, candidate.zone));
    }
  }
  std::vector<const api::Pod*> scheduled = pods;
  if (placement == Placement::kStayInZone) {
    if (pinned.size() != pods.size()) return {false, "a node of the move has no zone", {}};
    for (size_t i = 0; i < pinned.size(); ++i) scheduled[i] = &pinned[i];
  }
  provisioning::SchedulerResult result = scheduler_.Run(scheduled, left_out);
  if (placement == Placement::kStayInZone) {
    // What the caller keeps names its own pods, not the copies about to go.
    auto original = [&](const api::Pod*& pod) {
      const std::less<const api::Pod*> before;
      if (!before(pod, pinned.data()) && before(pod, pinned.data() + pinned.size())) {
        pod = pods[static_cast<size_t>(pod - pinned.data())];
      }
    };
    for (provisioning::PlannedNodeClaim& claim : result.node_claims) {
      for (const api::Pod*& pod : claim.pods) original(pod);
    }
    for (provisioning::UnschedulablePod& failed : result.unschedulable) original(failed.pod);
  }
  std::string unschedulable;
  if (!result.unschedulable.empty()) {
    const provisioning::UnschedulablePod& first = result.unschedulable.front();
    unschedulable =
        first.pod->metadata.namespace_ + "/" + first.pod->metadata.name + ": " + first.reason;
  }
  return {result.unschedulable.empty(), std::move(unschedulable), std::move(result.node_claims)};
}

double CheapestPrice(const cloud::InstanceType& type, const std::vector<std::string>& zones,
                     const std::vector<std::string>& capacity_types) {
  auto allows = [](const std::vector<std::string>& list, const std::string& value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
  };
  double cheapest = -1;
  for (const cloud::Offering& offering : type.offerings) {
    if (!offering.available || !allows(zones, offering.zone) ||
        !allows(capacity_types, offering.capacity_type)) {
      continue;
    }
    if (cheapest < 0 || offering.price < cheapest) cheapest = offering.price;
  }
  return cheapest;
}

double WorstCasePrice(const provisioning::PlannedNodeClaim& claim) {
  double worst = 0;
  for (const cloud::InstanceType* type : claim.instance_types) {
    worst = std::max(worst, CheapestPrice(*type, claim.zones, claim.capacity_types));
  }
  return worst;
}

}  // namespace karpenter::disruption
