#include "end_state.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "api/pod.h"
#include "aws/catalog/load_catalog.h"
#include "cli/builtin_scenario.h"
#include "common/duration.h"
#include "common/json.h"
#include "controllers/cluster_cache.h"
#include "controllers/cluster_snapshot.h"
#include "cost_optimum.h"
#include "provisioning/fractional_fleet.h"
#include "provisioning/scheduler.h"
#include "simulate/inputs.h"
#include "simulate/simulation.h"
#include "simulate/timeline.h"

namespace karpenter::bench {
namespace {

constexpr double kMiB = 1024.0 * 1024;

// The maxSkew of the zone spread a pod asks for, kept or not (ScheduleAnyway too: Karpenter
// honours it while it can); nullopt without one.
std::optional<int32_t> ZoneSkew(const api::Pod& pod) {
  for (const api::TopologySpreadConstraint& spread : pod.spec.topology_spread_constraints) {
    if (spread.topology_key == api::kLabelZone) return spread.max_skew;
  }
  return std::nullopt;
}

struct Models {
  Json integer;  // whole nodes and pods, no placement rules
  Json spread;   // the same with the zone spreads
  size_t zones = 0;
  size_t workloads = 0;
  size_t spread_workloads = 0;
};

// The end state as scripts/cost_optimum.py reads it. The kept nodes are bins of their own, free,
// with what must stay on them taken out of their room (DaemonSet pods, and pods without a zone
// spread: the system node group's, pinned there); every other pod is placed anew, grouped by
// workload and size; the NodePools' types are offered in each of those zones at that zone's
// price, with room kept for their DaemonSet pods.
Models BuildModels(const controllers::ClusterCache& cluster, cloud::CloudProvider& cloud,
                   double seconds) {
  std::map<std::string, api::ResourceList, std::less<>> kept_room;
  std::map<std::string, std::string, std::less<>> kept_zone;
  // kube-scheduler's domains of a zone spread: the zones that have nodes. The references stay in
  // them, as a fleet in other zones would spread the pods over more domains than this one does.
  std::set<std::string, std::less<>> zones;
  for (const auto& node : cluster.decoded_nodes().All()) {
    if (!node->metadata.deletion_timestamp.empty()) continue;
    zones.emplace(api::LabelValue(node->metadata.labels, api::kLabelZone));
    if (node->metadata.labels.contains(std::string(api::kLabelNodePool))) continue;
    kept_room[node->metadata.name] = node->status.allocatable;
    kept_zone[node->metadata.name] = api::LabelValue(node->metadata.labels, api::kLabelZone);
  }
  struct Group {
    int64_t cpu_milli = 0;
    double memory_mib = 0;
    std::optional<int32_t> skew;
    int count = 0;
  };
  std::map<std::tuple<std::string, std::string, int64_t, int64_t>, Group> groups;
  for (const auto& pod : cluster.decoded_pods().All()) {
    if (pod->spec.node_name.empty() || api::IsTerminal(*pod)) continue;
    const api::ResourceList requests = api::EffectiveRequests(pod->spec);
    const auto kept = kept_room.find(pod->spec.node_name);
    const std::optional<int32_t> skew = ZoneSkew(*pod);
    if (api::IsDaemonSetPod(*pod) || (kept != kept_room.end() && !skew)) {
      if (kept != kept_room.end()) kept->second -= requests;
      continue;
    }
    const api::OwnerReference* owner = api::ControllerOf(pod->metadata);
    Group& group =
        groups[{pod->metadata.namespace_, owner != nullptr ? owner->name : pod->metadata.name,
                requests.cpu().milli(), requests.memory().units_ceil()}];
    group.cpu_milli = requests.cpu().milli();
    group.memory_mib = requests.memory().as_double() / kMiB;
    group.skew = skew;
    ++group.count;
  }

  Json types = Json::array();
  for (const auto& [name, room] : kept_room) {
    types.push_back({{"cpu", static_cast<double>(room.cpu().milli())},
                     {"memory", std::floor(room.memory().as_double() / kMiB)},
                     {"pods", room.pods().as_double()},
                     {"price", 0.0},
                     {"count", 1},
                     {"zone", kept_zone[name]}});
  }
  const std::vector<api::Workload> daemon_sets = controllers::DecodeDaemonSets(cluster);
  std::vector<const api::PodTemplate*> templates;
  templates.reserve(daemon_sets.size());
  for (const api::Workload& daemon_set : daemon_sets) templates.push_back(&daemon_set.template_);
  cluster.node_pools().ForEach([&](const kube::Object& object) {
    const std::optional<api::NodePool> node_pool = controllers::DecodeNodePool(object);
    if (!node_pool) return;
    const auto offered = cloud.GetInstanceTypes(*node_pool);
    if (!offered.ok()) return;
    const api::ResourceList overhead = provisioning::DaemonSetsOn(*node_pool, templates).requests;
    std::vector<const cloud::InstanceType*> pointers;
    for (const cloud::InstanceType& type : **offered) pointers.push_back(&type);
    for (const std::string& zone : zones) {
      const std::vector<provisioning::FleetType> fleet =
          ZoneFleetTypes(*node_pool, pointers, zone, overhead);
      for (const provisioning::FleetType& type : fleet) {
        types.push_back({{"cpu", std::floor(type.cpu * 1000)},
                         {"memory", std::floor(type.memory * 1024)},
                         {"pods", type.pods},
                         {"price", type.price},
                         {"count", nullptr},
                         {"zone", zone}});
      }
    }
  });

  Models models;
  models.zones = zones.size();
  models.workloads = groups.size();
  Json plain = Json::array();
  Json spread = Json::array();
  for (const auto& [key, group] : groups) {
    Json shape = {{"cpu", group.cpu_milli},
                  {"memory", group.memory_mib},
                  {"pods", 1},
                  {"count", group.count}};
    plain.push_back(shape);
    if (group.skew) {
      shape["maxSkew"] = *group.skew;
      ++models.spread_workloads;
    }
    spread.push_back(std::move(shape));
  }
  models.integer = {{"name", "integer"}, {"seconds", seconds}, {"types", types}, {"shapes", plain}};
  models.spread = {{"name", "spread"}, {"seconds", seconds}, {"types", types}, {"shapes", spread}};
  return models;
}

Json OrNull(const Json& value, double add) {
  return value.is_number() ? Json(value.get<double>() + add) : Json(nullptr);
}

}  // namespace

int RunEndState(const EndStateArgs& args) {
  simulate::SimulationInput input;
  input.scenario = "the built-in migration scenario";
  input.seed = args.seed;
  input.spot_to_spot_consolidation = args.spot_to_spot;
  std::vector<std::string> errors;
  simulate::AddManifests(cli::BuiltinScenarioManifests(), "<built-in scenario>", input, errors);
  Result<simulate::Timeline> timeline =
      simulate::ParseTimeline(cli::BuiltinScenarioTimeline(), "<built-in timeline>");
  Result<Duration> duration = Duration::Parse(args.duration, /*allow_never=*/false);
  auto catalog = aws::LoadCatalog("aws", aws::AwsCatalogOptions{});
  if (!errors.empty() || !timeline.ok() || !duration.ok() || !catalog.ok()) {
    std::cerr << "error: the built-in scenario, the duration or the catalog did not load\n";
    return 1;
  }
  input.timeline = std::move(*timeline);
  input.duration = duration->value();
  input.catalog = std::move(*catalog);
  Models models;
  input.at_end = [&](const controllers::ClusterCache& cluster, cloud::CloudProvider& cloud) {
    models = BuildModels(cluster, cloud, args.optimum_seconds);
  };
  const auto started = std::chrono::steady_clock::now();
  Result<simulate::SimulationResult> result = simulate::Simulate(std::move(input));
  const double simulation_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!result.ok()) {
    std::cerr << "error: " << result.error().message << '\n';
    return 1;
  }
  auto solved = SolveOptimum(Json::array({models.integer, models.spread}));
  if (!solved.ok()) {
    std::cerr << "error: " << solved.error().message << '\n';
    return 1;
  }
  const simulate::ClusterFigures& after = result->after;
  const double kept = after.kept_price_per_hour;
  const Json& integer = (*solved)["integer"];
  const Json& spread = (*solved)["spread"];
  nlohmann::ordered_json out;
  out["scenario"] = "built-in";
  out["seed"] = args.seed;
  out["duration"] = args.duration;
  out["nodes"] = after.nodes;
  out["pricePerHour"] = after.price_per_hour;
  out["keptNodesPricePerHour"] = kept;
  out["lowerBoundWithKeptNodesPricePerHour"] = after.kept_lower_bound_price_per_hour;
  for (const auto& [prefix, answer] : {std::pair{"integer", &integer}, {"spread", &spread}}) {
    out[fmt::format("{}BoundPricePerHour", prefix)] = OrNull((*answer)["bound"], kept);
    out[fmt::format("{}OptimumPricePerHour", prefix)] = OrNull((*answer)["optimum"], kept);
    out[fmt::format("{}FoundPricePerHour", prefix)] = OrNull((*answer)["found"], kept);
  }
  out["zones"] = models.zones;
  out["workloads"] = models.workloads;
  out["spreadWorkloads"] = models.spread_workloads;
  out["ratioToLowerBound"] = after.kept_lower_bound_price_per_hour > 0
                                 ? after.price_per_hour / after.kept_lower_bound_price_per_hour
                                 : 0.0;
  // The fleet against the spread-keeping optimum lies between these two: the solver's bound is
  // at most the optimum, the best real fleet it found at least.
  for (const char* reference : {"Bound", "Found"}) {
    const Json price = out[fmt::format("spread{}PricePerHour", reference)];
    out[fmt::format("ratioToSpread{}", reference)] =
        price.is_number() && price.get<double>() > 0 ? after.price_per_hour / price.get<double>()
                                                     : 0.0;
  }
  out["simulationSeconds"] = simulation_seconds;
  out["solverSeconds"] = integer.value("seconds", 0.0) + spread.value("seconds", 0.0);
  std::cout << out.dump() << '\n';
  // The fleet is a real packing of these pods: a bound above it means the model is wrong.
  const Json integer_bound = out["integerBoundPricePerHour"];
  if (!integer_bound.is_number() || integer_bound.get<double>() > after.price_per_hour + 1e-6) {
    std::cerr << "error: the integer bound is not below the fleet's $/h: the model is wrong\n";
    return 1;
  }
  return 0;
}

}  // namespace karpenter::bench
