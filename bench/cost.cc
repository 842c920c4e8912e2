#include "cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "api/manifest.h"
#include "aws/catalog/load_catalog.h"
#include "cli/builtin_example.h"
#include "common/json.h"
#include "common/result.h"
#include "cost_optimum.h"
#include "provisioning/fractional_fleet.h"
#include "provisioning/scheduler.h"
#include "scheduling/requirements.h"

namespace karpenter::bench {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// An on-demand NodePool of c/m/r types of generation 5 or later for `arches` ("amd64" is the
// issue's second pool), or, with `family`, of that one family only.
std::string OnDemandPool(std::string_view name, std::string_view arches,
                         std::string_view family = "") {
  std::string requirements =
      family.empty()
          ? fmt::format(
                "        - {{key: kubernetes.io/arch, operator: In, values: [{}]}}\n"
                "        - {{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, "
                "m, r]}}\n"
                "        - {{key: karpenter.k8s.aws/instance-generation, operator: Gt, values: "
                "[\"4\"]}}\n",
                arches)
          : fmt::format(
                "        - {{key: karpenter.k8s.aws/instance-family, operator: In, values: "
                "[{}]}}\n",
                family);
  return fmt::format(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: {}}}
spec:
  template:
    spec:
      requirements:
        - {{key: kubernetes.io/os, operator: In, values: [linux]}}
        - {{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}}
{}      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
)",
                     name, requirements);
}

// Pods live in a deque: their addresses stay put as more are made.
class Pods {
 public:
  api::Pod& Add(const std::string& app, int64_t milli_cpu, int64_t memory_mib) {
    api::Pod& pod = pods_.emplace_back();
    pod.metadata.name = app + "-" + std::to_string(pods_.size());
    pod.metadata.namespace_ = "default";
    pod.metadata.uid = pod.metadata.name;
    pod.metadata.labels = {{"app", app}};
    api::Container container;
    container.name = "app";
    container.requests.Set(api::kResourceCpu, Quantity::FromMilli(milli_cpu));
    container.requests.Set(api::kResourceMemory, Quantity::FromUnits(memory_mib * 1024 * 1024));
    pod.spec.containers.push_back(std::move(container));
    pod.status.phase = "Pending";
    return pod;
  }
  // `replicas` pods of one Deployment-like app.
  void AddApp(const std::string& app, int replicas, int64_t milli_cpu, int64_t memory_mib) {
    for (int i = 0; i < replicas; ++i) Add(app, milli_cpu, memory_mib);
  }
  std::vector<const api::Pod*> Pointers() const {
    std::vector<const api::Pod*> out;
    for (const api::Pod& pod : pods_) out.push_back(&pod);
    return out;
  }

 private:
  std::deque<api::Pod> pods_;
};

// 5-20 Deployments of 5-60 replicas, requests 100m-4 CPU and 128 MiB-16 GiB drawn at random.
void AddRandomDeployments(Pods& pods, uint64_t seed, const std::string& prefix) {
  std::mt19937_64 rng(seed);
  const int deployments = 5 + static_cast<int>(rng() % 16);
  for (int d = 0; d < deployments; ++d) {
    const int replicas = 5 + static_cast<int>(rng() % 56);
    const int64_t cpu = 100 + static_cast<int64_t>(rng() % 3901);
    const int64_t memory = 128 + static_cast<int64_t>(rng() % (16 * 1024 - 127));
    pods.AddApp(prefix + std::to_string(d), replicas, cpu, memory);
  }
}

struct Mix {
  std::string name;
  std::string pool;  // YAML; empty: the seed's NodePool (the built-in plan example's)
  std::function<void(Pods&)> make;
  bool anti_affinity = false;
  int existing_nodes = 0;  // m6i.2xlarge nodes, each half full, before the pass
};

