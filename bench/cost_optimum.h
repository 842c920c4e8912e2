#pragma once
// The MILP solver of the cost benchmarks: scripts/cost-optimum (HiGHS, installed from PyPI once)
// on models as scripts/cost_optimum.py reads them. The benchmarks only, never the product.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/nodepool.h"
#include "api/resource_list.h"
#include "cloud/instance_type.h"
#include "common/json.h"
#include "common/result.h"
#include "provisioning/fractional_fleet.h"

namespace karpenter::bench {

// Runs scripts/cost-optimum on the models; its results by model name. An error names what failed.
Result<std::map<std::string, Json>> SolveOptimum(const Json& models);

// The types `node_pool` allows among `types` as provisioning::NodePoolFleetTypes gives them, with
// only the offerings in `zone` (a model's types in one zone, at that zone's prices).
std::vector<provisioning::FleetType> ZoneFleetTypes(
    const api::NodePool& node_pool, const std::vector<const cloud::InstanceType*>& types,
    std::string_view zone, const api::ResourceList& overhead = {});

}  // namespace karpenter::bench
