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

// Asks it of one cluster many times (a consolidation pass tries hundreds of candidates): the
// cluster's capacity is prepared for the scheduler once.
class RemovalSimulator {
 public:
  // `cluster` must outlive the simulator and stay unchanged.
  explicit RemovalSimulator(const Cluster& cluster)
      : cluster_(cluster), scheduler_(cluster.capacity) {}

  // Removes `candidates` (indexes into cluster.candidates) and schedules their pods.
  Simulation Simulate(const std::vector<size_t>& candidates) const;

 private:
  const Cluster& cluster_;
  provisioning::Scheduler scheduler_;
};

// The cheapest available offering of `type` among `zones` and `capacity_types` (empty lists
// allow all); a negative number when there is none.
double CheapestPrice(const cloud::InstanceType& type, const std::vector<std::string>& zones,
                     const std::vector<std::string>& capacity_types);

// The most a replacement may cost once launched: the cheapest allowed offering of its dearest
// option (a launch may land on any of them).
double WorstCasePrice(const provisioning::PlannedNodeClaim& claim);

}  // namespace karpenter::disruption