std::vector<Mix> Mixes(uint64_t seed) {
  std::vector<Mix> mixes;
  const std::string on_demand = OnDemandPool("on-demand", "amd64");
  auto add = [&](std::string name, std::string pool, std::function<void(Pods&)> make) {
    mixes.push_back({std::move(name), std::move(pool), std::move(make)});
  };
  add("cpu-heavy", on_demand, [](Pods& p) {
    p.AddApp("cpu-a", 120, 2000, 1024);
    p.AddApp("cpu-b", 100, 4000, 2048);
    p.AddApp("cpu-c", 80, 1000, 512);
  });
  add("memory-heavy", on_demand, [](Pods& p) {
    p.AddApp("mem-a", 120, 250, 8192);
    p.AddApp("mem-b", 100, 500, 16384);
    p.AddApp("mem-c", 80, 250, 4096);
  });
  add("balanced", on_demand, [](Pods& p) {
    p.AddApp("bal-a", 150, 1000, 4096);
    p.AddApp("bal-b", 150, 500, 2048);
    p.AddApp("bal-c", 100, 2000, 8192);
  });
  add("few-very-large", on_demand, [](Pods& p) {
    p.AddApp("huge-a", 6, 30000, int64_t{120} * 1024);
    p.AddApp("huge-b", 6, 60000, int64_t{200} * 1024);
  });
  add("thousands-of-tiny", on_demand, [](Pods& p) { p.AddApp("tiny", 5000, 50, 64); });
  add("long-tail", on_demand, [=](Pods& p) {
    std::mt19937_64 rng(seed ^ 0x5eed);
    for (int i = 0; i < 1000; ++i) {
      // Most pods small, a few large: CPU 100m × 2^k with k geometric, memory 2-4 GiB per CPU.
      int k = 0;
      while (k < 6 && rng() % 3 == 0) ++k;
      const int64_t cpu = 100 << k;
      p.Add("tail-" + std::to_string(i % 7), cpu, cpu * (2 + static_cast<int64_t>(rng() % 3)));
    }
  });
  for (uint64_t s = 0; s < 4; ++s) {
    add("random-deployments-" + std::to_string(s + 1), on_demand,
        [=](Pods& p) { AddRandomDeployments(p, seed + s, "rd"); });
  }
  add("random-deployments-spot", "", [=](Pods& p) { AddRandomDeployments(p, seed + 10, "rs"); });
  add("zone-spread", on_demand, [](Pods& p) {
    for (const char* app : {"zs-a", "zs-b", "zs-c"}) {
      for (int i = 0; i < 100; ++i) {
        api::Pod& pod = p.Add(app, 750, 1536);
        api::TopologySpreadConstraint spread;
        spread.topology_key = std::string(api::kLabelZone);
        spread.label_selector = api::LabelSelector{{{"app", app}}, {}};
        pod.spec.topology_spread_constraints.push_back(std::move(spread));
      }
    }
  });
  mixes.push_back({"hostname-anti-affinity", on_demand,
                   [](Pods& p) {
                     for (int i = 0; i < 60; ++i) {
                       api::Pod& pod = p.Add("solo", 1500, 3072);
                       api::PodAffinityTerm term;
                       term.topology_key = std::string(api::kLabelHostname);
                       term.label_selector = api::LabelSelector{{{"app", "solo"}}, {}};
                       pod.spec.affinity.emplace();
                       pod.spec.affinity->pod_anti_affinity.emplace();
                       pod.spec.affinity->pod_anti_affinity->required.push_back(term);
                     }
                   },
                   true});
  add("two-architectures", OnDemandPool("two-arch", "amd64, arm64"),
      [=](Pods& p) { AddRandomDeployments(p, seed + 20, "ta"); });
  add("one-family", OnDemandPool("one-family", "", "m6i"),
      [=](Pods& p) { AddRandomDeployments(p, seed + 30, "of"); });
  mixes.push_back({"existing-nodes-half-full", on_demand,
                   [=](Pods& p) { AddRandomDeployments(p, seed + 40, "ex"); }, false, 20});
  add("ten-thousand-pods", on_demand, [=](Pods& p) {
    std::mt19937_64 rng(seed + 50);
    for (int d = 0; d < 100; ++d) {
      p.AddApp("tt" + std::to_string(d), 100, 100 + static_cast<int64_t>(rng() % 1900),
               128 + static_cast<int64_t>(rng() % 4000));
    }
  });
  return mixes;
}

// A mix as scripts/cost_optimum.py reads it: the pool's types (CPU in millicores, memory in MiB),
// the existing nodes' free room as a type that costs nothing, and the pods grouped by shape.
Json OptimumModel(const std::string& name, const std::vector<provisioning::FleetType>& types,
                  const std::vector<const api::Pod*>& pods, const provisioning::FleetType& existing,
                  int existing_nodes, double seconds) {
  Json out = {{"name", name}, {"seconds", seconds}};
  auto type = [](const provisioning::FleetType& c, Json count) {
    return Json{{"cpu", std::floor(c.cpu * 1000)},
                {"memory", std::floor(c.memory * 1024)},
                {"pods", c.pods},
                {"price", c.price},
                {"count", std::move(count)}};
  };
  out["types"] = Json::array();
  for (const provisioning::FleetType& c : types) out["types"].push_back(type(c, nullptr));
  if (existing_nodes > 0) out["types"].push_back(type(existing, existing_nodes));
  std::map<std::pair<int64_t, int64_t>, int> shapes;
  for (const api::Pod* pod : pods) {
    const api::ResourceList requests = api::EffectiveRequests(pod->spec);
    ++shapes[{requests.cpu().milli(), requests.memory().units_ceil()}];
  }
  out["shapes"] = Json::array();
  for (const auto& [shape, count] : shapes) {
    out["shapes"].push_back({{"cpu", shape.first},
                             {"memory", static_cast<double>(shape.second) / (1024 * 1024)},
                             {"pods", 1},
                             {"count", count}});
  }
  return out;
}

