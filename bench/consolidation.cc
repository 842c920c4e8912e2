#include "consolidation.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string_view>

#include "api/encode.h"
#include "api/labels.h"
#include "api/manifest.h"
#include "aws/catalog/load_catalog.h"
#include "cli/builtin_example.h"
#include "cloud/sim/sim_cloud_provider.h"
#include "common/document.h"
#include "controllers/disruption_view.h"
#include "disruption/budgets.h"
#include "disruption/methods.h"
#include "disruption/simulation.h"
#include "kube/memory/memory_client.h"
#include "peak_rss.h"

namespace karpenter::bench {
namespace {

// Node types of the seed NodePool (instance-category c, m, r; generation > 2) a cluster of
// general-purpose workloads typically ends up with.
constexpr std::array<std::string_view, 7> kNodeTypes = {
    "m5.large", "m5.xlarge", "m5.2xlarge", "c5.xlarge", "c5.2xlarge", "r5.large", "r5.xlarge"};
constexpr std::array<std::string_view, 3> kZones = {"us-east-1a", "us-east-1b", "us-east-1c"};

// Everything the generated cluster owns; the disruption::Cluster points into it.
struct GeneratedCluster {
  std::vector<cloud::InstanceType> catalog;
  api::NodePool node_pool;
  std::vector<api::Pod> pods;
  disruption::Cluster cluster;
};

Result<std::unique_ptr<GeneratedCluster>> Generate(const ConsolidationArgs& args) {
  auto out = std::make_unique<GeneratedCluster>();
  ASSIGN_OR_RETURN(std::vector<cloud::InstanceType> catalog,
                   aws::LoadCatalog(args.catalog, aws::AwsCatalogOptions{}));
  out->catalog = std::move(catalog);
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
  provisioning::NodePoolOffer offer;
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
    provisioning::ExistingNode node;
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
    ASSIGN_OR_RETURN(int remaining, disruption::RemainingDisruptions(
                                        out->node_pool, reason, std::chrono::system_clock::now(),
                                        static_cast<int>(nodes), 0));
    cluster.budgets[out->node_pool.metadata.name][static_cast<size_t>(reason)] = remaining;
  }
  return out;
}

Status Store(kube::Client& client, const kube::Resource& resource, const kube::Object& object,
             const kube::Object& status = nullptr) {
  ASSIGN_OR_RETURN(kube::Object created, client.Create(resource, object, kube::WriteOptions{}));
  if (status.is_null()) return {};
  ASSIGN_OR_RETURN(
      kube::Object patched,
      client.Patch(resource, kube::Namespace(created), kube::Name(created), kube::PatchType::kMerge,
                   {{"status", status}}, kube::Subresource::kStatus));
  return {};
}

// The generated cluster as the API server would hold it: the seed's NodePool and EC2NodeClass,
// a Node and an initialized, consolidatable NodeClaim per node, and the pods bound to them.
Status StoreCluster(const GeneratedCluster& generated, const ConsolidationArgs& args,
                    kube::Client& client) {
  ASSIGN_OR_RETURN(std::vector<Document> documents,
                   ParseDocuments(cli::BuiltinPlanExample(), "<built-in>"));
  for (Document& document : documents) {
    const std::string kind = document.value.value("kind", "");
    if (kind == "NodePool") {
      document.value["spec"].erase("limits");
      if (!args.budget.empty()) {
        document.value["spec"]["disruption"]["budgets"] = {{{"nodes", args.budget}}};
      }
      if (Status s = Store(client, kube::resources::kNodePools, document.value); !s.ok()) return s;
    } else if (kind == "EC2NodeClass") {
      if (Status s = Store(client, kube::resources::kEC2NodeClasses, document.value); !s.ok()) {
        return s;
      }
    }
  }
  const kube::Object initialized = {{"type", "Initialized"},
                                    {"status", "True"},
                                    {"reason", "Initialized"},
                                    {"lastTransitionTime", "2026-01-01T00:00:00Z"}};
  const kube::Object consolidatable = {{"type", "Consolidatable"},
                                       {"status", "True"},
                                       {"reason", "Consolidatable"},
                                       {"lastTransitionTime", "2026-01-01T00:00:00Z"}};
  const disruption::Cluster& cluster = generated.cluster;
  for (size_t n = 0; n < cluster.candidates.size(); ++n) {
    const provisioning::ExistingNode& node = cluster.capacity.existing_nodes[n];
    const disruption::Candidate& candidate = cluster.candidates[n];
    const std::string provider_id = "sim:///" + candidate.zone + "/i-" + std::to_string(n);
    if (Status s = Store(client, kube::resources::kNodes,
                         {{"apiVersion", "v1"},
                          {"kind", "Node"},
                          {"metadata", {{"name", node.name}, {"labels", api::Encode(node.labels)}}},
                          {"spec", {{"providerID", provider_id}}}},
                         {{"allocatable", api::Encode(node.allocatable)},
                          {"capacity", api::Encode(node.allocatable)},
                          {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}});
        !s.ok()) {
      return s;
    }
    if (Status s = Store(
            client, kube::resources::kNodeClaims,
            {{"apiVersion", "karpenter.sh/v1"},
             {"kind", "NodeClaim"},
             {"metadata", {{"name", candidate.node_claim}, {"labels", api::Encode(node.labels)}}},
             {"spec",
              {{"requirements", kube::Object::array()},
               {"nodeClassRef",
                {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}},
            {{"providerID", provider_id},
             {"nodeName", node.name},
             {"conditions", {initialized, consolidatable}}});
        !s.ok()) {
      return s;
    }
    for (const api::Pod* pod : node.pods) {
      kube::Object containers = kube::Object::array();
      for (const api::Container& container : pod->spec.containers) {
        containers.push_back({{"name", container.name},
                              {"image", "registry.k8s.io/pause:3.10"},
                              {"resources", {{"requests", api::Encode(container.requests)}}}});
      }
      if (Status s = Store(client, kube::resources::kPods,
                           {{"apiVersion", "v1"},
                            {"kind", "Pod"},
                            {"metadata",
                             {{"name", pod->metadata.name},
                              {"namespace", pod->metadata.namespace_},
                              {"labels", api::Encode(pod->metadata.labels)}}},
                            {"spec", {{"nodeName", node.name}, {"containers", containers}}}},
                           {{"phase", "Running"}});
          !s.ok()) {
        return s;
      }
    }
  }
  return {};
}

}  // namespace

int RunConsolidation(const ConsolidationArgs& args) {
  Result<std::unique_ptr<GeneratedCluster>> generated = Generate(args);
  if (!generated.ok()) {
    std::cerr << "error: " << generated.error().message << '\n';
    return 1;
  }
  const disruption::Options options;
  // From informers: the same cluster stored in kube/memory and read back as the controller does.
  VirtualClock clock(std::chrono::system_clock::now());
  kube::memory::MemoryClient client(clock);
  std::unique_ptr<controllers::ClusterCache> informers;
  std::unique_ptr<cloud::SimCloudProvider> cloud;
  if (args.from_informers) {
    if (Status stored = StoreCluster(**generated, args, client); !stored.ok()) {
      std::cerr << "error: " << stored.error().message << '\n';
      return 1;
    }
    informers = std::make_unique<controllers::ClusterCache>(client);
    for (kube::Informer* informer : informers->all()) {
      if (Status synced = informer->Sync(); !synced.ok()) {
        std::cerr << "error: " << synced.error().message << '\n';
        return 1;
      }
    }
    cloud = std::make_unique<cloud::SimCloudProvider>((*generated)->catalog, clock, "us-east-1");
  }
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<controllers::DisruptionView> view;
  if (args.from_informers) {
    view = controllers::BuildDisruptionView(*informers, *cloud, Logger(), clock.Now());
  }
  const double view_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const disruption::Cluster& cluster = view ? view->cluster : (*generated)->cluster;
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
  if (view) out["viewSeconds"] = view_seconds;
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace karpenter::bench
