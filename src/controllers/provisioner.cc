#include "controllers/provisioner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <utility>

#include "api/encode.h"
#include "api/labels.h"
#include "api/object_meta.h"
#include "common/mutex.h"
#include "controllers/nodeclass_hash.h"
#include "controllers/nodepool_hash.h"
#include "controllers/object_refs.h"
#include "controllers/owner_references.h"

namespace karpenter::controllers {
namespace {

// Upstream's cap on the instance types a NodeClaim carries (and a launch considers).
constexpr size_t kMaxInstanceTypes = 60;

std::string RandomSuffix(std::mt19937_64& random) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out(5, 'x');
  for (char& c : out) c = kAlphabet[random() % kAlphabet.size()];
  return out;
}

}  // namespace

void Batcher::Trigger(MonoTime now) {
  MutexLock lock(mutex_);
  if (!first_) first_ = now;
  last_ = now;
}

bool Batcher::Ready(MonoTime now) {
  MutexLock lock(mutex_);
  if (!first_) return false;
  if (now - last_ < options_.idle && now - *first_ < options_.max) return false;
  first_.reset();
  return true;
}

std::optional<MonoTime> Batcher::Deadline() const {
  MutexLock lock(mutex_);
  if (!first_) return std::nullopt;
  return std::min(last_ + options_.idle, *first_ + options_.max);
}