// Whether the optimum model says all there is about placing these pods: no zones, spreads or
// affinities to honour.
bool PlacementFree(const std::vector<const api::Pod*>& pods) {
  return std::all_of(pods.begin(), pods.end(), [](const api::Pod* pod) {
    return pod->spec.topology_spread_constraints.empty() && !pod->spec.affinity &&
           pod->spec.node_selector.empty();
  });
}

// The pods of each app when a zone spread is all that constrains them (each pod: one constraint,
// over zones, maxSkew 1, DoNotSchedule, selecting its own app); nullopt otherwise.
std::optional<std::map<std::string, std::vector<const api::Pod*>>> ZoneSpreadApps(
    const std::vector<const api::Pod*>& pods) {
  std::map<std::string, std::vector<const api::Pod*>> apps;
  for (const api::Pod* pod : pods) {
    const auto& spreads = pod->spec.topology_spread_constraints;
    const std::string app(api::LabelValue(pod->metadata.labels, "app"));
    if (spreads.size() != 1 || pod->spec.affinity || !pod->spec.node_selector.empty() ||
        spreads[0].topology_key != api::kLabelZone || spreads[0].max_skew != 1 ||
        spreads[0].when_unsatisfiable != api::UnsatisfiableConstraintAction::kDoNotSchedule ||
        !spreads[0].label_selector ||
        spreads[0].label_selector->match_labels != api::Labels{{"app", app}} ||
        !spreads[0].label_selector->match_expressions.empty()) {
      return std::nullopt;
    }
    apps[app].push_back(pod);
  }
  return apps;
}

// The zones a NodePool can launch into: those where one of its types has an offering it allows.
std::vector<std::string> PoolZones(const api::NodePool& pool,
                                   const std::vector<const cloud::InstanceType*>& types) {
  std::set<std::string> zones;
  const scheduling::Requirements requirements =
      scheduling::Requirements::FromNodeSelector(pool.spec.template_.spec.requirements);
  for (const cloud::InstanceType* type : types) {
    if (!type->requirements.Intersects(requirements)) continue;
    for (const cloud::Offering& offering : type->offerings) {
      if (offering.available &&
          requirements.Allows(api::kLabelCapacityType, offering.capacity_type) &&
          requirements.Allows(api::kLabelZone, offering.zone)) {
        zones.insert(offering.zone);
      }
    }
  }
  return {zones.begin(), zones.end()};
}

}  // namespace

