#include "simulate.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "api/encode.h"
#include "aws/catalog/load_catalog.h"
#include "cli/builtin_example.h"
#include "common/document.h"
#include "common/duration.h"
#include "peak_rss.h"
#include "simulate/simulation.h"

namespace karpenter::bench {
namespace {

using nlohmann::json;

constexpr int kNodesPerGroup = 500;
constexpr int kReplicas = 100;
constexpr size_t kDeploymentsPerNamespace = 10;
constexpr std::string_view kInstanceType = "m5.2xlarge";
constexpr std::array<std::string_view, 3> kZones = {"us-east-1a", "us-east-1b", "us-east-1c"};
// Requests cycle through these, so pods of a node differ in size.
constexpr std::array<std::string_view, 3> kCpu = {"400m", "600m", "800m"};
constexpr std::array<std::string_view, 3> kMemory = {"1Gi", "2Gi", "3Gi"};
// The burst: this many Deployments double at t=5m and return at t=35m.
constexpr size_t kBurstDeployments = 50;

json Container(size_t deployment) {
  return json::array({{{"name", "main"},
                       {"image", "app"},
                       {"resources",
                        {{"requests",
                          {{"cpu", kCpu[deployment % kCpu.size()]},
                           {"memory", kMemory[(deployment / kCpu.size()) % kMemory.size()]}}}}}}});
}

// The snapshot's objects: Nodes, Deployments with their PDBs, and their pods bound round-robin.
std::vector<json> Snapshot(const SimulateArgs& args, const cloud::InstanceType& type) {
  std::vector<json> objects;
  objects.reserve(static_cast<size_t>(args.nodes + args.pods) + 2 * args.pods / kReplicas + 2);
  const json allocatable = api::Encode(type.Allocatable());
  std::vector<std::string> names;
  for (int i = 0; i < args.nodes; ++i) {
    const std::string name = fmt::format("ip-10-1-{}-{}.ec2.internal", i / 250, i % 250);
    const std::string_view zone = kZones[static_cast<size_t>(i) % kZones.size()];
    objects.push_back(
        {{"apiVersion", "v1"},
         {"kind", "Node"},
         {"metadata",
          {{"name", name},
           {"labels",
            {{"eks.amazonaws.com/nodegroup", fmt::format("ng-{}", i / kNodesPerGroup)},
             {"eks.amazonaws.com/capacityType", "ON_DEMAND"},
             {"node.kubernetes.io/instance-type", kInstanceType},
             {"topology.kubernetes.io/zone", zone},
             {"kubernetes.io/arch", "amd64"},
             {"kubernetes.io/os", "linux"},
             {"kubernetes.io/hostname", name}}}}},
         {"spec", {{"providerID", fmt::format("aws:///{}/i-{:017x}", zone, i)}}},
         {"status",
          {{"allocatable", allocatable},
           {"capacity", allocatable},
           {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
    names.push_back(name);
  }
  int placed = 0;
  for (size_t d = 0; placed < args.pods; ++d) {
    const int replicas = std::min(kReplicas, args.pods - placed);
    const std::string name = fmt::format("app-{}", d);
    const std::string ns = fmt::format("team-{}", d / kDeploymentsPerNamespace);
    const std::string hash = fmt::format("h{:08x}", d);
    const std::string replica_set = fmt::format("{}-{}", name, hash);
    const json labels = {{"app", name}};
    objects.push_back(
        {{"apiVersion", "apps/v1"},
         {"kind", "Deployment"},
         {"metadata", {{"name", name}, {"namespace", ns}}},
         {"spec",
          {{"replicas", replicas},
           {"selector", {{"matchLabels", labels}}},
           {"template",
            {{"metadata", {{"labels", labels}}}, {"spec", {{"containers", Container(d)}}}}}}}});
    objects.push_back(
        {{"apiVersion", "policy/v1"},
         {"kind", "PodDisruptionBudget"},
         {"metadata", {{"name", name}, {"namespace", ns}}},
         {"spec", {{"maxUnavailable", "10%"}, {"selector", {{"matchLabels", labels}}}}}});
    for (int r = 0; r < replicas; ++r, ++placed) {
      json pod_labels = labels;
      pod_labels["pod-template-hash"] = hash;
      objects.push_back(
          {{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata",
            {{"name", fmt::format("{}-{}-{}", name, hash, r)},
             {"namespace", ns},
             {"labels", std::move(pod_labels)},
             {"ownerReferences", json::array({{{"apiVersion", "apps/v1"},
                                               {"kind", "ReplicaSet"},
                                               {"name", replica_set},
                                               {"uid", name},
                                               {"controller", true}}})}}},
           {"spec",
            {{"nodeName", names[static_cast<size_t>(placed) % names.size()]},
             {"containers", Container(d)}}},
           {"status",
            {{"phase", "Running"},
             {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
    }
  }
  return objects;
}

}  // namespace

int RunSimulate(const SimulateArgs& args) {
  if (args.nodes < 1 || args.pods < 0) {
    std::cerr << "error: --nodes must be at least 1 and --pods not negative\n";
    return 1;
  }
  Result<Duration> duration = Duration::Parse(args.duration, /*allow_never=*/false);
  if (!duration.ok() || duration->value().count() <= 0) {
    std::cerr << "error: --duration: \"" << args.duration << "\" is not a positive duration\n";
    return 1;
  }
  Result<std::vector<cloud::InstanceType>> catalog = aws::LoadCatalog("aws");
  if (!catalog.ok()) {
    std::cerr << "error: " << catalog.error().message << '\n';
    return 1;
  }
  const auto type =
      std::find_if(catalog->begin(), catalog->end(),
                   [](const cloud::InstanceType& t) { return t.name == kInstanceType; });
  simulate::SimulationInput input;
  input.scenario = "karpenter-bench simulate";
  input.seed = args.seed;
  input.duration = duration->value();
  input.objects = Snapshot(args, *type);
  Result<std::vector<Document>> seed = ParseDocuments(cli::SeedNodePoolManifests(), "<seed>");
  if (!seed.ok()) {
    std::cerr << "error: " << seed.error().message << '\n';
    return 1;
  }
  for (Document& document : *seed) {
    // The seed's 1000-vCPU limit would leave most of a cluster this size pending: the benchmark
    // measures the simulation, not the limit.
    if (document.value.value("kind", "") == "NodePool") {
      document.value["spec"]["limits"]["cpu"] = args.nodes * 100;
    }
    input.objects.push_back(std::move(document.value));
  }
  const int retired = std::min(args.nodes, kNodesPerGroup);
  input.timeline.actions.push_back(
      {std::chrono::minutes(1), simulate::ScaleNodeGroup{"ng-0", 0, 25}});
  const size_t deployments = (static_cast<size_t>(args.pods) + kReplicas - 1) / kReplicas;
  for (size_t d = 0; d < std::min(deployments, kBurstDeployments); ++d) {
    const std::string name = fmt::format("app-{}", d);
    const std::string ns = fmt::format("team-{}", d / kDeploymentsPerNamespace);
    input.timeline.actions.push_back(
        {std::chrono::minutes(5), simulate::ScaleWorkload{"Deployment", ns, name, 2 * kReplicas}});
    input.timeline.actions.push_back(
        {std::chrono::minutes(35), simulate::ScaleWorkload{"Deployment", ns, name, kReplicas}});
  }
  std::stable_sort(
      input.timeline.actions.begin(), input.timeline.actions.end(),
      [](const simulate::Action& a, const simulate::Action& b) { return a.at < b.at; });
  input.catalog = std::move(*catalog);

  const auto start = std::chrono::steady_clock::now();
  Result<simulate::SimulationResult> result = simulate::Simulate(std::move(input));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok()) {
    std::cerr << "error: " << result.error().message << '\n';
    return 1;
  }
  size_t launched = 0;
  for (const simulate::TimelineEvent& event : result->timeline) {
    if (event.event == "Launched") ++launched;
  }
  nlohmann::ordered_json out;
  out["nodes"] = args.nodes;
  out["pods"] = args.pods;
  out["virtualSeconds"] = result->virtual_seconds;
  out["seconds"] = seconds;
  out["peakRssMb"] = PeakRssMb();
  out["nodesRetired"] = retired;
  out["nodesAfter"] = result->after.nodes;
  out["pricePerHourAfter"] = result->after.price_per_hour;
  out["lowerBoundPricePerHourAfter"] = result->after.lower_bound_price_per_hour;
  out["launched"] = launched;
  out["decisions"] = result->decisions.size();
  out["podsDisrupted"] = result->pods_disrupted;
  out["pdbViolations"] = result->pdb_violations;
  out["unschedulablePods"] = result->unschedulable_pods;
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace karpenter::bench
