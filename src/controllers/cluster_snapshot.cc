#include "controllers/cluster_snapshot.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "api/condition.h"
#include "api/labels.h"

namespace karpenter::controllers {

ClusterSnapshot TakeCapacitySnapshot(const ClusterCache& cluster,
                                     std::vector<std::shared_ptr<const api::Pod>> pods) {
  ClusterSnapshot snapshot;
  snapshot.pods = std::move(pods);
  snapshot.node_claims = cluster.decoded_node_claims().All();
  snapshot.nodes = cluster.decoded_nodes().All();
  std::erase_if(snapshot.nodes, [](const std::shared_ptr<const api::Node>& node) {
    return !node->metadata.deletion_timestamp.empty();
  });
  return snapshot;
}

std::vector<api::Workload> DecodeDaemonSets(const ClusterCache& cluster) {
  std::vector<api::Workload> daemon_sets;
  cluster.daemon_sets().ForEach([&](const kube::Object& object) {
    if (std::optional<api::Workload> ds = DecodeDaemonSet(object)) {
      daemon_sets.push_back(std::move(*ds));
    }
  });
  return daemon_sets;
}

ClusterSnapshot TakeSnapshot(const ClusterCache& cluster, cloud::CloudProvider& cloud,
                             const Logger& logger,
                             std::vector<std::shared_ptr<const api::Pod>> pods) {
  ClusterSnapshot snapshot = TakeCapacitySnapshot(cluster, std::move(pods));
  cluster.node_pools().ForEach([&](const kube::Object& object) {
    std::string error;
    std::optional<api::NodePool> pool = DecodeNodePool(object, &error);
    if (!pool) {
      logger.Error("skipping an invalid NodePool", {{"error", error}});
      return;
    }
    if (!pool->metadata.deletion_timestamp.empty()) return;
    const api::NodeClassReference& ref = pool->spec.template_.spec.node_class_ref;
    if (!cluster.node_classes().Get(ref.name)) return;  // NodeClassReady=False: see status
    Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> types =
        cloud.GetInstanceTypes(*pool);
    if (!types.ok()) {
      logger.Error("listing instance types failed",
                   {logkey::NodePool(pool->metadata.name), logkey::Err(types.error())});
      return;
    }
    snapshot.node_pools.push_back({std::move(*pool), object, std::move(*types)});
  });
  snapshot.daemon_sets = DecodeDaemonSets(cluster);
  return snapshot;
}

namespace {

// A NodePool's instance types, and what its live NodeClaims already hold against its limits.
provisioning::NodePoolOffer OfferOf(const NodePoolView& entry, const ClusterSnapshot& snapshot) {
  provisioning::NodePoolOffer offer;
  offer.node_pool = &entry.pool;
  for (const cloud::InstanceType& type : *entry.instance_types) {
    offer.instance_types.push_back(&type);
  }
  for (const auto& claim_ptr : snapshot.node_claims) {
    const api::NodeClaim& claim = *claim_ptr;
    if (!claim.metadata.deletion_timestamp.empty()) continue;
    const auto it = claim.metadata.labels.find(api::kLabelNodePool);
    if (it == claim.metadata.labels.end() || it->second != entry.pool.metadata.name) continue;
    offer.in_use +=
        claim.status.capacity.empty() ? claim.spec.resource_requests : claim.status.capacity;
    offer.in_use.Add("nodes", Quantity::FromUnits(1));
  }
  return offer;
}

// The taints pods must tolerate to land on `node` (of NodeClaim `claim`, if any).
std::vector<api::Taint> SchedulingTaints(const api::Node& node, const api::NodeClaim* claim) {
  const bool initializing = claim != nullptr && !api::IsConditionTrue(claim->status.conditions,
                                                                      api::kConditionInitialized);
  std::vector<api::Taint> taints;
  for (const api::Taint& taint : node.spec.taints) {
    // A node still starting keeps its startup taints and karpenter.sh/unregistered only
    // until it is ready: pods headed there must not make us launch more.
    if (initializing &&
        (taint.key == api::kTaintUnregistered || taint.key == "node.kubernetes.io/not-ready" ||
         std::find(claim->spec.startup_taints.begin(), claim->spec.startup_taints.end(), taint) !=
             claim->spec.startup_taints.end())) {
      continue;
    }
    taints.push_back(taint);
  }
  if (node.spec.unschedulable) {
    taints.push_back({"node.kubernetes.io/unschedulable", "", api::TaintEffect::kNoSchedule});
  }
  const api::Taint disrupted{std::string(api::kTaintDisrupted), "", api::TaintEffect::kNoSchedule};
  if (claim != nullptr && !claim->metadata.deletion_timestamp.empty() &&
      std::find(taints.begin(), taints.end(), disrupted) == taints.end()) {
    taints.push_back(disrupted);
  }
  return taints;
}

// A registered node with the pods bound to it (`pods`, not terminal).
provisioning::ExistingNode RegisteredNode(const api::Node& node, const api::NodeClaim* claim,
                                          std::vector<const api::Pod*> pods) {
  provisioning::ExistingNode existing;
  existing.name = node.metadata.name;
  existing.labels = node.metadata.labels;
  existing.labels.emplace(api::kLabelHostname, node.metadata.name);
  existing.allocatable = node.status.allocatable;
  if (claim != nullptr && existing.allocatable.empty()) {
    existing.allocatable = claim->status.allocatable;
  }
  existing.taints = SchedulingTaints(node, claim);
  existing.pods = std::move(pods);
  // Worked out once here rather than in every scheduling simulation over this view.
  existing.requirements = scheduling::Requirements::FromLabels(existing.labels);
  api::ResourceList requested;
  std::vector<scheduling::HostPort> host_ports;
  for (const api::Pod* pod : existing.pods) {
    requested += api::SchedulingRequests(pod->spec);
    for (scheduling::HostPort& port : scheduling::HostPortsOf(pod->spec)) {
      host_ports.push_back(std::move(port));
    }
  }
  existing.requested = std::move(requested);
  existing.host_ports = std::move(host_ports);
  return existing;
}

// A NodeClaim whose Node has not registered yet: what it was launched to be.
provisioning::ExistingNode InFlightNode(const api::NodeClaim& claim) {
  provisioning::ExistingNode in_flight;
  in_flight.name = claim.metadata.name;
  in_flight.in_flight = true;
  in_flight.requirements = scheduling::Requirements::FromNodeSelector(claim.spec.requirements);
  in_flight.labels = in_flight.requirements.SingleValueLabels();
  for (const auto& [key, value] : claim.metadata.labels) in_flight.labels[key] = value;
  in_flight.taints = claim.spec.taints;
  in_flight.allocatable =
      claim.status.allocatable.empty() ? claim.spec.resource_requests : claim.status.allocatable;
  return in_flight;
}

}  // namespace

SchedulingView BuildSchedulingView(const ClusterSnapshot& snapshot) {
  SchedulingView view;
  provisioning::SchedulerInput& input = view.input;
  // A static NodePool keeps its count whatever the pods: no new claim of it is planned for them
  // (controllers/static_capacity.h launches its nodes), though they may land on its nodes.
  for (const NodePoolView& entry : snapshot.node_pools) {
    if (!api::IsStatic(entry.pool)) input.node_pools.push_back(OfferOf(entry, snapshot));
  }
  for (const api::Workload& ds : snapshot.daemon_sets) input.daemon_sets.push_back(&ds.template_);

  std::map<std::string_view, std::vector<const api::Pod*>> pods_by_node;
  for (const auto& pod : snapshot.pods) {
    if (!pod->spec.node_name.empty() && !api::IsTerminal(*pod)) {
      pods_by_node[pod->spec.node_name].push_back(pod.get());
    }
  }
  std::map<std::string_view, const api::NodeClaim*> claims_by_provider_id;
  for (const auto& claim : snapshot.node_claims) {
    if (!claim->status.provider_id.empty()) {
      claims_by_provider_id.emplace(claim->status.provider_id, claim.get());
    }
  }
  std::set<std::string_view> claims_with_nodes;
  for (const auto& node : snapshot.nodes) {
    const auto found = claims_by_provider_id.find(node->spec.provider_id);
    const api::NodeClaim* claim = found == claims_by_provider_id.end() ? nullptr : found->second;
    if (claim != nullptr) claims_with_nodes.insert(claim->metadata.name);
    std::vector<const api::Pod*> pods;
    if (const auto bound = pods_by_node.find(node->metadata.name); bound != pods_by_node.end()) {
      pods = bound->second;
    }
    input.existing_nodes.push_back(RegisteredNode(*node, claim, std::move(pods)));
    view.sources.push_back({node.get(), claim});
  }
  for (const auto& claim : snapshot.node_claims) {
    if (claims_with_nodes.contains(claim->metadata.name) ||
        !claim->metadata.deletion_timestamp.empty()) {
      continue;
    }
    input.existing_nodes.push_back(InFlightNode(*claim));
    view.sources.push_back({nullptr, claim.get()});
  }
  return view;
}

void AddDisplacedPods(const provisioning::ExistingNode& node, std::deque<api::Pod>& copies,
                      std::vector<const api::Pod*>& pods) {
  for (const api::Pod* pod : node.pods) {
    if (!api::IsReschedulable(*pod)) continue;
    api::Pod& unbound = copies.emplace_back(*pod);
    unbound.spec.node_name.clear();
    pods.push_back(&unbound);
  }
}

}  // namespace karpenter::controllers
