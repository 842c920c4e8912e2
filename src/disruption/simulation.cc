#include "disruption/simulation.h"

#include <algorithm>

namespace karpenter::disruption {

Simulation RemovalSimulator::Simulate(const std::vector<size_t>& candidates) const {
  // Nodes that take no displaced pods are left out, as the removed ones are.
  std::vector<bool> left_out(cluster_.accepts_pods.size());
  for (size_t i = 0; i < left_out.size(); ++i) left_out[i] = !cluster_.accepts_pods[i];
  std::vector<const api::Pod*> pods;
  for (size_t index : candidates) {
    const Candidate& candidate = cluster_.candidates[index];
    left_out[candidate.capacity_index] = true;
    pods.insert(pods.end(), candidate.pods.begin(), candidate.pods.end());
  }
  provisioning::SchedulerResult result = scheduler_.Run(pods, left_out);
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
