#include "consolidation.h"

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string_view>

#include "api/labels.h"
#include "api/manifest.h"
#include "cli/builtin_example.h"
#include "cloud/catalog.h"
#include "disruption/budgets.h"
#include "disruption/methods.h"
#include "disruption/simulation.h"

namespace karpenter::bench {
namespace {

// Node types of the seed NodePool (instance-category c, m, r; generation > 2) a cluster of
// general-purpose workloads typically ends up with.
constexpr std::array<std::string_view, 7> kNodeTypes = {
    "m5.large", "m5.xlarge", "m5.2xlarge", "c5.xlarge", "c5.2xlarge", "r5.large", "r5.xlarge"};
constexpr std::array<std::string_view, 3> kZones = {"us-east-1a", "us-east-1b", "us-east-1c"};

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Everything the generated cluster owns; the disruption::Cluster points into it.
struct GeneratedCluster {
  std::vector<cloud::InstanceType> catalog;
  api::NodePool node_pool;
  std::vector<api::Pod> pods;
  disruption::Cluster cluster;
};

Result<std::unique_ptr<GeneratedCluster>> Generate(const ConsolidationArgs& args) {
  auto out = std::make_unique<GeneratedCluster>();
  Result<std::vector<cloud::InstanceType>> catalog =
      cloud::LoadCatalog(args.catalog, cloud::AwsCatalogOptions{});
  if (!catalog.ok()) return catalog.error();
  out->catalog = std::move(*catalog);
  api::DecodeOutcome pools = api::DecodeManifest(cli::BuiltinPlanExample(), "<built-in>");
  if (!pools.errors.empty() || pools.manifest.node_pools.empty()) {
    return Error("the built-in NodePool does not decode");
  }
  out->node_pool = pools.manifest.node_pools.front();
  out->node_pool.spec.limited_resources.clear();
  if (!args.budget.empty()) out->node_pool.spec.disruption.budgets = {{args.budget, {}, "", {}}};

  std::vector<const cloud::InstanceType*> node_types;
  for (std::string_view name : kNodeTypes) {
    const auto it = std::find_if(out->catalog.begin(), out->catalog.end(),
                                 [&](const cloud::InstanceType& t) { return t.name == name; });
    if (it != out->catalog.end()) node_types.push_back(&*it);
  }
  if (node_types.empty()) return Error("the catalog has none of the generated node types");

  std::mt19937_64 random(args.seed);
  const size_t nodes = static_cast<size_t>(std::max(1, args.nodes));
  const size_t per_node = static_cast<size_t>(std::max(0, args.pods_per_node));
  out->pods.reserve(nodes * per_node);
  disruption::Cluster& cluster = out->cluster;
  scheduling::NodePoolOffer offer;
  offer.node_pool = &out->node_pool;
  for (const cloud::InstanceType& type : out->catalog) offer.instance_types.push_back(&type);
  cluster.capacity.node_pools.push_back(std::move(offer));
  std::vector<size_t> first_pod(nodes);
  for (size_t n = 0; n < nodes; ++n) {
    const cloud::InstanceType& type = *node_types[random() % node_types.size()];
    const std::string_view zone = kZones[n % kZones.size()];
    const bool spot = random() % 10 < 3;
    const std::string_view capacity_type =
        spot ? api::kCapacityTypeSpot : api::kCapacityTypeOnDemand;
    scheduling::ExistingNode node;
    node.name = "node-" + std::to_string(n);
    node.labels = type.requirements.SingleValueLabels();
    node.labels[std::string(api::kLabelZone)] = zone;
    node.labels[std::string(api::kLabelCapacityType)] = capacity_type;
    node.labels[std::string(api::kLabelNodePool)] = out->node_pool.metadata.name;
    node.labels[std::string(api::kLabelHostname)] = node.name;
    node.allocatable = type.Allocatable();
    // Pods of varied sizes that request about `utilization` of the node in all.
    const double cpu_milli = node.allocatable.cpu().as_double() * 1000 * args.utilization;
    const double memory = node.allocatable.memory().as_double() * args.utilization;
    first_pod[n] = out->pods.size();
    for (size_t p = 0; p < per_node; ++p) {
      const double share =
          (0.5 + static_cast<double>(random() % 1000) / 1000.0) / static_cast<double>(per_node);
      api::Pod pod;
      pod.metadata.name = node.name + "-pod-" + std::to_string(p);
      pod.metadata.namespace_ = "default";
      pod.metadata.uid = pod.metadata.name;
      pod.metadata.labels = {{"app", "app-" + std::to_string(random() % 50)}};
      pod.spec.node_name = node.name;
      api::Container container;
      container.name = "app";
      container.requests.Set(api::kResourceCpu, Quantity::FromMilli(std::max<int64_t>(
                                                    10, static_cast<int64_t>(cpu_milli * share))));
      container.requests.Set(api::kResourceMemory,
                             Quantity::FromUnits(static_cast<int64_t>(memory * share)));
      pod.spec.containers.push_back(std::move(container));
      pod.status.phase = "Running";
      out->pods.push_back(std::move(pod));
    }
    disruption::Candidate candidate;
    candidate.capacity_index = n;
    candidate.node = node.name;
    candidate.node_claim = node.name;
    candidate.node_pool = &out->node_pool;
    candidate.instance_type = type.name;
    candidate.capacity_type = capacity_type;
    candidate.zone = zone;
    for (const cloud::Offering& offering : type.offerings) {
      if (offering.zone == zone && offering.capacity_type == capacity_type) {
        candidate.price_per_hour = offering.price;
      }
    }
    candidate.disruption_cost = static_cast<double>(per_node);
    candidate.consolidatable = true;
    cluster.capacity.existing_nodes.push_back(std::move(node));
    cluster.candidates.push_back(std::move(candidate));
  }
  // Pointers into the pods only once the vector no longer grows.
  for (size_t n = 0; n < nodes; ++n) {
    for (size_t p = 0; p < per_node; ++p) {
      const api::Pod* pod = &out->pods[first_pod[n] + p];
      cluster.capacity.existing_nodes[n].pods.push_back(pod);
      cluster.candidates[n].pods.push_back(pod);
    }
  }
  cluster.accepts_pods.assign(nodes, true);
  for (api::DisruptionReason reason :
       {api::DisruptionReason::kUnderutilized, api::DisruptionReason::kEmpty,
        api::DisruptionReason::kDrifted}) {
    Result<int> remaining = disruption::RemainingDisruptions(
        out->node_pool, reason, std::chrono::system_clock::now(), static_cast<int>(nodes), 0);
    if (!remaining.ok()) return remaining.error();
    cluster.budgets[out->node_pool.metadata.name][static_cast<size_t>(reason)] = *remaining;
  }
  return out;
}

}  // namespace

int RunConsolidation(const ConsolidationArgs& args) {
  Result<std::unique_ptr<GeneratedCluster>> generated = Generate(args);
  if (!generated.ok()) {
    std::cerr << "error: " << generated.error().message << '\n';
    return 1;
  }
  const disruption::Cluster& cluster = (*generated)->cluster;
  const disruption::Options options;
  const auto start = std::chrono::steady_clock::now();
  const std::optional<disruption::Command> command = disruption::ComputeCommand(cluster, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::optional<disruption::Command> single =
      disruption::SingleNodeConsolidation(cluster, options);

  nlohmann::ordered_json out;
  out["nodes"] = cluster.candidates.size();
  out["pods"] = (*generated)->pods.size();
  out["seconds"] = seconds;
  out["commands"] = command ? 1 : 0;
  out["nodesRemoved"] = command ? command->candidates.size() : 0;
  out["savingsPerHour"] = command ? command->savings_per_hour : 0.0;
  out["peakRssMb"] = PeakRssMb();
  out["method"] = command ? std::string(disruption::MethodName(command->method)) : "";
  out["replacements"] = command ? command->replacements.size() : 0;
  out["singleNodeSavingsPerHour"] = single ? single->savings_per_hour : 0.0;
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace karpenter::bench
