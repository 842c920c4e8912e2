#include "cli/plan_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "api/manifest.h"
#include "api/workload_pods.h"
#include "api/workloads.h"
#include "aws/catalog/load_catalog.h"
#include "cli/builtin_example.h"
#include "cli/command_line.h"
#include "provisioning/scheduler.h"

namespace karpenter::cli {
namespace {

using nlohmann::ordered_json;

// Everything one pass needs, owning what the scheduler input points into.
struct Cluster {
  api::Manifest manifest;
  std::vector<api::Pod> workload_pods;
  std::map<std::string, std::vector<cloud::InstanceType>> catalogs;  // by EC2NodeClass
  provisioning::SchedulerInput input;
  // Static NodePools (spec.replicas): not offered to pending pods; their nodes are planned from
  // their templates first (PlanStatic).
  std::vector<provisioning::NodePoolOffer> static_pools;
  // What PlanStatic planned, each in `input` as an in-flight node named by its index here.
  std::vector<provisioning::PlannedNodeClaim> static_claims;
};

std::string StaticNodeName(size_t index) { return fmt::format("static-nodeclaim-{}", index); }

// The nodes each static NodePool still needs (its replicas less its Nodes among the inputs),
// planned from its template and added to the input as in-flight capacity the pending pods may use.
void PlanStatic(Cluster& cluster, std::ostream& err) {
  for (const provisioning::NodePoolOffer& offer : cluster.static_pools) {
    const api::NodePool& pool = *offer.node_pool;
    int64_t existing = 0;
    for (const api::Node& node : cluster.manifest.nodes) {
      if (api::LabelValue(node.metadata.labels, api::kLabelNodePool) == pool.metadata.name) {
        ++existing;
      }
    }
    const int64_t wanted = *pool.spec.replicas - existing;
    if (wanted <= 0) continue;
    provisioning::SchedulerInput input;
    input.node_pools = {offer};
    input.node_pools.front().in_use.Set("nodes", Quantity::FromUnits(existing));
    input.daemon_sets = cluster.input.daemon_sets;
    std::string why;
    std::vector<provisioning::PlannedNodeClaim> planned = provisioning::PlanTemplateClaims(
        input, pool.metadata.name, static_cast<size_t>(wanted), why);
    if (std::cmp_less(planned.size(), wanted)) {
      err << fmt::format("warning: NodePool {}: {} of its {} replicas can be planned: {}\n",
                         pool.metadata.name, existing + std::ssize(planned), *pool.spec.replicas,
                         why);
    }
    for (provisioning::PlannedNodeClaim& claim : planned) {
      // It launches as its cheapest type, so that is the room pods find there.
      const cloud::InstanceType& type = *claim.instance_types.front();
      provisioning::ExistingNode node;
      node.name = StaticNodeName(cluster.static_claims.size());
      node.in_flight = true;
      node.requirements = claim.requirements;
      node.requirements.Add(
          scheduling::Requirement::In(std::string(api::kLabelInstanceType), {type.name}));
      node.labels = node.requirements.SingleValueLabels();
      node.taints = pool.spec.template_.spec.taints;
      node.allocatable = type.Allocatable();
      cluster.input.existing_nodes.push_back(std::move(node));
      cluster.static_claims.push_back(std::move(claim));
    }
  }
}

// Moves the pods placed on the static NodePools' planned nodes into their claims, which lead the
// result's new NodeClaims.
void AddStaticClaims(Cluster& cluster, provisioning::SchedulerResult& result) {
  for (size_t i = 0; i < cluster.static_claims.size(); ++i) {
    const std::string name = StaticNodeName(i);
    const auto placed =
        std::find_if(result.existing.begin(), result.existing.end(),
                     [&](const provisioning::ExistingPlacement& e) { return e.node == name; });
    if (placed == result.existing.end()) continue;
    provisioning::PlannedNodeClaim& claim = cluster.static_claims[i];
    claim.pods = placed->pods;
    for (const api::Pod* pod : claim.pods) claim.requests += api::SchedulingRequests(pod->spec);
    result.existing.erase(placed);
  }
  result.node_claims.insert(result.node_claims.begin(), cluster.static_claims.begin(),
                            cluster.static_claims.end());
}

Status BuildInput(const PlanOptions& options, Cluster& cluster, std::ostream& err) {
  const api::Manifest& m = cluster.manifest;
  // The plan has no feature gates to tell whether the controller would read these.
  if (!m.node_overlays.empty()) {
    err << fmt::format(
        "warning: {} NodeOverlay{} not applied: karpenter plan plans at the catalog's prices and "
        "capacity; `karpenter simulate --feature-gates NodeOverlay=true` forecasts with them\n",
        m.node_overlays.size(), m.node_overlays.size() == 1 ? "" : "s");
  }
  if (!m.capacity_buffers.empty()) {
    err << fmt::format(
        "warning: {} CapacityBuffer{} not planned for: karpenter plan plans the pods only; "
        "`karpenter simulate --feature-gates CapacityBuffer=true` forecasts their room and cost\n",
        m.capacity_buffers.size(), m.capacity_buffers.size() == 1 ? "" : "s");
  }
  int64_t pods = static_cast<int64_t>(m.pods.size());
  for (const auto& workload : m.workloads) {
    if (workload.kind != api::WorkloadKind::kDaemonSet) pods += workload.replicas;
  }
  if (pods > api::kMaxModelledPods) {
    return Error(
        fmt::format("the inputs have {} pods (with their workloads' replicas): more than "
                    "karpenter plan models (at most {})",
                    pods, api::kMaxModelledPods));
  }
  for (const auto& workload : m.workloads) {
    if (workload.kind == api::WorkloadKind::kDaemonSet) {
      cluster.input.daemon_sets.push_back(&workload.template_);
      continue;
    }
    for (auto& pod : api::ExpandWorkload(workload)) cluster.workload_pods.push_back(std::move(pod));
  }

  for (const auto& pool : m.node_pools) {
    const std::string& class_name = pool.spec.template_.spec.node_class_ref.name;
    if (!cluster.catalogs.contains(class_name)) {
      aws::AwsCatalogOptions catalog_options;
      catalog_options.region = options.region;
      catalog_options.zones = options.zones;
      auto node_class =
          std::find_if(m.node_classes.begin(), m.node_classes.end(),
                       [&](const auto& nc) { return nc.metadata.name == class_name; });
      if (node_class != m.node_classes.end()) {
        catalog_options.kubelet = node_class->spec.kubelet;
      } else {
        err << "warning: NodePool " << pool.metadata.name << ": EC2NodeClass " << class_name
            << " is not in the inputs; planning with its defaults\n";
      }
      auto catalog = aws::LoadCatalog(options.catalog, catalog_options);
      if (!catalog.ok()) return catalog.error();
      cluster.catalogs.emplace(class_name, std::move(*catalog));
    }
  }
  for (const auto& pool : m.node_pools) {
    provisioning::NodePoolOffer offer;
    offer.node_pool = &pool;
    for (const auto& it : cluster.catalogs.at(pool.spec.template_.spec.node_class_ref.name)) {
      offer.instance_types.push_back(&it);
    }
    offer.in_use = pool.status.resources;
    (api::IsStatic(pool) ? cluster.static_pools : cluster.input.node_pools)
        .push_back(std::move(offer));
  }

  std::map<std::string, size_t> node_index;
  for (const auto& node : m.nodes) {
    provisioning::ExistingNode existing;
    existing.name = node.metadata.name;
    existing.labels = node.metadata.labels;
    existing.labels.emplace(api::kLabelHostname, node.metadata.name);
    existing.taints = node.spec.taints;
    if (node.spec.unschedulable) {
      existing.taints.push_back(
          {"node.kubernetes.io/unschedulable", "", api::TaintEffect::kNoSchedule});
    }
    existing.allocatable = node.status.allocatable;
    node_index.emplace(node.metadata.name, cluster.input.existing_nodes.size());
    cluster.input.existing_nodes.push_back(std::move(existing));
  }
  auto add_pod = [&](const api::Pod& pod) -> Status {
    if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") return {};
    if (!pod.spec.node_name.empty()) {
      auto it = node_index.find(pod.spec.node_name);
      if (it == node_index.end()) {
        return Error{"Pod/" + api::NamespacedName(pod.metadata) + ": spec.nodeName: node \"" +
                     pod.spec.node_name + "\" is not in the inputs"};
      }
      cluster.input.existing_nodes[it->second].pods.push_back(&pod);
      return {};
    }
    // A pod kube-scheduler nominated a node for has preempted there and binds there: its room is
    // taken and nothing is planned for it, as the controller leaves it (provisioner.h).
    if (auto it = node_index.find(pod.status.nominated_node_name); it != node_index.end()) {
      cluster.input.existing_nodes[it->second].pods.push_back(&pod);
      return {};
    }
    if (!api::IsDaemonSetPod(pod)) cluster.input.pods.push_back(&pod);
    return {};
  };
  for (const auto& pod : m.pods) {
    if (Status s = add_pod(pod); !s.ok()) return s;
  }
  for (const auto& pod : cluster.workload_pods) {
    if (Status s = add_pod(pod); !s.ok()) return s;
  }
  for (const auto& pvc : m.persistent_volume_claims) cluster.input.storage.claims.push_back(&pvc);
  for (const auto& pv : m.persistent_volumes) cluster.input.storage.volumes.push_back(&pv);
  for (const auto& sc : m.storage_classes) cluster.input.storage.classes.push_back(&sc);
  return {};
}

std::vector<std::string> PodNames(const std::vector<const api::Pod*>& pods) {
  std::vector<std::string> names;
  names.reserve(pods.size());
  for (const auto* pod : pods) names.push_back(api::NamespacedName(pod->metadata));
  return names;
}

ordered_json ToJson(const provisioning::SchedulerResult& result, size_t pod_count) {
  ordered_json out;
  out["nodeclaims"] = ordered_json::array();
  for (const auto& nc : result.node_claims) {
    ordered_json j;
    j["nodepool"] = nc.node_pool;
    std::vector<std::string> types;
    for (const auto* it : nc.instance_types) types.push_back(it->name);
    j["instanceTypes"] = types;
    j["capacityTypes"] = nc.capacity_types;
    j["zones"] = nc.zones;
    j["pricePerHour"] = nc.price_per_hour;
    j["requests"] = {{"cpu", nc.requests.cpu().ToCpuString()},
                     {"memory", nc.requests.memory().ToString()},
                     {"pods", nc.requests.pods().ToString()}};
    j["pods"] = PodNames(nc.pods);
    out["nodeclaims"].push_back(std::move(j));
  }
  out["existingNodes"] = ordered_json::array();
  for (const auto& e : result.existing) {
    out["existingNodes"].push_back({{"name", e.node}, {"pods", PodNames(e.pods)}});
  }
  out["unschedulable"] = ordered_json::array();
  for (const auto& u : result.unschedulable) {
    out["unschedulable"].push_back(
        {{"pod", api::NamespacedName(u.pod->metadata)}, {"reason", u.reason}});
  }
  out["summary"] = {{"pods", pod_count},
                    {"scheduled", result.Scheduled()},
                    {"nodeclaims", result.node_claims.size()},
                    {"pricePerHour", result.PricePerHour()}};
  return out;
}

void PrintTable(const provisioning::SchedulerResult& result, size_t pod_count, std::ostream& out) {
  out << fmt::format("{:<4} {:<12} {:<22} {:>6} {:<10} {:<11} {:>8} {:>10} {:>5} {:>9}\n", "#",
                     "NODEPOOL", "INSTANCE TYPE", "OPTIONS", "CAPACITY", "ZONE", "CPU", "MEMORY",
                     "PODS", "$/HOUR");
  for (size_t i = 0; i < result.node_claims.size(); ++i) {
    const auto& nc = result.node_claims[i];
    std::string capacity;
    for (const auto& c : nc.capacity_types) capacity += (capacity.empty() ? "" : ",") + c;
    std::string zone =
        nc.zones.size() == 1 ? nc.zones.front() : fmt::format("{} zones", nc.zones.size());
    out << fmt::format("{:<4} {:<12} {:<22} {:>6} {:<10} {:<11} {:>8} {:>10} {:>5} {:>9.4f}\n",
                       i + 1, nc.node_pool,
                       nc.instance_types.empty() ? "-" : nc.instance_types.front()->name,
                       nc.instance_types.size(), capacity, zone, nc.requests.cpu().ToCpuString(),
                       nc.requests.memory().ToString(), nc.pods.size(), nc.price_per_hour);
  }
  for (const auto& e : result.existing) {
    out << fmt::format("existing node {}: {} pods\n", e.node, e.pods.size());
  }
  if (!result.unschedulable.empty()) {
    out << "\nunschedulable:\n";
    for (const auto& u : result.unschedulable) {
      out << "  " << api::NamespacedName(u.pod->metadata) << ": " << u.reason << '\n';
    }
  }
  out << fmt::format("\n{} pods, {} scheduled, {} new nodeclaims, ${:.4f}/hour\n", pod_count,
                     result.Scheduled(), result.node_claims.size(), result.PricePerHour());
}

}  // namespace

int RunPlan(const PlanOptions& options, std::ostream& out, std::ostream& err) {
  if (options.output != "table" && options.output != "json") {
    err << "error: --output: unknown format \"" << options.output << "\" (table or json)\n";
    return kExitUsage;
  }
  Cluster cluster;
  std::vector<std::string> errors;
  if (options.files.empty()) {
    api::DecodeOutcome decoded = api::DecodeManifest(BuiltinPlanExample(), "<built-in example>");
    cluster.manifest = std::move(decoded.manifest);
    errors = std::move(decoded.errors);
  }
  for (const auto& file : options.files) {
    api::DecodeOutcome decoded = api::LoadManifestFile(file);
    cluster.manifest.Append(std::move(decoded.manifest));
    for (auto& e : decoded.errors) errors.push_back(std::move(e));
  }
  if (!errors.empty()) {
    for (const auto& e : errors) err << e << '\n';
    return 1;
  }
  if (Status built = BuildInput(options, cluster, err); !built.ok()) {
    err << "error: " << built.error().message << '\n';
    return 1;
  }
  PlanStatic(cluster, err);
  provisioning::SchedulerResult result = provisioning::Schedule(cluster.input);
  AddStaticClaims(cluster, result);
  if (options.output == "json") {
    out << ToJson(result, cluster.input.pods.size()).dump(2) << '\n';
  } else {
    PrintTable(result, cluster.input.pods.size(), out);
  }
  return 0;
}

}  // namespace karpenter::cli
