#pragma once
// The cheapest fractional fleet for a demand of CPU, memory and pod slots: min Σ price_i·x_i
// subject to Σ cpu_i·x_i ≥ C, Σ mem_i·x_i ≥ M, Σ pods_i·x_i ≥ P, x ≥ 0 — the LP relaxation of
// buying nodes for pods. It relaxes integrality (a node may be bought in part), pod indivisibility
// (a pod may be split across nodes) and every placement constraint (zones, spreads, affinities,
// host ports), so no packing of the same pods on the same types costs less: a lower bound
// (karpenter-bench cost), and the mix of types a packing should aim for (the scheduler's
// guidance, fleet_guidance.h). Solved exactly by the simplex method on its dual (three
// variables, one constraint per type); at most three types are bought.

#include <optional>
#include <vector>

#include "api/nodepool.h"
#include "cloud/instance_type.h"

namespace karpenter::provisioning {

struct FleetType {
  double cpu = 0;     // allocatable vCPU (after the kubelet's and system reservations)
  double memory = 0;  // allocatable GiB
  double pods = 0;    // pod slots (max pods)
  double price = 0;   // $/h
};

struct FleetDemand {
  double cpu = 0;
  double memory = 0;
  double pods = 0;
};

struct FractionalFleet {
  double price = 0;           // $/h
  std::vector<double> nodes;  // how much of each type, parallel to the types given
};

// nullopt when no combination of the types covers the demand (a resource none of them has).
// Types without a positive price are never bought (free capacity would make any demand cost
// nothing).
std::optional<FractionalFleet> CheapestFractionalFleet(const std::vector<FleetType>& types,
                                                       const FleetDemand& demand);

// The types among `types` that `node_pool` allows, each at the cheapest available offering the
// NodePool allows (reserved ones aside: a reservation is paid for whether used or not), with its
// allocatable less `overhead` (what the DaemonSets on each of its nodes request); types without
// such an offering, or without room beyond the overhead, are left out.
std::vector<FleetType> NodePoolFleetTypes(const api::NodePool& node_pool,
                                          const std::vector<const cloud::InstanceType*>& types,
                                          const api::ResourceList& overhead = {});

}  // namespace karpenter::provisioning
