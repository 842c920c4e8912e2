#include "policies.h"

#include <fmt/format.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "aws/catalog/load_catalog.h"
#include "manifests.h"
#include "simulate/inputs.h"
#include "simulate/simulation.h"

namespace karpenter::bench {
namespace {

using json = nlohmann::ordered_json;

struct Policy {
  std::string name;
  std::string yaml;  // spec.disruption's consolidation fields
};

std::vector<Policy> Policies() {
  return {{"WhenEmptyOrUnderutilized", "consolidationPolicy: WhenEmptyOrUnderutilized"},
          {"Balanced k=2", "consolidationPolicy: Balanced"},
          {"Balanced k=3", "consolidationPolicy: Balanced, consolidationThreshold: 3"},
          {"WhenEmpty", "consolidationPolicy: WhenEmpty"}};
}

struct Workload {
  std::string deployments;  // YAML
  std::string timeline;     // YAML
};

// Deployments of 250m to 2 CPUs at 0.5 to 4 GiB a CPU, 5 to 40 replicas; every ten minutes a
// third of them go to between a third and 1.2 times their first size.
Workload Generate(uint64_t seed, const PoliciesArgs& args) {
  constexpr int kMilliCpu[] = {250, 500, 750, 1000, 1500, 2000};
  constexpr int kMiPerCpu[] = {512, 1024, 2048, 4096};
  std::mt19937_64 random(seed);
  Workload out;
  std::vector<int> replicas;
  for (int d = 0; d < args.deployments; ++d) {
    const int cpu = kMilliCpu[random() % std::size(kMilliCpu)];
    const int memory = cpu * kMiPerCpu[random() % std::size(kMiPerCpu)] / 1000;
    replicas.push_back(5 + static_cast<int>(random() % 36));
    out.deployments += DeploymentYaml(fmt::format("app-{}", d), "policies", replicas.back(),
                                      fmt::format("{}m", cpu), fmt::format("{}Mi", memory));
  }
  out.timeline = "actions:\n";
  for (int minute = 10; minute < args.duration_minutes; minute += 10) {
    for (int d = 0; d < args.deployments; ++d) {
      if (random() % 3 != 0) continue;
      const int scaled = std::max(1, replicas[d] * (33 + static_cast<int>(random() % 88)) / 100);
      out.timeline += fmt::format(
          "  - {{at: {}m, scale: {{kind: Deployment, namespace: policies, name: app-{}, "
          "replicas: {}}}}}\n",
          minute, d, scaled);
    }
  }
  return out;
}

std::string Cluster(const Policy& policy) {
  return ClusterYaml("policies", policy.yaml + ", consolidateAfter: 1m");
}

// The mean of the fleet's price over the run, each sample held until the next.
double MeanPrice(const simulate::SimulationResult& result) {
  double area = 0;
  for (size_t i = 0; i < result.samples.size(); ++i) {
    const double until =
        i + 1 < result.samples.size() ? result.samples[i + 1].t : result.virtual_seconds;
    area += result.samples[i].price_per_hour * (until - result.samples[i].t);
  }
  return result.virtual_seconds > 0 ? area / result.virtual_seconds : 0;
}

int Fail(const std::string& message) {
  std::cerr << "karpenter-bench policies: " << message << '\n';
  return 1;
}

}  // namespace

int RunPolicies(const PoliciesArgs& args) {
  if (args.deployments < 1 || args.duration_minutes < 10) {
    return Fail("--deployments must be positive and --duration at least 10 (minutes)");
  }
  Result<std::vector<cloud::InstanceType>> catalog =
      aws::LoadCatalog("aws", aws::AwsCatalogOptions{});
  if (!catalog.ok()) return Fail(catalog.error().message);
  json runs = json::array();
  std::map<std::string, json> summary;
  for (uint64_t seed : args.seeds) {
    const Workload workload = Generate(seed, args);
    for (const Policy& policy : Policies()) {
      simulate::SimulationInput input;
      input.scenario = fmt::format("policies seed {} ({})", seed, policy.name);
      std::vector<std::string> errors;
      simulate::AddManifests(Cluster(policy) + workload.deployments, input.scenario, input, errors);
      if (!errors.empty()) return Fail(errors.front());
      Result<simulate::Timeline> timeline = simulate::ParseTimeline(workload.timeline, "timeline");
      if (!timeline.ok()) return Fail(timeline.error().message);
      input.timeline = std::move(*timeline);
      input.catalog = *catalog;
      input.duration = std::chrono::minutes(args.duration_minutes);
      input.seed = seed;
      input.balanced_consolidation = true;
      Result<simulate::SimulationResult> result = simulate::Simulate(std::move(input));
      if (!result.ok()) return Fail(result.error().message);
      int consolidation = 0;
      int emptiness = 0;
      for (const simulate::Decision& decision : result->decisions) {
        if (decision.method == "emptiness") {
          ++emptiness;
        } else if (decision.method != "drift") {
          ++consolidation;
        }
      }
      const json run = {{"seed", seed},
                        {"policy", policy.name},
                        {"consolidationMoves", consolidation},
                        {"emptinessMoves", emptiness},
                        {"podsDisrupted", result->pods_disrupted},
                        {"nodesAfter", result->after.nodes},
                        {"pricePerHourAfter", result->after.price_per_hour},
                        {"meanPricePerHour", MeanPrice(*result)}};
      runs.push_back(run);
      json& total = summary[policy.name];
      if (total.is_null()) total = json::object();
      for (const char* key : {"consolidationMoves", "emptinessMoves", "podsDisrupted"}) {
        total[key] = total.value(key, 0) + run[key].get<int>();
      }
      total["meanPricePerHour"] =
          total.value("meanPricePerHour", 0.0) + run["meanPricePerHour"].get<double>();
    }
  }
  json out = {
      {"durationMinutes", args.duration_minutes}, {"runs", runs}, {"summary", json::array()}};
  for (const Policy& policy : Policies()) {
    json entry = summary.contains(policy.name) ? summary[policy.name] : json::object();
    entry["policy"] = policy.name;
    entry["meanPricePerHour"] = entry.value("meanPricePerHour", 0.0) / args.seeds.size();
    out["summary"].push_back(std::move(entry));
  }
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace karpenter::bench
