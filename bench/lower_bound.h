#pragma once
// The fractional (LP relaxation) cost of covering a total demand of CPU, memory and pod slots with
// instance types: min Σ price_i·x_i subject to Σ cpu_i·x_i ≥ C, Σ mem_i·x_i ≥ M,
// Σ pods_i·x_i ≥ P, x ≥ 0. It relaxes integrality (a node may be bought in part), pod
// indivisibility (a pod may be split across nodes) and every placement constraint (zones,
// spreads, affinities, host ports), so no packing of the same pods on the same types costs less.
// Solved exactly by the simplex method on its dual (three variables, one constraint per type).

#include <optional>
#include <vector>

namespace karpenter::bench {

struct Capacity {
  double cpu = 0;     // allocatable vCPU (after the kubelet's and system reservations)
  double memory = 0;  // allocatable GiB
  double pods = 0;    // pod slots (max pods)
  double price = 0;   // cheapest offering the NodePool allows, $/h
};

struct Demand {
  double cpu = 0;
  double memory = 0;
  double pods = 0;
};

// nullopt when no combination of the types can cover the demand (a resource none of them has).
std::optional<double> LowerBoundPricePerHour(const std::vector<Capacity>& types,
                                             const Demand& demand);

}  // namespace karpenter::bench
