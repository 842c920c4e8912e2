#pragma once
// "What if these nodes were gone?": the engine's scheduler places the pods of the removed nodes
// on the nodes that stay (those that accept pods) and on new NodeClaims, as provisioning would.

#include <string>
#include <vector>

#include "disruption/cluster.h"
#include "provisioning/scheduler.h"

namespace karpenter::disruption {

struct Simulation {
  bool all_scheduled = false;  // every displaced pod found a place
  std::string unschedulable;   // else the first that did not, and why ("shop/web-1: …")
  std::vector<provisioning::PlannedNodeClaim> new_claims;
};

// Removes `candidates` (indexes into cluster.candidates) and schedules their pods.
Simulation SimulateRemoval(const Cluster& cluster, const std::vector<size_t>& candidates);

// The cheapest available offering of `type` among `zones` and `capacity_types` (empty lists
// allow all); a negative number when there is none.
double CheapestPrice(const cloud::InstanceType& type, const std::vector<std::string>& zones,
                     const std::vector<std::string>& capacity_types);

// The most a replacement may cost once launched: the cheapest allowed offering of its dearest
// option (a launch may land on any of them).
double WorstCasePrice(const provisioning::PlannedNodeClaim& claim);

}  // namespace karpenter::disruption