int RunCost(const CostArgs& args) {
  const uint64_t seed = args.seed != 0 ? args.seed : std::random_device{}();
  auto catalog = aws::LoadCatalog("aws", aws::AwsCatalogOptions{});
  if (!catalog.ok()) {
    std::cerr << "error: " << catalog.error().message << '\n';
    return 1;
  }
  const cloud::InstanceType* existing_type = nullptr;
  for (const cloud::InstanceType& type : *catalog) {
    if (type.name == "m6i.2xlarge") existing_type = &type;
  }
  const std::string seed_pool = cli::BuiltinPlanExample();  // the seed's NodePool and more
  nlohmann::ordered_json mixes = nlohmann::ordered_json::array();
  Json models = Json::array();
  struct ZoneModels {
    std::vector<std::string> zones;
    bool even = false;  // every app divides evenly over the zones
  };
  std::map<std::string, ZoneModels> zone_models;  // mixes solved zone by zone
  for (const Mix& mix : Mixes(seed)) {
    api::DecodeOutcome decoded =
        api::DecodeManifest(mix.pool.empty() ? seed_pool : mix.pool, mix.name);
    if (!decoded.errors.empty() || decoded.manifest.node_pools.empty()) {
      std::cerr << "error: mix " << mix.name << ": no valid NodePool\n";
      return 1;
    }
    api::NodePool pool = decoded.manifest.node_pools.front();
    pool.spec.limited_resources.clear();  // the mixes measure packing, not a budget
    const scheduling::Requirements pool_requirements =
        scheduling::Requirements::FromNodeSelector(pool.spec.template_.spec.requirements);
    provisioning::NodePoolOffer offer;
    offer.node_pool = &pool;
    for (const cloud::InstanceType& type : *catalog) {
      if (type.requirements.Intersects(pool_requirements)) offer.instance_types.push_back(&type);
    }
    Pods pods;
    mix.make(pods);
    provisioning::SchedulerInput input;
    input.pods = pods.Pointers();
    input.node_pools.push_back(offer);
    // Existing nodes, each holding pods that request half its CPU and memory.
    Pods residents;
    provisioning::FleetType room;  // one existing node's free room
    if (mix.existing_nodes > 0 && existing_type != nullptr) {
      const api::ResourceList allocatable = existing_type->Allocatable();
      const int64_t half_cpu = allocatable.cpu().milli() / 2;
      const int64_t half_memory = allocatable.memory().units_ceil() / (int64_t{2} * 1024 * 1024);
      room = {static_cast<double>(allocatable.cpu().milli() - half_cpu) / 1000,
              (allocatable.memory().as_double() / kGiB) - static_cast<double>(half_memory) / 1024,
              allocatable.pods().as_double() - 1, 0};
      for (int n = 0; n < mix.existing_nodes; ++n) {
        provisioning::ExistingNode node;
        node.name = "existing-" + std::to_string(n);
        node.labels = {{std::string(api::kLabelInstanceType), existing_type->name},
                       {std::string(api::kLabelZone), "us-east-1" + std::string(1, 'a' + n % 3)},
                       {std::string(api::kLabelArch), "amd64"},
                       {std::string(api::kLabelOs), "linux"},
                       {std::string(api::kLabelHostname), "existing-" + std::to_string(n)}};
        node.allocatable = allocatable;
        node.pods.push_back(&residents.Add("resident", half_cpu, half_memory));
        input.existing_nodes.push_back(std::move(node));
      }
    }
    const auto started = std::chrono::steady_clock::now();
    const provisioning::SchedulerResult result = provisioning::Schedule(input);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    // The bound covers what the existing nodes' free room cannot.
    provisioning::FleetDemand demand;
    for (const api::Pod* pod : input.pods) {
      const api::ResourceList requests = api::EffectiveRequests(pod->spec);
      demand.cpu += requests.cpu().as_double();
      demand.memory += requests.memory().as_double() / kGiB;
      demand.pods += 1;
    }
    const double existing = mix.existing_nodes;
    demand = {std::max(0.0, demand.cpu - existing * room.cpu),
              std::max(0.0, demand.memory - existing * room.memory),
              std::max(0.0, demand.pods - existing * room.pods)};
    const std::vector<provisioning::FleetType> types =
        provisioning::NodePoolFleetTypes(pool, offer.instance_types);
    std::optional<double> bound;
    if (auto fleet = provisioning::CheapestFractionalFleet(types, demand)) bound = fleet->price;
    if (args.optimum && !mix.anti_affinity && PlacementFree(input.pods)) {
      models.push_back(OptimumModel(mix.name, types, input.pods, room, mix.existing_nodes,
                                    args.optimum_seconds));
    }
    // A zone spread: each zone gets at least floor(n / zones) of an app's n pods (maxSkew 1) on
    // nodes of its own, so the zones' optimums for those pods (on the types offered there) add
    // up to a lower bound — the optimum when the apps divide evenly and each zone's is realized.
    const auto spread_apps = ZoneSpreadApps(input.pods);
    if (args.optimum && spread_apps && mix.existing_nodes == 0) {
      const std::vector<std::string> zones = PoolZones(pool, offer.instance_types);
      bool even = true;
      for (const std::string& zone : zones) {
        std::vector<const api::Pod*> share;
        for (const auto& [app, app_pods] : *spread_apps) {
          const size_t each = app_pods.size() / zones.size();
          even = even && each * zones.size() == app_pods.size();
          share.insert(share.end(), app_pods.begin(),
                       app_pods.begin() + static_cast<std::ptrdiff_t>(each));
        }
        models.push_back(OptimumModel(mix.name + "@" + zone,
                                      ZoneFleetTypes(pool, offer.instance_types, zone), share, room,
                                      0, args.optimum_seconds));
      }
      zone_models[mix.name] = {zones, even};
    }
    // What a launch buys for each claim (its cheapest option), and how full that leaves the fleet.
    std::map<std::string, int> launched;
    api::ResourceList requested;
    api::ResourceList allocatable;
    for (const provisioning::PlannedNodeClaim& claim : result.node_claims) {
      if (claim.instance_types.empty()) continue;
      ++launched[claim.instance_types.front()->name];
      requested += claim.requests;
      allocatable += claim.instance_types.front()->Allocatable();
    }
    auto share = [&](Quantity used, Quantity of) {
      return of > Quantity() ? used.as_double() / of.as_double() : 0.0;
    };
    mixes.push_back(
        {{"name", mix.name},
         {"pool", pool.metadata.name},
         {"pricing", mix.pool.empty() ? "spot (the catalog's spot price model)" : "on-demand"},
         {"pods", input.pods.size()},
         {"nodes", result.node_claims.size()},
         {"unschedulable", result.unschedulable.size()},
         {"instanceTypes", launched},
         {"utilization",
          {{"cpu", share(requested.cpu(), allocatable.cpu())},
           {"memory", share(requested.memory(), allocatable.memory())},
           {"pods", share(requested.pods(), allocatable.pods())}}},
         {"pricePerHour", result.PricePerHour()},
         {"lowerBoundPricePerHour", bound ? nlohmann::ordered_json(*bound) : nullptr},
         {"integerBoundPricePerHour", nullptr},
         {"optimumPricePerHour", nullptr},
         {"ratio", 0},
         {"seconds", seconds},
         {"inTargets", input.pods.size() >= 100 && !mix.anti_affinity &&
                           result.unschedulable.empty() && bound && *bound > 0}});
  }
  if (args.optimum) {
    auto solved = SolveOptimum(models);
    if (!solved.ok()) {
      std::cerr << "error: " << solved.error().message << '\n';
      return 1;
    }
    for (nlohmann::ordered_json& mix : mixes) {
      const std::string name = mix["name"].get<std::string>();
      if (const auto zoned = zone_models.find(name); zoned != zone_models.end()) {
        double bound = 0;
        double optimum = 0;
        bool bounded = true;
        bool optimal = zoned->second.even;
        double seconds = 0;
        for (const std::string& zone : zoned->second.zones) {
          const auto answer = solved->find(fmt::format("{}@{}", name, zone));
          if (answer == solved->end() || !answer->second["bound"].is_number()) {
            bounded = false;
            break;
          }
          bound += answer->second["bound"].get<double>();
          seconds += answer->second.value("seconds", 0.0);
          optimal = optimal && answer->second["optimum"].is_number();
          if (optimal) optimum += answer->second["optimum"].get<double>();
        }
        if (bounded) {
          mix["integerBoundPricePerHour"] = bound;
          if (optimal) mix["optimumPricePerHour"] = optimum;
          mix["optimumSeconds"] = seconds;
          mix["optimumModel"] = fmt::format("per zone ({})", zoned->second.zones.size());
        }
        continue;
      }
      const auto found = solved->find(name);
      if (found == solved->end()) continue;
      const Json& answer = found->second;
      if (answer["bound"].is_number()) mix["integerBoundPricePerHour"] = answer["bound"];
      if (answer["optimum"].is_number()) mix["optimumPricePerHour"] = answer["optimum"];
      mix["optimumSeconds"] = answer["seconds"];
    }
  }
  double log_sum = 0;
  int in_targets = 0;
  double worst = 0;
  std::string worst_mix;
  for (nlohmann::ordered_json& mix : mixes) {
    // Against the optimum where it is known, else the tightest bound: each is at most the
    // optimum, so a ratio never flatters.
    double reference = 0;
    if (mix["optimumPricePerHour"].is_number()) {
      reference = mix["optimumPricePerHour"].get<double>();
    } else {
      for (const char* bound : {"lowerBoundPricePerHour", "integerBoundPricePerHour"}) {
        if (mix[bound].is_number()) reference = std::max(reference, mix[bound].get<double>());
      }
    }
    const double ratio = reference > 0 ? mix["pricePerHour"].get<double>() / reference : 0;
    mix["ratio"] = ratio;
    if (!mix["inTargets"].get<bool>()) continue;
    ++in_targets;
    log_sum += std::log(ratio);
    if (ratio > worst) {
      worst = ratio;
      worst_mix = mix["name"].get<std::string>();
    }
  }
  nlohmann::ordered_json out;
  out["seed"] = seed;
  out["mixes"] = std::move(mixes);
  out["summary"] = {{"mixes", out["mixes"].size()},
                    {"mixesInTargets", in_targets},
                    {"geometricMeanRatio", in_targets > 0 ? std::exp(log_sum / in_targets) : 0},
                    {"worstRatio", worst},
                    {"worstMix", worst_mix}};
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace karpenter::bench
