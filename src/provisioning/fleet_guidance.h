#pragma once
// Which instance type each pending pod's NodeClaim should be sized as, and the order to place the
// pods in, from the cheapest fractional fleet for them (fractional_fleet.h).
//
// Why: claims filled first-fit with pods in size order each get a slice of the queue that mixes
// every shape, so each ends up with the mix's proportions of CPU and memory, and the one type that
// suits those proportions is bought for all of them. The LP shows that a mix of types is cheaper
// (say memory-optimised nodes for the memory-heavy pods with some CPU-heavy ones beside them, and
// general-purpose nodes for the rest): each of its types is bought full in every resource it pays
// for. So the pods of each pool are split into one group per type the LP buys, each group's
// CPU and memory in that type's proportions and at most its share of the fleet, and each group is
// queued in an order that keeps any run of it near those proportions (alternately from the
// memory-rich and the CPU-rich end), so the claims it fills come out full. The scheduler tries
// the plan this gives against its usual one and keeps the cheaper: the LP splits pods across
// nodes, and where that matters (thousands of identical tiny pods) the guidance can be worse.

#include <vector>

#include "provisioning/fractional_fleet.h"

namespace karpenter::provisioning {

struct GuidedPod {
  double cpu = 0;     // requested vCPU
  double memory = 0;  // requested GiB
  double pods = 1;    // pod slots
  int pool = -1;      // index of the pool whose claims it would go to; -1: none
};

struct FleetGuidance {
  // Per pod: index into its pool's types of the type its claim should be sized as (the largest
  // of the equally priced sizes of the one the LP buys); -1: none (no pool, or no mix of the
  // pool's types covers its pool's pods).
  std::vector<int> type;
  // Per pod: where it goes in the queue, groups after one another (pools in order, each pool's
  // types richest in memory per CPU first); pods of a pool without a type after every group; -1
  // for pods of no pool.
  std::vector<int> rank;
};

// `pools[p]` lists pool p's instance types with what each leaves for pods.
FleetGuidance GuideByFractionalFleet(const std::vector<GuidedPod>& pods,
                                     const std::vector<std::vector<FleetType>>& pools);

}  // namespace karpenter::provisioning
