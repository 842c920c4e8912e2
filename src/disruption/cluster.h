#pragma once
// What one disruption pass decides from (upstream-reference §10): the capacity the scheduler sees
// (every node with its pods, the NodePools and their instance types, DaemonSets), the candidates —
// the managed, initialized nodes disruption may remove — and how many nodes each NodePool's budgets
// still allow to be disrupting, per reason. Built by the controller from a cluster snapshot, or
// by a benchmark directly; the decision itself is a pure function of it.

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/nodepool.h"
#include "api/pod.h"
#include "provisioning/scheduler.h"

namespace karpenter::disruption {

struct Candidate {
  size_t capacity_index = 0;  // its entry in Cluster::capacity.existing_nodes
  std::string node;
  std::string node_claim;
  const api::NodePool* node_pool = nullptr;
  std::string instance_type;
  std::string capacity_type;
  std::string zone;
  double price_per_hour = 0;  // what the node costs now; 0 when its offering is unknown
  // The pods that must move elsewhere: bound, not terminal, not DaemonSet pods.
  std::vector<const api::Pod*> pods;
  // How much evicting those pods hurts (more pods, higher priority: costlier).
  double disruption_cost = 0;
  // Its share in a Balanced NodePool's disruption: 1 for the node itself plus each pod's eviction
  // cost, negative ones as 0 (NodeDisruptionCost).
  double node_disruption_cost = 1;
  bool consolidatable = false;  // condition Consolidatable=True: consolidateAfter has elapsed
  std::string drifted;          // the reason of condition Drifted=True; empty when not drifted
};

// Nodes a NodePool's budgets still allow to start disrupting, per api::DisruptionReason.
using BudgetRemaining = std::array<int, 3>;

// What all of a NodePool's nodes (candidates or not) cost and would cost to disrupt: the
// denominators of Balanced consolidation's score.
struct PoolTotals {
  double cost = 0;  // USD per hour
  double disruption_cost = 0;
};

// A node's disruption cost for Balanced consolidation, from its pods' eviction costs.
double NodeDisruptionCost(const std::vector<double>& eviction_costs);

struct Cluster {
  // Every node and in-flight NodeClaim with its pods, the NodePools with their instance types, the
  // DaemonSets; no pending pods.
  provisioning::SchedulerInput capacity;
  // Parallel to capacity.existing_nodes: whether displaced pods may land there (an initialized
  // node that is not itself disrupting).
  std::vector<bool> accepts_pods;
  std::vector<Candidate> candidates;
  std::map<std::string, BudgetRemaining, std::less<>> budgets;  // by NodePool name
  std::map<std::string, PoolTotals, std::less<>> pool_totals;   // by NodePool name

  int Remaining(const Candidate& candidate, api::DisruptionReason reason) const;
  // The NodePool's totals; zeros when it has none.
  PoolTotals TotalsOf(std::string_view node_pool) const;
};

}  // namespace karpenter::disruption
