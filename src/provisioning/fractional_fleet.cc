#include "provisioning/fractional_fleet.h"

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

#include "api/labels.h"
#include "scheduling/requirements.h"

namespace karpenter::provisioning {
namespace {

constexpr double kEpsilon = 1e-9;

}  // namespace

// The dual: max C·y_cpu + M·y_mem + P·y_pods subject to cpu_i·y_cpu + mem_i·y_mem + pods_i·y_pods
// ≤ price_i for every type, y ≥ 0 — feasible at y = 0 (prices are positive), so the simplex starts
// there with the types' slacks as the basis. Its optimum equals the primal's (strong duality); an
// unbounded dual means the demand cannot be covered. A compact tableau keeps one row per type and
// one column per dual variable; Bland's rule (lowest index enters and leaves) rules out cycling. At
// the optimum the primal's x_i is the reduced cost of row i's slack where that slack is non-basic
// (zero where it is basic).
std::optional<FractionalFleet> CheapestFractionalFleet(const std::vector<FleetType>& types,
                                                       const FleetDemand& demand) {
  constexpr size_t kVars = 3;
  const std::array<double, kVars> objective = {demand.cpu, demand.memory, demand.pods};
  std::vector<std::array<double, kVars + 1>> rows;  // coefficients of the non-basic vars, rhs
  std::vector<size_t> row_type;                     // row -> index into types
  for (size_t t = 0; t < types.size(); ++t) {
    if (types[t].price <= 0) continue;
    rows.push_back({types[t].cpu, types[t].memory, types[t].pods, types[t].price});
    row_type.push_back(t);
  }
  const size_t n = rows.size();
  // Labels: variables 0..2 are y; 3.. are the slacks of the rows. Column j is non-basic var
  // nonbasic[j]; row i's basic var is basic[i].
  std::array<size_t, kVars> nonbasic = {0, 1, 2};
  std::vector<size_t> basic(n);
  for (size_t i = 0; i < n; ++i) basic[i] = kVars + i;
  std::array<double, kVars + 1> cost = {-objective[0], -objective[1], -objective[2], 0};
  for (size_t iteration = 0; iteration < 100 * (n + kVars) + 100; ++iteration) {
    // Entering: the lowest-labelled column whose reduced cost improves the objective.
    size_t enter = kVars;
    for (size_t j = 0; j < kVars; ++j) {
      if (cost[j] < -kEpsilon && (enter == kVars || nonbasic[j] < nonbasic[enter])) enter = j;
    }
    if (enter == kVars) {  // optimal
      FractionalFleet fleet{cost[kVars], std::vector<double>(types.size(), 0)};
      for (size_t j = 0; j < kVars; ++j) {
        if (nonbasic[j] >= kVars) fleet.nodes[row_type[nonbasic[j] - kVars]] = cost[j];
      }
      return fleet;
    }
    // Leaving: the tightest ratio, ties to the lowest label.
    size_t leave = n;
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < n; ++i) {
      if (rows[i][enter] <= kEpsilon) continue;
      const double ratio = rows[i][kVars] / rows[i][enter];
      if (ratio < best - kEpsilon ||
          (std::abs(ratio - best) <= kEpsilon && leave < n && basic[i] < basic[leave])) {
        best = ratio;
        leave = i;
      }
    }
    if (leave == n) return std::nullopt;  // unbounded dual: no types cover the demand
    const double pivot = rows[leave][enter];
    auto eliminate = [&](std::array<double, kVars + 1>& row) {
      const double factor = row[enter];
      if (factor == 0) return;
      for (size_t j = 0; j <= kVars; ++j) {
        if (j != enter) row[j] -= factor * rows[leave][j] / pivot;
      }
      row[enter] = -factor / pivot;
    };
    for (size_t i = 0; i < n; ++i) {
      if (i != leave) eliminate(rows[i]);
    }
    eliminate(cost);
    for (size_t j = 0; j <= kVars; ++j) {
      if (j != enter) rows[leave][j] /= pivot;
    }
    rows[leave][enter] = 1 / pivot;
    std::swap(basic[leave], nonbasic[enter]);
  }
  return std::nullopt;  // not reached: Bland's rule terminates
}

std::vector<FleetType> NodePoolFleetTypes(const api::NodePool& node_pool,
                                          const std::vector<const cloud::InstanceType*>& types,
                                          const api::ResourceList& overhead) {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  const scheduling::Requirements requirements =
      scheduling::Requirements::FromNodeSelector(node_pool.spec.template_.spec.requirements);
  const scheduling::Requirement* capacity_types = requirements.Get(api::kLabelCapacityType);
  std::vector<FleetType> out;
  for (const cloud::InstanceType* type : types) {
    if (!type->requirements.Intersects(requirements)) continue;
    double cheapest = 0;
    for (const cloud::Offering& offering : type->offerings) {
      if (!offering.available || offering.capacity_type == api::kCapacityTypeReserved ||
          (capacity_types != nullptr && !capacity_types->Has(offering.capacity_type))) {
        continue;
      }
      if (cheapest == 0 || offering.price < cheapest) cheapest = offering.price;
    }
    if (cheapest <= 0) continue;
    const api::ResourceList room = type->Allocatable() - overhead;
    if (room.cpu() <= Quantity() || room.memory() <= Quantity() || room.pods() <= Quantity()) {
      continue;
    }
    out.push_back({room.cpu().as_double(), room.memory().as_double() / kGiB,
                   room.pods().as_double(), cheapest});
  }
  return out;
}

}  // namespace karpenter::provisioning
