#include "simulate/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "api/pod.h"
#include "api/workloads.h"
#include "cloud/sim/sim_cloud_provider.h"
#include "common/clock.h"
#include "controllers/cluster_cache.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/interruption.h"
#include "disruption/command.h"
#include "kube/memory/memory_client.h"
#include "operator/manager.h"
#include "provisioning/fractional_fleet.h"
#include "provisioning/scheduler.h"
#include "simulate/accuracy.h"
#include "simulate/disruption_audit.h"
#include "simulate/disruption_budget_controller.h"
#include "simulate/kube_scheduler.h"
#include "simulate/launch_zones.h"
#include "simulate/node_groups.h"
#include "simulate/priority_classes.h"
#include "simulate/simulated_machines.h"
#include "simulate/workload_controllers.h"

namespace karpenter::simulate {
namespace {

using kube::Object;
using std::chrono::milliseconds;
namespace resources = kube::resources;

// The simulation starts at a fixed instant, so runs are comparable and byte-identical.
constexpr TimePoint kStart{std::chrono::seconds(1767225600)};  // 2026-01-01T00:00:00Z
// Rounds at one instant before it counts as a controller that never settles.
constexpr int kMaxRoundsPerInstant = 200;
// How long an interrupted spot instance lives after the interruption warning.
constexpr std::chrono::minutes kSpotWarning(2);
// How long Karpenter keeps an interrupted spot offering out of its choices.
constexpr std::chrono::minutes kUnavailableAfterInterruption(3);

const std::map<std::string_view, kube::Resource>& ResourcesByKind() {
  static const std::map<std::string_view, kube::Resource> kByKind = {
      {"Namespace", resources::kNamespaces},
      {"PriorityClass", resources::kPriorityClasses},
      {"Node", resources::kNodes},
      {"Pod", resources::kPods},
      {"Deployment", resources::kDeployments},
      {"ReplicaSet", resources::kReplicaSets},
      {"StatefulSet", resources::kStatefulSets},
      {"Job", resources::kJobs},
      {"DaemonSet", resources::kDaemonSets},
      {"PodDisruptionBudget", resources::kPodDisruptionBudgets},
      {"PersistentVolume", resources::kPersistentVolumes},
      {"PersistentVolumeClaim", resources::kPersistentVolumeClaims},
      {"StorageClass", resources::kStorageClasses},
      {"NodePool", resources::kNodePools},
      {"EC2NodeClass", resources::kEC2NodeClasses},
      {"NodeOverlay", resources::kNodeOverlays},
      {"PodTemplate", resources::kPodTemplates},
      {"CapacityBuffer", resources::kCapacityBuffers}};
  return kByKind;
}

double Seconds(TimePoint at) { return std::chrono::duration<double>(at - kStart).count(); }

std::string CapacityTypeOf(const api::Labels& labels) {
  if (auto it = labels.find(std::string(api::kLabelCapacityType)); it != labels.end()) {
    return it->second;
  }
  if (auto it = labels.find(std::string(api::kLabelEksCapacityType)); it != labels.end()) {
    return it->second == "SPOT" ? std::string(api::kCapacityTypeSpot)
                                : std::string(api::kCapacityTypeOnDemand);
  }
  return std::string(api::kCapacityTypeOnDemand);
}

std::string LabelOf(const api::Labels& labels, std::string_view key) {
  auto it = labels.find(std::string(key));
  return it == labels.end() ? std::string() : it->second;
}

// What an input object looks like to a client creating it: no server-set metadata, no status.
Object ForCreate(const Object& object) {
  Object created = object;
  Object& metadata = created["metadata"];
  for (std::string_view field : {"resourceVersion", "uid", "creationTimestamp", "managedFields",
                                 "generation", "selfLink", "deletionTimestamp"}) {
    metadata.erase(std::string(field));
  }
  created.erase("status");
  return created;
}

class World {
 public:
  explicit World(const SimulationInput& input)
      : input_(input),
        store_(clock_,
               kube::memory::MemoryClientOptions{
                   .history_limit = 1024, .hold_history_for_watches = true, .seed = input.seed}),
        audit_(store_),
        cloud_(input.launch_zones.empty() ? input.catalog
                                          : OfferedIn(input.catalog, input.launch_zones),
               clock_, input.region),
        manager_(audit_, cloud_, clock_, input.logger, ManagerOptions(input)),
        machines_(manager_, audit_, cloud_, clock_, input.logger,
                  cloud::NodeBooterOptions{.boot_delay = input.node_boot_delay,
                                           .boot_spread = input.node_boot_spread,
                                           .seed = input.seed,
                                           .mark_ready = true}),
        scheduler_(store_, manager_.cluster(), clock_,
                   [this](std::string preemptor, std::string detail) {
                     Record("Preempted", std::move(preemptor), std::move(detail));
                   }),
        workloads_(store_, manager_.cluster(), clock_),
        budgets_(store_, manager_.cluster()),
        node_groups_(audit_, manager_.cluster(), clock_, input.catalog, input.region,
                     [this](std::string event, std::string node) {
                       Record(std::move(event), std::move(node), "");
                     }) {
    if (cloud::OverlayStore* overlays = manager_.overlays()) cloud_.UseOverlays(*overlays);
    for (const cloud::InstanceType& type : input.catalog) {
      for (const cloud::Offering& offering : type.offerings) {
        prices_[{type.name, offering.zone, offering.capacity_type}] = offering.price;
      }
    }
    controllers::ClusterCache& cluster = manager_.cluster();
    cluster.pods().AddHandler(
        [this](kube::WatchEventType type, const Object& pod) { ObservePod(type, pod); });
    cluster.nodes().AddHandler([this](kube::WatchEventType, const Object&) { changed_ = true; });
    cluster.node_claims().AddHandler(
        [this](kube::WatchEventType type, const Object& claim) { ObserveNodeClaim(type, claim); });
  }