bool IsProvisionable(const api::Pod& pod) {
  // A pod kube-scheduler nominated a node for is preempting lower-priority pods there: it binds
  // once they are gone, and capacity launched for it would stand empty.
  if (!pod.spec.node_name.empty() || !pod.status.nominated_node_name.empty() ||
      !pod.metadata.deletion_timestamp.empty() || api::IsTerminal(pod) ||
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
                         kube::EventRecorder& events, Metrics& metrics, Logger logger,
                         uint64_t seed, provisioning::SchedulingPolicy policy,
                         CapacityBuffers* buffers)
    : cluster_(cluster),
      client_(client),
      cloud_(cloud),
      events_(events),
      metrics_(metrics),
      logger_(std::move(logger)),
      random_(seed),
      policy_(policy),
      buffers_(buffers) {}

std::vector<std::shared_ptr<const api::Pod>> Provisioner::BufferCopies() const {
  return buffers_ != nullptr ? buffers_->BoundCopies()
                             : std::vector<std::shared_ptr<const api::Pod>>{};
}

Result<ProvisioningResult> Provisioner::Provision() {
  std::vector<std::shared_ptr<const api::Pod>> pods = cluster_.decoded_pods().All();
  ProvisioningResult result;
  const auto deleting = [](const auto& claim) {
    return !claim->metadata.deletion_timestamp.empty();
  };
  const std::vector<std::shared_ptr<const api::NodeClaim>> claims =
      cluster_.decoded_node_claims().All();
  // CapacityBuffers' copies of pods: planned for as pending pods (never bound, no Events).
  const std::vector<std::shared_ptr<const api::Pod>> copies =
      buffers_ != nullptr ? buffers_->PendingCopies()
                          : std::vector<std::shared_ptr<const api::Pod>>{};
  if (std::none_of(pods.begin(), pods.end(),
                   [](const auto& pod) { return IsProvisionable(*pod); }) &&
      std::none_of(claims.begin(), claims.end(), deleting) && copies.empty()) {
    if (buffers_ != nullptr) {
      // Buffers that ask for nothing still say so.
      if (Status recorded = buffers_->RecordPass({}); !recorded.ok()) {
        logger_.Error("writing capacity buffers' provisioning status failed",
                      {logkey::Err(recorded.error())});
      }
    }
    return result;
  }
  const ClusterSnapshot snapshot = TakeSnapshot(cluster_, cloud_, logger_, std::move(pods));
  SchedulingView view = BuildSchedulingView(snapshot);
  provisioning::SchedulerInput& input = view.input;
  input.policy = policy_;
  for (const auto& pod : snapshot.pods) {
    if (IsProvisionable(*pod)) input.pods.push_back(pod.get());
  }
  for (const auto& copy : copies) input.pods.push_back(copy.get());
  // The pods of a Node whose NodeClaim is being deleted need a new home before they are evicted:
  // planned as if pending (unbound copies), so that their capacity launches while the Node drains.
  std::deque<api::Pod> displaced;
  for (size_t i = 0; i < view.sources.size(); ++i) {
    const CapacitySource& source = view.sources[i];
    if (source.node == nullptr || source.node_claim == nullptr ||
        source.node_claim->metadata.deletion_timestamp.empty()) {
      continue;
    }
    AddDisplacedPods(input.existing_nodes[i], displaced, input.pods);
  }
  std::map<std::string_view, provisioning::ExistingNode*> in_flight_nodes;
  for (provisioning::ExistingNode& node : input.existing_nodes) {
    if (node.in_flight) in_flight_nodes.emplace(node.name, &node);
  }
  // Only after a pass that nominated pods: naming every pending pod costs a string each.
  for (const api::Pod* pod : input.pods) {
    if (nominations_.empty()) break;
    const auto nominated = nominations_.find(api::NamespacedName(pod->metadata));
    if (nominated == nominations_.end()) continue;
    if (const auto node = in_flight_nodes.find(nominated->second); node != in_flight_nodes.end()) {
      node->second->nominated.push_back(pod);
    }
  }

  metrics_.SchedulingStarted(kSchedulerProvisioner, input.pods.size());
  const auto started = std::chrono::steady_clock::now();
  const provisioning::SchedulerResult scheduled = provisioning::Schedule(input);
  metrics_.SchedulingFinished(kSchedulerProvisioner, std::chrono::steady_clock::now() - started,
                              scheduled.unschedulable.size());

  nominations_.clear();
  for (const provisioning::PlannedNodeClaim& planned : scheduled.node_claims) {
    const auto pool = std::find_if(
        snapshot.node_pools.begin(), snapshot.node_pools.end(),
        [&](const NodePoolView& p) { return p.pool.metadata.name == planned.node_pool; });
    Result<kube::Object> created = CreateNodeClaim(planned, pool->object);
    if (!created.ok()) {
      logger_.Error("creating nodeclaim failed",
                    {logkey::NodePool(planned.node_pool), logkey::Err(created.error())});
      continue;
    }
    const std::string name(kube::Name(*created));
    result.node_claims.push_back(name);
    metrics_.NodeClaimCreated("provisioned", planned.node_pool,
                              !planned.relaxed_min_values.empty());
    logger_.Info("created nodeclaim", {logkey::NodePool(planned.node_pool),
                                       logkey::NodeClaim(name),
                                       {"requests", api::Encode(planned.requests)},
                                       {"instance-types", planned.instance_types.size()},
                                       {"pods", planned.pods.size()}});
    for (const api::Pod* pod : planned.pods) {
      nominations_.emplace(api::NamespacedName(pod->metadata), name);
      if (IsBufferPod(*pod)) continue;
      events_.Record(PodReference(*pod), kube::EventType::kNormal, "Nominated",
                     fmt::format("Pod should schedule on: nodeclaim/{}", name));
      ++result.pods_nominated;
    }
  }
  for (const provisioning::ExistingPlacement& placement : scheduled.existing) {
    const bool claim = in_flight_nodes.contains(placement.node);
    for (const api::Pod* pod : placement.pods) {
      if (claim) nominations_.emplace(api::NamespacedName(pod->metadata), placement.node);
      if (IsBufferPod(*pod)) continue;
      events_.Record(PodReference(*pod), kube::EventType::kNormal, "Nominated",
                     fmt::format("Pod should schedule on: {}/{}", claim ? "nodeclaim" : "node",
                                 placement.node));
      ++result.pods_nominated;
    }
  }
  for (const provisioning::UnschedulablePod& unschedulable : scheduled.unschedulable) {
    if (IsBufferPod(*unschedulable.pod)) continue;
    events_.Record(PodReference(*unschedulable.pod), kube::EventType::kWarning, "FailedScheduling",
                   fmt::format("Failed to schedule pod, {}", unschedulable.reason));
    ++result.pods_unschedulable;
  }
  if (result.pods_unschedulable > 0) {
    logger_.Warn("could not schedule pods", {{"pods", result.pods_unschedulable},
                                             {"example", scheduled.unschedulable.front().reason}});
  }
  if (buffers_ != nullptr) {
    if (Status recorded = buffers_->RecordPass(scheduled); !recorded.ok()) {
      logger_.Error("writing capacity buffers' provisioning status failed",
                    {logkey::Err(recorded.error())});
    }
  }
  return result;
}

Result<kube::Object> Provisioner::CreateNodeClaim(const provisioning::PlannedNodeClaim& planned,
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
  if (!planned.relaxed_min_values.empty()) {
    annotations[std::string(api::kAnnotationMinValuesRelaxed)] = "true";
  }
  annotations[std::string(kAnnotationNodePoolHash)] = NodePoolHash(node_pool);
  annotations[std::string(kAnnotationNodePoolHashVersion)] = kNodePoolHashVersion;
  const std::string_view class_name = kube::StringAt(template_, {"spec", "nodeClassRef", "name"});
  if (std::optional<kube::Object> node_class = cluster_.node_classes().Get(class_name)) {
    annotations[std::string(kAnnotationNodeClassHash)] = NodeClassHash(*node_class);
    annotations[std::string(kAnnotationNodeClassHashVersion)] = kNodeClassHashVersion;
  }

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
          {"ownerReferences", kube::Object::array({BlockingOwnerReference(
                                  "NodePool", planned.node_pool, kube::Uid(node_pool))})}}},
        {"spec", spec}};
    Result<kube::Object> created =
        client_.Create(kube::resources::kNodeClaims, claim, kube::WriteOptions{});
    if (created.ok()) {
      if (!planned.relaxed_min_values.empty()) {
        events_.Record(*created, kube::EventType::kWarning, "MinValuesRelaxed",
                       fmt::format("minValues lowered to what the instance types left could meet "
                                   "(MIN_VALUES_POLICY=BestEffort): {}",
                                   fmt::join(planned.relaxed_min_values, ", ")));
      }
      return created;
    }
    if (created.error().status != 409 || attempt == 3) {
      return ExplainOwnerReferenceDenial(created.error(), "nodepools");
    }
  }
}

}  // namespace karpenter::controllers
