#pragma once
// `karpenter migrate plan`'s forecast: what the migration would do to the cluster as it runs now —
// its Nodes, pods, workloads and PodDisruptionBudgets, the NodePools that would take over (when it
// has none yet), Cluster Autoscaler scaled to 0 and, a minute later, the node groups shrunk to the
// plan's targets as `karpenter migrate apply --batch` shrinks them (one group after another,
// `batch` nodes at a time, each batch settled before the next; PDB-respecting drains) — in
// `karpenter simulate`'s engine, priced with the embedded catalog of the cluster's region.

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "migrate/inventory.h"
#include "migrate/node_pools.h"
#include "migrate/steps.h"
#include "simulate/result.h"

namespace karpenter::cli {

// Errors: an object the simulation cannot take, a region without catalog data. `notes` gets what
// the simulation leaves out (a node group without Nodes is not shrunk).
Result<simulate::SimulationResult> ForecastMigration(
    const migrate::ClusterObjects& objects, const migrate::AwsInventory& aws,
    const migrate::ClusterInventory& inventory, const migrate::MigrationPlan& plan,
    const migrate::DerivedNodePools& derived, int64_t batch, std::chrono::milliseconds duration,
    std::vector<std::string>& notes);

// The report's "forecast" object.
Json ForecastJson(const simulate::SimulationResult& result, const std::vector<std::string>& notes);
// The text report's forecast section (or why there is none).
void PrintForecast(const Result<simulate::SimulationResult>& result,
                   const std::vector<std::string>& notes, std::ostream& out);

}  // namespace karpenter::cli
