#include "controllers/provisioner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "api/encode.h"
#include "api/labels.h"
#include "controllers/nodepool_hash.h"
#include "controllers/object_refs.h"

namespace karpenter::controllers {
namespace {

// Upstream's cap on the instance types a NodeClaim carries (and a launch considers).
constexpr size_t kMaxInstanceTypes = 60;

bool IsTerminal(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

const api::Condition* FindCondition(const std::vector<api::Condition>& conditions,
                                    std::string_view type) {
  for (const api::Condition& condition : conditions) {
    if (condition.type == type) return &condition;
  }
  return nullptr;
}

bool ConditionTrue(const std::vector<api::Condition>& conditions, std::string_view type) {
  const api::Condition* condition = FindCondition(conditions, type);
  return condition != nullptr && condition->status == "True";
}

std::string RandomSuffix(std::mt19937_64& random) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out(5, 'x');
  for (char& c : out) c = kAlphabet[random() % kAlphabet.size()];
  return out;
}

// Everything one pass reads, decoded, owning what the SchedulerInput points into.
struct Snapshot {
  std::vector<api::Pod> pods;
  std::vector<api::NodePool> node_pools;
  std::vector<kube::Object> node_pool_objects;  // parallel to node_pools
  std::vector<std::shared_ptr<const std::vector<cloud::InstanceType>>> instance_types;
  std::vector<api::NodeClaim> node_claims;
  std::vector<api::Node> nodes;
  std::vector<api::Workload> daemon_sets;
};

}  // namespace

void Batcher::Trigger(TimePoint now) {
  std::lock_guard lock(mutex_);
  if (!first_) first_ = now;
  last_ = now;
}

bool Batcher::Ready(TimePoint now) {
  std::lock_guard lock(mutex_);
  if (!first_) return false;
  if (now - last_ < options_.idle && now - *first_ < options_.max) return false;
  first_.reset();
  return true;
}

std::optional<TimePoint> Batcher::Deadline() const {
  std::lock_guard lock(mutex_);
  if (!first_) return std::nullopt;
  return std::min(last_ + options_.idle, *first_ + options_.max);
}

bool IsProvisionable(const api::Pod& pod) {
  if (!pod.spec.node_name.empty() || !pod.metadata.deletion_timestamp.empty() || IsTerminal(pod) ||
      api::IsDaemonSetPod(pod)) {
    return false;
  }
  for (const api::PodCondition& condition : pod.status.conditions) {
    if (condition.type == "PodScheduled") {
      return condition.status == "False" && condition.reason == "Unschedulable";
    }
  }
  return false;
}

Provisioner::Provisioner(ClusterCache& cluster, kube::Client& client, cloud::CloudProvider& cloud,
                         kube::EventRecorder& events, const Clock& clock, Logger logger,
                         uint64_t seed)
    : cluster_(cluster),
      client_(client),
      cloud_(cloud),
      events_(events),
      clock_(clock),
      logger_(std::move(logger)),
      random_(seed) {}

Result<ProvisioningResult> Provisioner::Provision() {
  Snapshot snapshot;
  cluster_.pods().ForEach([&](const kube::Object& object) {
    if (std::optional<api::Pod> pod = DecodePod(object)) snapshot.pods.push_back(std::move(*pod));
  });
  std::vector<const api::Pod*> pending;
  std::map<std::string, std::vector<const api::Pod*>, std::less<>> pods_by_node;
  for (const api::Pod& pod : snapshot.pods) {
    if (IsProvisionable(pod)) {
      pending.push_back(&pod);
    } else if (!pod.spec.node_name.empty() && !IsTerminal(pod)) {
      pods_by_node[pod.spec.node_name].push_back(&pod);
    }
  }
  ProvisioningResult result;
  if (pending.empty()) return result;

  cluster_.node_claims().ForEach([&](const kube::Object& object) {
    std::optional<api::NodeClaim> claim = DecodeNodeClaim(object);
    if (claim && claim->metadata.deletion_timestamp.empty()) {
      snapshot.node_claims.push_back(std::move(*claim));
    }
  });
  cluster_.node_pools().ForEach([&](const kube::Object& object) {
    std::string error;
    std::optional<api::NodePool> pool = DecodeNodePool(object, &error);
    if (!pool) {
      logger_.Error("skipping an invalid NodePool", {{"error", error}});
      return;
    }
    if (!pool->metadata.deletion_timestamp.empty()) return;
    const api::NodeClassReference& ref = pool->spec.template_.spec.node_class_ref;
    if (!cluster_.node_classes().Get(ref.name)) return;  // NodeClassReady=False: see status
    snapshot.node_pools.push_back(std::move(*pool));
    snapshot.node_pool_objects.push_back(object);
  });
  cluster_.daemon_sets().ForEach([&](const kube::Object& object) {
    if (std::optional<api::Workload> ds = DecodeDaemonSet(object)) {
      snapshot.daemon_sets.push_back(std::move(*ds));
    }
  });
  cluster_.nodes().ForEach([&](const kube::Object& object) {
    std::optional<api::Node> node = DecodeNode(object);
    if (node && node->metadata.deletion_timestamp.empty()) {
      snapshot.nodes.push_back(std::move(*node));
    }
  });

  scheduling::SchedulerInput input;
  input.pods = pending;
  for (size_t i = 0; i < snapshot.node_pools.size(); ++i) {
    const api::NodePool& pool = snapshot.node_pools[i];
    Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> types =
        cloud_.GetInstanceTypes(pool);
    if (!types.ok()) {
      logger_.Error("listing instance types failed",
                    {logkey::NodePool(pool.metadata.name), logkey::Err(types.error())});
      snapshot.instance_types.push_back(nullptr);
      continue;
    }
    snapshot.instance_types.push_back(*types);
  }
  for (size_t i = 0; i < snapshot.node_pools.size(); ++i) {
    if (snapshot.instance_types[i] == nullptr) continue;
    const api::NodePool& pool = snapshot.node_pools[i];
    scheduling::NodePoolOffer offer;
    offer.node_pool = &pool;
    for (const cloud::InstanceType& type : *snapshot.instance_types[i]) {
      offer.instance_types.push_back(&type);
    }
    for (const api::NodeClaim& claim : snapshot.node_claims) {
      const auto it = claim.metadata.labels.find(api::kLabelNodePool);
      if (it == claim.metadata.labels.end() || it->second != pool.metadata.name) continue;
      offer.in_use +=
          claim.status.capacity.empty() ? claim.spec.resource_requests : claim.status.capacity;
      offer.in_use.Add("nodes", Quantity::FromUnits(1));
    }
    input.node_pools.push_back(std::move(offer));
  }
  for (const api::Workload& ds : snapshot.daemon_sets) input.daemon_sets.push_back(&ds.template_);

  std::map<std::string, const api::NodeClaim*, std::less<>> claims_by_provider_id;
  for (const api::NodeClaim& claim : snapshot.node_claims) {
    if (!claim.status.provider_id.empty()) {
      claims_by_provider_id.emplace(claim.status.provider_id, &claim);
    }
  }
  std::set<std::string, std::less<>> claims_with_nodes;
  std::set<std::string, std::less<>> in_flight_claims;
  for (const api::Node& node : snapshot.nodes) {
    scheduling::ExistingNode existing;
    existing.name = node.metadata.name;
    existing.labels = node.metadata.labels;
    existing.labels.emplace(api::kLabelHostname, node.metadata.name);
    existing.allocatable = node.status.allocatable;
    const auto claim = claims_by_provider_id.find(node.spec.provider_id);
    const bool initializing = claim != claims_by_provider_id.end() &&
                              !ConditionTrue(claim->second->status.conditions, "Initialized");
    if (claim != claims_by_provider_id.end()) {
      claims_with_nodes.insert(claim->second->metadata.name);
      if (existing.allocatable.empty()) existing.allocatable = claim->second->status.allocatable;
    }
    for (const api::Taint& taint : node.spec.taints) {
      // A node still starting keeps its startup taints and karpenter.sh/unregistered only
      // until it is ready: pods headed there must not make us launch more.
      if (initializing && (taint.key == api::kTaintUnregistered ||
                           std::find(claim->second->spec.startup_taints.begin(),
                                     claim->second->spec.startup_taints.end(),
                                     taint) != claim->second->spec.startup_taints.end() ||
                           taint.key == "node.kubernetes.io/not-ready")) {
        continue;
      }
      existing.taints.push_back(taint);
    }
    if (node.spec.unschedulable) {
      existing.taints.push_back(
          {"node.kubernetes.io/unschedulable", "", api::TaintEffect::kNoSchedule});
    }
    if (const auto pods = pods_by_node.find(node.metadata.name); pods != pods_by_node.end()) {
      existing.pods = pods->second;
    }
    input.existing_nodes.push_back(std::move(existing));
  }
  for (const api::NodeClaim& claim : snapshot.node_claims) {
    if (claims_with_nodes.contains(claim.metadata.name)) continue;
    in_flight_claims.insert(claim.metadata.name);
    scheduling::ExistingNode in_flight;
    in_flight.name = claim.metadata.name;
    in_flight.in_flight = true;
    in_flight.requirements = scheduling::Requirements::FromNodeSelector(claim.spec.requirements);
    in_flight.labels = in_flight.requirements.SingleValueLabels();
    for (const auto& [key, value] : claim.metadata.labels) in_flight.labels[key] = value;
    in_flight.taints = claim.spec.taints;
    in_flight.allocatable =
        claim.status.allocatable.empty() ? claim.spec.resource_requests : claim.status.allocatable;
    input.existing_nodes.push_back(std::move(in_flight));
  }

  const scheduling::SchedulerResult scheduled = scheduling::Schedule(input);

  for (const scheduling::PlannedNodeClaim& planned : scheduled.node_claims) {
    const auto pool =
        std::find_if(snapshot.node_pools.begin(), snapshot.node_pools.end(),
                     [&](const api::NodePool& p) { return p.metadata.name == planned.node_pool; });
    const kube::Object& pool_object =
        snapshot.node_pool_objects[static_cast<size_t>(pool - snapshot.node_pools.begin())];
    Result<kube::Object> created = CreateNodeClaim(planned, pool_object);
    if (!created.ok()) {
      logger_.Error("creating nodeclaim failed",
                    {logkey::NodePool(planned.node_pool), logkey::Err(created.error())});
      continue;
    }
    const std::string name(kube::Name(*created));
    result.node_claims.push_back(name);
    logger_.Info("created nodeclaim", {logkey::NodePool(planned.node_pool),
                                       logkey::NodeClaim(name),
                                       {"requests", api::Encode(planned.requests)},
                                       {"instance-types", planned.instance_types.size()},
                                       {"pods", planned.pods.size()}});
    for (const api::Pod* pod : planned.pods) {
      (void)events_.Record(PodReference(*pod), kube::EventType::kNormal, "Nominated",
                           fmt::format("Pod should schedule on: nodeclaim/{}", name));
      ++result.pods_nominated;
    }
  }
  for (const scheduling::ExistingPlacement& placement : scheduled.existing) {
    const bool claim = in_flight_claims.contains(placement.node);
    for (const api::Pod* pod : placement.pods) {
      (void)events_.Record(PodReference(*pod), kube::EventType::kNormal, "Nominated",
                           fmt::format("Pod should schedule on: {}/{}",
                                       claim ? "nodeclaim" : "node", placement.node));
      ++result.pods_nominated;
    }
  }
  for (const scheduling::UnschedulablePod& unschedulable : scheduled.unschedulable) {
    (void)events_.Record(PodReference(*unschedulable.pod), kube::EventType::kWarning,
                         "FailedScheduling",
                         fmt::format("Failed to schedule pod, {}", unschedulable.reason));
    ++result.pods_unschedulable;
  }
  if (!scheduled.unschedulable.empty()) {
    logger_.Warn("could not schedule pods", {{"pods", scheduled.unschedulable.size()},
                                             {"example", scheduled.unschedulable.front().reason}});
  }
  return result;
}

Result<kube::Object> Provisioner::CreateNodeClaim(const scheduling::PlannedNodeClaim& planned,
                                                  const kube::Object& node_pool) {
  const kube::Object& template_ = node_pool["spec"]["template"];
  kube::Object labels = kube::Object::object();
  kube::Object annotations = kube::Object::object();
  if (const auto meta = template_.find("metadata"); meta != template_.end() && meta->is_object()) {
    if (const auto it = meta->find("labels"); it != meta->end() && it->is_object()) labels = *it;
    if (const auto it = meta->find("annotations"); it != meta->end() && it->is_object()) {
      annotations = *it;
    }
  }
  labels[std::string(api::kLabelNodePool)] = planned.node_pool;
  annotations[std::string(kAnnotationNodePoolHash)] = NodePoolHash(node_pool);
  annotations[std::string(kAnnotationNodePoolHashVersion)] = kNodePoolHashVersion;

  std::vector<api::NodeSelectorRequirement> requirements = planned.requirements.ToNodeSelector();
  for (api::NodeSelectorRequirement& requirement : requirements) {
    if (requirement.key != api::kLabelInstanceType) continue;
    // The cheapest options, as many as a launch considers (more when minValues asks for more).
    const size_t keep = std::max<size_t>(kMaxInstanceTypes, requirement.min_values.value_or(0));
    requirement.values.clear();
    for (const cloud::InstanceType* type : planned.instance_types) {
      if (requirement.values.size() == keep) break;
      requirement.values.push_back(type->name);
    }
  }
  const kube::Object& template_spec = template_["spec"];
  kube::Object spec = {{"requirements", api::Encode(requirements)},
                       {"resources", {{"requests", api::Encode(planned.requests)}}},
                       {"nodeClassRef", template_spec.value("nodeClassRef", kube::Object())}};
  for (const char* field : {"taints", "startupTaints", "expireAfter", "terminationGracePeriod"}) {
    if (const auto it = template_spec.find(field); it != template_spec.end()) spec[field] = *it;
  }
  for (int attempt = 0;; ++attempt) {
    kube::Object claim = {
        {"apiVersion", "karpenter.sh/v1"},
        {"kind", "NodeClaim"},
        {"metadata",
         {{"name", fmt::format("{}-{}", planned.node_pool, RandomSuffix(random_))},
          {"labels", labels},
          {"annotations", annotations},
          {"finalizers", {api::kFinalizerTermination}},
          {"ownerReferences",
           {{{"apiVersion", "karpenter.sh/v1"},
             {"kind", "NodePool"},
             {"name", planned.node_pool},
             {"uid", std::string(kube::Uid(node_pool))},
             {"blockOwnerDeletion", true}}}}}},
        {"spec", spec}};
    Result<kube::Object> created =
        client_.Create(kube::resources::kNodeClaims, claim, kube::WriteOptions{});
    if (created.ok() || created.error().status != 409 || attempt == 3) return created;
  }
}

}  // namespace karpenter::controllers