  // Stores `objects` (and empties it) and the node groups' Nodes, then syncs the informers.
  Status Load(std::vector<Object>& objects);
  Result<SimulationResult> Run(const Progress& progress);

 private:
  static op::ManagerOptions ManagerOptions(const SimulationInput& input) {
    op::ManagerOptions options;
    options.seed = input.seed;
    options.node_repair = input.node_repair;
    options.static_capacity = input.static_capacity;
    options.node_overlays = input.node_overlays;
    options.capacity_buffers = input.capacity_buffers;
    options.disruption.engine.spot_to_spot_consolidation = input.spot_to_spot_consolidation;
    options.disruption.engine.balanced_consolidation = input.balanced_consolidation;
    options.idle_wake = std::chrono::hours(1);
    options.events.synchronous = true;  // the same run every time
    return options;
  }

  std::vector<kube::Informer*> Informers() {
    std::vector<kube::Informer*> all = manager_.cluster().all();
    for (kube::Informer* informer : workloads_.informers()) all.push_back(informer);
    return all;
  }

  Status EnsureNamespace(std::string_view name);
  Status Store(Object object);
  // Pumps every informer; returns how many events were delivered.
  Result<size_t> Pump();
  // Rounds at the current instant until one delivers no event.
  Status Settle(bool karpenter);
  Status Apply(const Action& action);
  Status InterruptSpot(const struct InterruptSpot& interrupt);
  Status SetNodeCondition(const struct SetNodeCondition& set);
  Status TerminateInterrupted();
  void RestoreOfferings();
  void ObservePod(kube::WatchEventType type, const Object& pod);
  void ObserveNodeClaim(kube::WatchEventType type, const Object& claim);
  void CollectDecisions();
  void Record(std::string event, std::string subject, std::string detail) {
    result_.timeline.push_back(
        {Seconds(clock_.Now()), std::move(event), std::move(subject), std::move(detail)});
  }
  double PriceOf(const api::Node& node) const;
  // Not const: the bound asks the cloud for each NodePool's instance types.
  ClusterFigures Figures();
  void Sample();
  std::vector<FinalNode> FinalNodes() const;
  // The pods still waiting at `end`, the longest-waiting first.
  std::vector<PendingPod> StillPending(TimePoint end);

  const SimulationInput& input_;
  VirtualClock clock_{kStart};
  kube::memory::MemoryClient store_;
  DisruptionAudit audit_;
  cloud::SimCloudProvider cloud_;
  op::Manager manager_;
  SimulatedMachines machines_;
  KubeScheduler scheduler_;
  WorkloadControllers workloads_;
  DisruptionBudgetController budgets_;
  NodeGroups node_groups_;

