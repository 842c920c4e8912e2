#include "disruption/simulation.h"

#include <algorithm>

namespace karpenter::disruption {

Simulation SimulateRemoval(const Cluster& cluster, const std::vector<size_t>& candidates) {
  const provisioning::SchedulerInput& capacity = cluster.capacity;
  std::vector<bool> removed(capacity.existing_nodes.size(), false);
  provisioning::SchedulerInput input;
  for (size_t index : candidates) {
    const Candidate& candidate = cluster.candidates[index];
    removed[candidate.capacity_index] = true;
    input.pods.insert(input.pods.end(), candidate.pods.begin(), candidate.pods.end());
  }
  input.node_pools = capacity.node_pools;
  input.daemon_sets = capacity.daemon_sets;
  input.storage = capacity.storage;
  input.existing_nodes.reserve(capacity.existing_nodes.size());
  for (size_t i = 0; i < capacity.existing_nodes.size(); ++i) {
    if (!removed[i] && cluster.accepts_pods[i]) {
      input.existing_nodes.push_back(capacity.existing_nodes[i]);
    }
  }
  provisioning::SchedulerResult result = provisioning::Schedule(input);
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