  std::map<std::tuple<std::string, std::string, std::string>, double> prices_;
  SimulationResult result_;
  bool changed_ = true;  // pods or nodes changed since the last sample
  std::map<std::string, TimePoint, std::less<>> pending_since_;  // pod uid → first seen unbound
  std::set<std::string, std::less<>> launched_;                  // NodeClaims seen launched
  std::set<std::string, std::less<>> repaired_;                  // NodeClaims seen repaired
  uint64_t decisions_seen_ = 0;
  struct Interrupted {
    TimePoint terminate_at;
    std::string node;
  };
  std::vector<Interrupted> interrupted_;
  struct Restore {
    TimePoint at;
    std::string instance_type;
    std::string zone;
  };
  std::vector<Restore> restores_;
};

Status World::EnsureNamespace(std::string_view name) {
  if (name.empty() || store_.Get(resources::kNamespaces, "", name).ok()) return {};
  const Object ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  Result<Object> created = store_.Create(resources::kNamespaces, ns, kube::WriteOptions{});
  return created.ok() ? Status{} : Status(created.error());
}

Status World::Store(Object object) {
  const std::string kind = object.value("kind", "");
  const auto resource = ResourcesByKind().find(kind);
  if (resource == ResourcesByKind().end()) return {};  // listed as ignored by the loader
  const std::string where =
      fmt::format("{}/{}", kind, kube::Key(kube::Namespace(object), kube::Name(object)));
  if (resource->second.namespaced) {
    if (Status ns = EnsureNamespace(kube::Namespace(object)); !ns.ok()) return ns;
  } else if (kind == "Namespace" &&
             store_.Get(resources::kNamespaces, "", kube::Name(object)).ok()) {
    return {};
  }
  Result<kube::SharedObject> restored = store_.Restore(resource->second, std::move(object));
  if (!restored.ok()) return Error{fmt::format("{}: {}", where, restored.error().message)};
  return {};
}

Status World::Load(std::vector<Object>& objects) {
  // Namespaces first, then PriorityClasses (pods take their priority), then Nodes (pods bind to
  // them), then the rest in input order. Each object is released once stored, so a large snapshot
  // is not held twice.
  for (std::string_view first : {"Namespace", "PriorityClass", "Node"}) {
    for (Object& object : objects) {
      if (!object.is_object() || object.value("kind", "") != first) continue;
      if (Status stored = Store(std::move(object)); !stored.ok()) return stored;
      object = nullptr;
    }
  }
  for (const NodeGroupSpec& group : input_.timeline.node_groups) {
    if (Status created = node_groups_.Create(group); !created.ok()) return created;
  }
  for (Object& object : objects) {
    if (!object.is_object()) continue;
    if (Status stored = Store(std::move(object)); !stored.ok()) return stored;
    object = nullptr;
  }
  std::vector<Object>().swap(objects);
  for (kube::Informer* informer : Informers()) {
    if (Status synced = informer->Sync(); !synced.ok()) {
      return Error{fmt::format("{}: {}", informer->resource().plural, synced.error().message)};
    }
  }
  return {};
}

Result<size_t> World::Pump() {
  size_t events = 0;
  for (kube::Informer* informer : Informers()) {
    ASSIGN_OR_RETURN(size_t pumped, informer->Pump(milliseconds(0)));
    events += pumped;
  }
  return events;
}

Status World::Settle(bool karpenter) {
  for (int round = 0; round < kMaxRoundsPerInstant; ++round) {
    ASSIGN_OR_RETURN(size_t events, Pump());
    if (round > 0 && events == 0) return {};
    if (karpenter) manager_.RunOnce();
    // Budgets are brought up to date once an instant, like a controller a moment behind the
    // pods; in between, evictions charge them.
    if (round == 0) {
      RETURN_IF_ERROR(budgets_.Run());
    }
    for (const Result<size_t>& ran : {workloads_.Run(), scheduler_.Run(), node_groups_.Run()}) {
      if (!ran.ok()) return ran.error();
    }
    if (karpenter) CollectDecisions();
  }
  return Error{fmt::format("the cluster did not settle within {} rounds at t={}s",
                           kMaxRoundsPerInstant, Seconds(clock_.Now()))};
}

void World::ObservePod(kube::WatchEventType type, const Object& pod) {
  changed_ = true;
  const std::string uid(kube::Uid(pod));
  const bool waiting = type != kube::WatchEventType::kDeleted &&
                       kube::StringAt(pod, {"spec", "nodeName"}).empty() &&
                       kube::DeletionTimestamp(pod).empty();
  if (waiting) {
    pending_since_.try_emplace(uid, clock_.Now());
    return;
  }
  if (auto it = pending_since_.find(uid); it != pending_since_.end()) {
    if (type != kube::WatchEventType::kDeleted) {  // bound; a deleted pod never ran
      result_.max_pending_seconds =
          std::max(result_.max_pending_seconds,
                   std::chrono::duration<double>(clock_.Now() - it->second).count());
    }
    pending_since_.erase(it);
  }
}

void World::ObserveNodeClaim(kube::WatchEventType type, const Object& claim) {
  const std::string name(kube::Name(claim));
  if (type == kube::WatchEventType::kDeleted) {
    launched_.erase(name);
    repaired_.erase(name);
    Record("NodeClaimDeleted", name, "");
    return;
  }
  if (!kube::DeletionTimestamp(claim).empty() && !repaired_.contains(name)) {
    const Object* conditions = kube::Find(claim, {"status", "conditions"});
    for (const Object& condition :
         conditions != nullptr && conditions->is_array() ? *conditions : Object::array()) {
      if (kube::StringAt(condition, {"type"}) == api::kConditionDisruptionReason &&
          kube::StringAt(condition, {"reason"}) == api::kDisruptionReasonUnhealthy) {
        repaired_.insert(name);
        Record("Repaired", std::string(kube::StringAt(claim, {"status", "nodeName"})),
               std::string(kube::StringAt(condition, {"message"})));
      }
    }
  }
  if (launched_.contains(name) || kube::StringAt(claim, {"status", "providerID"}).empty()) return;
  launched_.insert(name);
  const std::string type_name(kube::Label(claim, api::kLabelInstanceType));
  const std::string zone(kube::Label(claim, api::kLabelZone));
  const std::string capacity(kube::Label(claim, api::kLabelCapacityType));
  const auto price = prices_.find({type_name, zone, capacity});
  Record("Launched", name,
         fmt::format("{} {} in {} for NodePool {} (${:.4f}/h)", type_name, capacity, zone,
                     kube::Label(claim, api::kLabelNodePool),
                     price == prices_.end() ? 0.0 : price->second));
}

void World::CollectDecisions() {
  const auto& decisions = manager_.disruption().decisions();
  const uint64_t fresh = std::min<uint64_t>(
      manager_.disruption().decisions_made() - decisions_seen_, decisions.size());
  for (size_t i = decisions.size() - fresh; i < decisions.size(); ++i) {
    const controllers::DisruptionDecision& decision = decisions[i];
    result_.decisions.push_back(
        {Seconds(decision.at), std::string(disruption::MethodName(decision.method)), decision.nodes,
         decision.replacements, decision.savings_per_hour, decision.description});
    Record("Disrupted", decision.nodes.size() == 1 ? decision.nodes.front() : "",
           decision.description);
  }
  decisions_seen_ = manager_.disruption().decisions_made();
}

Status World::Apply(const Action& action) {
  Record("Action", "", Describe(action.kind));
  struct Visitor {
    World& world;
    Status operator()(const ScaleNodeGroup& scale) const { return world.node_groups_.Scale(scale); }
    Status operator()(const ScaleWorkload& scale) const {
      const kube::Resource& resource = ResourcesByKind().at(scale.kind);
      const Object patch = {
          {"spec", {{scale.kind == "Job" ? "parallelism" : "replicas", scale.replicas}}}};
      Result<Object> patched =
          world.store_.Patch(resource, scale.namespace_, scale.name, kube::PatchType::kMerge, patch,
                             kube::Subresource::kNone);
      if (!patched.ok()) {
        return Error{fmt::format("scale {}/{}: {}", scale.kind,
                                 kube::Key(scale.namespace_, scale.name), patched.error().message)};
      }
      return {};
    }
    Status operator()(const ApplyObject& apply) const {
      const std::string kind = apply.object.value("kind", "");
      const auto resource = ResourcesByKind().find(kind);
      if (resource == ResourcesByKind().end()) {
        return Error{fmt::format("apply: kind {} is not simulated", kind)};
      }
      Result<Object> existing = world.store_.Get(resource->second, kube::Namespace(apply.object),
                                                 kube::Name(apply.object));
      if (!existing.ok()) return world.Store(apply.object);
      Object replaced = ForCreate(apply.object);
      replaced["metadata"]["resourceVersion"] = kube::ResourceVersion(*existing);
      Result<Object> updated =
          world.store_.Update(resource->second, replaced, kube::Subresource::kNone);
      return updated.ok() ? Status{} : Status(updated.error());
    }
    Status operator()(const DeleteObject& remove) const {
      const auto resource = ResourcesByKind().find(remove.kind);
      if (resource == ResourcesByKind().end()) {
        return Error{fmt::format("delete: kind {} is not simulated", remove.kind)};
      }
      Status deleted = world.store_.Delete(resource->second, remove.namespace_, remove.name, {});
      if (!deleted.ok()) {
        return Error{fmt::format("delete {}/{}: {}", remove.kind,
                                 kube::Key(remove.namespace_, remove.name),
                                 deleted.error().message)};
      }
      return {};
    }
    Status operator()(const struct InterruptSpot& interrupt) const {
      return world.InterruptSpot(interrupt);
    }
    Status operator()(const MakeUnavailable& unavailable) const {
      for (const cloud::InstanceType& type : world.input_.catalog) {
        if (type.name != unavailable.instance_type) continue;
        for (const cloud::Offering& offering : type.offerings) {
          if ((unavailable.zone.empty() || offering.zone == unavailable.zone) &&
              (unavailable.capacity_type.empty() ||
               offering.capacity_type == unavailable.capacity_type)) {
            world.cloud_.SetOfferingAvailable(type.name, offering.zone, offering.capacity_type,
                                              false);
          }
        }
        return {};
      }
      return Error{fmt::format("unavailable: instance type {} is not in the catalog",
                               unavailable.instance_type)};
    }
    Status operator()(const struct SetNodeCondition& set) const {
      return world.SetNodeCondition(set);
    }
    Status operator()(const Note&) const { return {}; }
  };
  return std::visit(Visitor{*this}, action.kind);
}

Status World::SetNodeCondition(const struct SetNodeCondition& set) {
  const bool by_pool = !set.node_pool.empty();
  std::vector<std::pair<std::string, std::string>> nodes;  // creation time, name
  for (const auto& node : manager_.cluster().decoded_nodes().All()) {
    const std::string owner =
        LabelOf(node->metadata.labels, by_pool ? api::kLabelNodePool : api::kLabelNodeGroup);
    if (owner != (by_pool ? set.node_pool : set.node_group) ||
        !node->metadata.deletion_timestamp.empty()) {
      continue;
    }
    nodes.emplace_back(node->metadata.creation_timestamp, node->metadata.name);
  }
  if (nodes.empty()) {
    return Error{fmt::format("nodeCondition: no Node of {} {} now",
                             by_pool ? "NodePool" : "node group",
                             by_pool ? set.node_pool : set.node_group)};
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.resize(std::min(nodes.size(), static_cast<size_t>(set.nodes)));
  const std::string now = FormatTime(clock_.Now());
  for (const auto& [created, name] : nodes) {
    Result<Object> node = store_.Get(resources::kNodes, "", name);
    if (!node.ok()) return node.error();
    Object conditions = Object::array();
    if (const Object* current = kube::Find(*node, {"status", "conditions"});
        current != nullptr && current->is_array()) {
      for (const Object& condition : *current) {
        if (kube::StringAt(condition, {"type"}) != set.type) conditions.push_back(condition);
      }
    }
    conditions.push_back({{"type", set.type},
                          {"status", set.status},
                          {"reason", "SetByTheTimeline"},
                          {"lastHeartbeatTime", now},
                          {"lastTransitionTime", now}});
    Result<Object> patched = store_.Patch(resources::kNodes, "", name, kube::PatchType::kMerge,
                                          {{"status", {{"conditions", std::move(conditions)}}}},
                                          kube::Subresource::kStatus);
    if (!patched.ok()) return patched.error();
    Record("NodeCondition", name, set.type + "=" + set.status);
  }
  return {};
}

// The interruption warning: Karpenter's interruption controller deletes the NodeClaim as
// interrupted (its pods' new capacity launches, then its node is drained) and keeps the spot
// offering out of its choices for a while; the instance itself is terminated by EC2 two minutes
// after the warning, drained or not.
Status World::InterruptSpot(const struct InterruptSpot& interrupt) {
  const TimePoint now = clock_.Now();
  for (const auto& node : manager_.cluster().decoded_nodes().All()) {
    if (CapacityTypeOf(node->metadata.labels) != api::kCapacityTypeSpot ||
        LabelOf(node->metadata.labels, api::kLabelZone) != interrupt.zone) {
      continue;
    }
    const std::string type = LabelOf(node->metadata.labels, api::kLabelInstanceType);
    cloud_.SetOfferingAvailable(type, interrupt.zone, api::kCapacityTypeSpot, false);
    restores_.push_back({now + kUnavailableAfterInterruption, type, interrupt.zone});
    interrupted_.push_back({now + kSpotWarning, node->metadata.name});
    Record("SpotInterrupted", node->metadata.name, type + " in " + interrupt.zone);
    for (const Object& claim : manager_.cluster().node_claims().ByIndex(
             controllers::kIndexNodeClaimsByProviderId, node->spec.provider_id)) {
      Status deleted = controllers::DeleteInterruptedNodeClaim(
          store_, claim, "EC2 Spot Instance Interruption Warning", now);
      if (!deleted.ok()) return deleted;
    }
  }
  return {};
}

Status World::TerminateInterrupted() {
  const TimePoint now = clock_.Now();
  for (auto it = interrupted_.begin(); it != interrupted_.end();) {
    if (it->terminate_at > now) {
      ++it;
      continue;
    }
    if (std::optional<Object> node = manager_.cluster().nodes().Get(it->node)) {
      for (const Object& pod :
           manager_.cluster().pods().ByIndex(controllers::kIndexPodsByNode, it->node)) {
        if (kube::DeletionTimestamp(pod).empty()) audit_.RecordLoss(pod);
      }
      // A node group's instance is not the simulated cloud's (not found there); its Node goes
      // all the same.
      static_cast<void>(cloud_.Delete(kube::StringAt(*node, {"spec", "providerID"})));
      Record("InstanceTerminated", it->node, "spot instance reclaimed");
      // The Node object goes with the instance (Karpenter's finalizer, if any, is removed by its
      // lifecycle once it sees the instance gone).
      Status deleted = store_.Delete(resources::kNodes, "", it->node, {});
      if (!deleted.ok() && deleted.error().status != 404) return deleted;
    }
    it = interrupted_.erase(it);
  }
  return {};
}

void World::RestoreOfferings() {
  const TimePoint now = clock_.Now();
  std::erase_if(restores_, [&](const Restore& restore) {
    if (restore.at > now) return false;
    cloud_.SetOfferingAvailable(restore.instance_type, restore.zone, api::kCapacityTypeSpot, true);
    return true;
  });
}

double World::PriceOf(const api::Node& node) const {
  const auto price = prices_.find({LabelOf(node.metadata.labels, api::kLabelInstanceType),
                                   LabelOf(node.metadata.labels, api::kLabelZone),
                                   CapacityTypeOf(node.metadata.labels)});
  return price == prices_.end() ? 0.0 : price->second;
}

ClusterFigures World::Figures() {
  ClusterFigures figures;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  // Nodes Karpenter did not launch (node groups the migration keeps) stay whatever it does: their
  // price is fixed, and what their DaemonSet pods leave free is room any fleet may use.
  std::set<std::string> kept;
  api::ResourceList kept_room;
  for (const auto& node : manager_.cluster().decoded_nodes().All()) {
    if (!node->metadata.deletion_timestamp.empty()) continue;
    ++figures.nodes;
    ++figures.by_type[{LabelOf(node->metadata.labels, api::kLabelInstanceType),
                       CapacityTypeOf(node->metadata.labels)}];
    figures.cpu_allocatable += node->status.allocatable.cpu().as_double();
    figures.memory_allocatable_gib += node->status.allocatable.memory().as_double() / kGiB;
    figures.price_per_hour += PriceOf(*node);
    if (!node->metadata.labels.contains(std::string(api::kLabelNodePool))) {
      kept.insert(node->metadata.name);
      kept_room += node->status.allocatable;
      figures.kept_price_per_hour += PriceOf(*node);
    }
  }
  provisioning::FleetDemand demand;
  for (const auto& pod : manager_.cluster().decoded_pods().All()) {
    if (api::IsTerminal(*pod)) continue;
    if (pod->spec.node_name.empty()) {
      ++figures.pending_pods;
      continue;
    }
    ++figures.pods;
    const api::ResourceList requests = api::EffectiveRequests(pod->spec);
    figures.cpu_requested += requests.cpu().as_double();
    figures.memory_requested_gib += requests.memory().as_double() / kGiB;
    if (!api::IsDaemonSetPod(*pod)) {
      demand = {demand.cpu + requests.cpu().as_double(),
                demand.memory + requests.memory().as_double() / kGiB, demand.pods + 1};
    } else if (kept.contains(pod->spec.node_name)) {
      kept_room -= requests;
    }
  }
  // The cheapest fractional fleet for the running pods on the types the NodePools allow, each
  // node with room for the DaemonSet pods that come with it.
  const std::vector<api::Workload> daemon_sets = controllers::DecodeDaemonSets(manager_.cluster());
  std::vector<const api::PodTemplate*> templates;
  templates.reserve(daemon_sets.size());
  for (const api::Workload& daemon_set : daemon_sets) templates.push_back(&daemon_set.template_);
  std::vector<provisioning::FleetType> types;
  manager_.cluster().node_pools().ForEach([&](const kube::Object& object) {
    const std::optional<api::NodePool> node_pool = controllers::DecodeNodePool(object);
    if (!node_pool) return;
    const auto offered = cloud_.GetInstanceTypes(*node_pool);
    if (!offered.ok()) return;
    std::vector<const cloud::InstanceType*> pointers;
    for (const cloud::InstanceType& type : **offered) pointers.push_back(&type);
    const api::ResourceList overhead = provisioning::DaemonSetsOn(*node_pool, templates).requests;
    for (provisioning::FleetType& type :
         provisioning::NodePoolFleetTypes(*node_pool, pointers, overhead)) {
      types.push_back(type);
    }
  });
  if (demand.pods > 0) {
    if (auto fleet = provisioning::CheapestFractionalFleet(types, demand)) {
      figures.lower_bound_price_per_hour = fleet->price;
    }
    // The same with the kept nodes at their price and their room taken first (pooled, as the
    // fractional fleet splits pods anyway).
    const provisioning::FleetDemand rest = {
        std::max(0.0, demand.cpu - kept_room.cpu().as_double()),
        std::max(0.0, demand.memory - kept_room.memory().as_double() / kGiB),
        std::max(0.0, demand.pods - kept_room.pods().as_double())};
    if (auto fleet = provisioning::CheapestFractionalFleet(types, rest)) {
      figures.kept_lower_bound_price_per_hour = figures.kept_price_per_hour + fleet->price;
    }
  }
  return figures;
}

void World::Sample() {
  if (!changed_) return;
  changed_ = false;
  struct Sample sample;
  sample.t = Seconds(clock_.Now());
  for (const auto& node : manager_.cluster().decoded_nodes().All()) {
    if (!node->metadata.deletion_timestamp.empty()) continue;
    (CapacityTypeOf(node->metadata.labels) == api::kCapacityTypeSpot ? sample.spot_nodes
                                                                     : sample.on_demand_nodes)++;
    sample.price_per_hour += PriceOf(*node);
  }
  sample.pending_pods = static_cast<int>(pending_since_.size());
  sample.pods_disrupted = static_cast<int>(audit_.pods_disrupted());
  std::vector<struct Sample>& samples = result_.samples;
  if (!samples.empty() && samples.back().on_demand_nodes == sample.on_demand_nodes &&
      samples.back().spot_nodes == sample.spot_nodes &&
      samples.back().pending_pods == sample.pending_pods &&
      samples.back().pods_disrupted == sample.pods_disrupted &&
      samples.back().price_per_hour == sample.price_per_hour) {
    return;
  }
  if (!samples.empty() && samples.back().t == sample.t) samples.pop_back();
  samples.push_back(sample);
}

std::vector<PendingPod> World::StillPending(TimePoint end) {
  // Enough to see what waits and why; the count is in the result.
  constexpr size_t kListed = 20;
  std::vector<PendingPod> pending;
  if (pending_since_.empty()) return pending;
  for (const auto& pod : manager_.cluster().decoded_pods().All()) {
    const auto since = pending_since_.find(pod->metadata.uid);
    if (since == pending_since_.end()) continue;
    pending.push_back({api::NamespacedName(pod->metadata),
                       std::chrono::duration<double>(end - since->second).count(), ""});
  }
  std::sort(pending.begin(), pending.end(), [](const PendingPod& a, const PendingPod& b) {
    return std::tie(b.seconds, a.name) < std::tie(a.seconds, b.name);
  });
  if (pending.size() > kListed) pending.resize(kListed);
  // Why: Karpenter's last word on the pod, else kube-scheduler's.
  std::map<std::string, std::string, std::less<>> karpenter;
  if (Result<kube::ObjectList> events = store_.List(resources::kEvents, {}); events.ok()) {
    std::vector<const Object*> failed;
    for (const kube::SharedObject& event : events->items) {
      if (kube::StringAt(*event, {"reason"}) == "FailedScheduling" &&
          kube::StringAt(*event, {"source", "component"}) == "karpenter") {
        failed.push_back(event.get());
      }
    }
    std::stable_sort(failed.begin(), failed.end(), [](const Object* a, const Object* b) {
      return kube::StringAt(*a, {"lastTimestamp"}) < kube::StringAt(*b, {"lastTimestamp"});
    });
    for (const Object* event : failed) {
      karpenter[kube::Key(kube::StringAt(*event, {"involvedObject", "namespace"}),
                          kube::StringAt(*event, {"involvedObject", "name"}))] =
          kube::StringAt(*event, {"message"});
    }
  }
  for (PendingPod& pod : pending) {
    if (const auto said = karpenter.find(pod.name); said != karpenter.end()) {
      pod.reason = "Karpenter: " + said->second;
      continue;
    }
    const std::optional<Object> object = manager_.cluster().pods().Get(pod.name);
    const Object* conditions = object ? kube::Find(*object, {"status", "conditions"}) : nullptr;
    if (conditions == nullptr || !conditions->is_array()) continue;
    for (const Object& condition : *conditions) {
      if (kube::StringAt(condition, {"type"}) == "PodScheduled") {
        pod.reason = "kube-scheduler: " + std::string(kube::StringAt(condition, {"message"}));
      }
    }
  }
  return pending;
}

std::vector<FinalNode> World::FinalNodes() const {
  std::map<std::string, int, std::less<>> pods;
  for (const auto& pod : manager_.cluster().decoded_pods().All()) {
    if (!pod->spec.node_name.empty() && !api::IsTerminal(*pod)) ++pods[pod->spec.node_name];
  }
  std::vector<FinalNode> nodes;
  for (const auto& node : manager_.cluster().decoded_nodes().All()) {
    const api::Labels& labels = node->metadata.labels;
    nodes.push_back({node->metadata.name, LabelOf(labels, api::kLabelInstanceType),
                     CapacityTypeOf(labels), LabelOf(labels, api::kLabelZone),
                     LabelOf(labels, api::kLabelNodePool), LabelOf(labels, api::kLabelNodeGroup),
                     pods[node->metadata.name]});
  }
  return nodes;
}

Result<SimulationResult> World::Run(const Progress& progress) {
  result_.scenario = input_.scenario;
  result_.ignored = input_.ignored;
  // Before: the cluster as it runs without Karpenter.
  RETURN_IF_ERROR(Settle(/*karpenter=*/false));
  result_.before = Figures();
  Sample();
  Record("KarpenterStarted", "", "Karpenter starts with the cluster's NodePools");
  manager_.Start();

  const TimePoint end = kStart + input_.duration;
  size_t next_action = 0;
  const std::vector<Action>& actions = input_.timeline.actions;
  while (true) {
    const TimePoint now = clock_.Now();
    while (next_action < actions.size() && kStart + actions[next_action].at <= now) {
      if (Status applied = Apply(actions[next_action]); !applied.ok()) {
        return Error{fmt::format("actions at {}s: {}",
                                 std::chrono::duration<double>(actions[next_action].at).count(),
                                 applied.error().message)};
      }
      ++next_action;
    }
    RETURN_IF_ERROR(TerminateInterrupted());
    RestoreOfferings();
    RETURN_IF_ERROR(Settle(/*karpenter=*/true));
    Sample();
    if (progress) progress(std::chrono::duration<double>(now - kStart) / (end - kStart));
    if (now >= end) break;
    // The manager's timers are monotonic; on the virtual clock they run with its wall time.
    TimePoint next = std::min(now + (manager_.NextWake() - clock_.Monotonic()), end);
    if (next_action < actions.size()) next = std::min(next, kStart + actions[next_action].at);
    if (std::optional<TimePoint> wake = node_groups_.NextWake()) next = std::min(next, *wake);
    if (std::optional<TimePoint> wake = scheduler_.NextWake()) next = std::min(next, *wake);
    for (const Interrupted& interrupted : interrupted_) {
      next = std::min(next, interrupted.terminate_at);
    }
    for (const Restore& restore : restores_) next = std::min(next, restore.at);
    clock_.Set(std::max(next, now + milliseconds(1)));
  }
  result_.virtual_seconds = Seconds(clock_.Now());
  result_.after = Figures();
  result_.pods_disrupted = static_cast<int>(audit_.pods_disrupted());
  result_.pdb_violations = static_cast<int>(audit_.pdb_violations());
  result_.unschedulable_pods = static_cast<int>(pending_since_.size());
  for (const auto& [uid, since] : pending_since_) {
    result_.max_pending_seconds =
        std::max(result_.max_pending_seconds, std::chrono::duration<double>(end - since).count());
  }
  result_.still_pending = StillPending(end);
  result_.nodes = FinalNodes();
  if (input_.at_end) input_.at_end(manager_.cluster(), cloud_);
  return std::move(result_);
}

// How many pods `object` brings: a Pod one, a workload its replicas (a Job its parallelism).
int64_t PodsOf(const Object& object) {
  const std::string_view kind = kube::StringAt(object, {"kind"});
  if (kind == "Pod") return 1;
  const char* field = kind == "Job" ? "parallelism" : "replicas";
  if (kind != "Deployment" && kind != "ReplicaSet" && kind != "StatefulSet" && kind != "Job") {
    return 0;
  }
  const Object* replicas = kube::Find(object, {"spec", field});
  return replicas != nullptr && replicas->is_number_integer() ? replicas->get<int64_t>() : 1;
}

// A simulation models every pod (api/workloads.h): the objects', and every scale or apply of the
// timeline counted as new pods, at most api::kMaxModelledPods.
Status CheckModelledPods(const SimulationInput& input) {
  int64_t pods = 0;
  for (const Object& object : input.objects) pods += PodsOf(object);
  for (const Action& action : input.timeline.actions) {
    if (const auto* scale = std::get_if<ScaleWorkload>(&action.kind)) pods += scale->replicas;
    if (const auto* apply = std::get_if<ApplyObject>(&action.kind)) pods += PodsOf(apply->object);
  }
  if (pods > api::kMaxModelledPods) {
    return Error(fmt::format(
        "the scenario has {} pods (its objects' and every scale of its timeline): more than "
        "karpenter simulate models (at most {})",
        pods, api::kMaxModelledPods));
  }
  return {};
}

}  // namespace

Result<SimulationResult> Simulate(SimulationInput input, const Progress& progress) {
  RETURN_IF_ERROR(CheckModelledPods(input));
  input.assumed_priority_classes = AddMissingPriorityClasses(input.objects);
  if (input.launch_zones.empty()) {
    input.launch_zones = InferLaunchZones(input.objects, input.timeline);
    // Zones the catalog does not offer (another region's) restrict nothing.
    if (OfferedIn(input.catalog, input.launch_zones).empty()) input.launch_zones.clear();
    input.launch_zones_inferred = true;
  }
  Accuracy accuracy = AccuracyFor(input);
  // Buffers are bought with money to save waiting: the same run without them says how much of
  // each (the objects are copied first, since a run releases them as it stores them).
  std::optional<SimulationInput> without;
  if (input.capacity_buffers &&
      std::any_of(input.objects.begin(), input.objects.end(), [](const kube::Object& object) {
        return object.is_object() && object.value("kind", "") == "CapacityBuffer";
      })) {
    without = input;
    without->capacity_buffers = false;
  }
  auto world = std::make_unique<World>(input);
  RETURN_IF_ERROR(world->Load(input.objects));
  ASSIGN_OR_RETURN(SimulationResult result, world->Run(progress));
  world.reset();
  result.accuracy = std::move(accuracy);
  if (without) {
    auto baseline = std::make_unique<World>(*without);
    RETURN_IF_ERROR(baseline->Load(without->objects));
    ASSIGN_OR_RETURN(SimulationResult plain, baseline->Run({}));
    result.without_buffers =
        WithoutBuffers{plain.after.nodes, plain.after.price_per_hour, plain.max_pending_seconds};
  }
  return result;
}

}  // namespace karpenter::simulate
