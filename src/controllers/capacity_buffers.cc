#include "controllers/capacity_buffers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "api/condition.h"
#include "api/manifest.h"
#include "api/workloads.h"
#include "controllers/conditions.h"

namespace karpenter::controllers {
namespace {

// Upstream's reasons.
constexpr std::string_view kReasonResolved = "Resolved";
constexpr std::string_view kReasonPodTemplateNotFound = "PodTemplateNotFound";
constexpr std::string_view kReasonScalableRefNotFound = "ScalableRefNotFound";
constexpr std::string_view kReasonResolutionFailed = "ResolutionFailed";

const kube::Resource* WorkloadResource(std::string_view kind) {
  if (kind == "Deployment") return &kube::resources::kDeployments;
  if (kind == "StatefulSet") return &kube::resources::kStatefulSets;
  if (kind == "ReplicaSet") return &kube::resources::kReplicaSets;
  return nullptr;
}

// The buffer's copies of `pod`: in its namespace, unbound, of the lowest priority, without the
// volumes that would need claims of their own (a copy has no claims).
std::vector<std::shared_ptr<const api::Pod>> Copies(const api::CapacityBuffer& buffer,
                                                    const api::PodTemplate& pod, int32_t count) {
  api::Pod copy;
  copy.metadata = pod.metadata;
  copy.metadata.namespace_ = buffer.metadata.namespace_;
  copy.metadata.labels[std::string(kLabelBufferName)] = buffer.metadata.name;
  copy.metadata.labels[std::string(kLabelBufferNamespace)] = buffer.metadata.namespace_;
  copy.metadata.annotations[std::string(kAnnotationBufferPod)] = "true";
  copy.metadata.owner_references.clear();
  copy.spec = pod.spec;
  copy.spec.node_name.clear();
  copy.spec.priority = std::numeric_limits<int32_t>::min();
  std::erase_if(copy.spec.volumes, [](const api::Volume& volume) {
    return !volume.persistent_volume_claim.empty() || volume.ephemeral;
  });
  copy.status.phase = "Pending";
  copy.status.conditions = {{"PodScheduled", "False", "Unschedulable", ""}};
  std::vector<std::shared_ptr<const api::Pod>> copies;
  copies.reserve(static_cast<size_t>(count));
  for (int32_t i = 1; i <= count; ++i) {
    copy.metadata.name = fmt::format("capacity-buffer-{}-{}", buffer.metadata.name, i);
    copy.metadata.uid = fmt::format("{}-{}", buffer.metadata.uid, i);
    copies.push_back(std::make_shared<const api::Pod>(copy));
  }
  return copies;
}

std::string BufferKey(const api::Pod& copy) {
  return fmt::format("{}/{}", copy.metadata.namespace_,
                     api::LabelValue(copy.metadata.labels, kLabelBufferName));
}

}  // namespace

bool IsBufferPod(const api::Pod& pod) {
  return api::LabelValue(pod.metadata.annotations, kAnnotationBufferPod) == "true";
}

CapacityBuffers::CapacityBuffers(ClusterCache& cluster, kube::Client& client, const Clock& clock,
                                 Logger logger)
    : cluster_(cluster),
      client_(client),
      clock_(clock),
      logger_(std::move(logger)),
      changes_({&cluster_.capacity_buffers()}) {}

// `resource` `namespace_/name` read and decoded; `missing` is the reason when it does not exist.
Result<api::Manifest> CapacityBuffers::Read(const kube::Resource& resource,
                                            const std::string& namespace_, const std::string& name,
                                            std::string_view missing) {
  Result<kube::Object> object = client_.Get(resource, namespace_, name);
  if (!object.ok()) {
    return Error(
        fmt::format("{} {}/{}: {}", resource.kind, namespace_, name, object.error().message),
        object.error().status,
        std::string(object.error().status == 404 ? missing : kReasonResolutionFailed));
  }
  api::DecodeOutcome decoded = api::DecodeObject(*object, "cluster");
  if (!decoded.errors.empty()) {
    return Error(decoded.errors.front(), 0, std::string(kReasonResolutionFailed));
  }
  return std::move(decoded.manifest);
}

Result<CapacityBuffers::ResolvedPod> CapacityBuffers::Resolve(const api::CapacityBuffer& buffer) {
  const std::string& namespace_ = buffer.metadata.namespace_;
  ResolvedPod resolved;
  if (buffer.spec.pod_template_ref) {
    const std::string& name = *buffer.spec.pod_template_ref;
    ASSIGN_OR_RETURN(api::Manifest read, Read(kube::resources::kPodTemplates, namespace_, name,
                                              kReasonPodTemplateNotFound));
    if (read.pod_templates.empty()) {
      return Error("not a PodTemplate", 0, std::string(kReasonResolutionFailed));
    }
    api::PodTemplateObject& pod_template = read.pod_templates.front();
    resolved.pod = std::move(pod_template.template_);
    resolved.template_name = name;
    resolved.template_generation = pod_template.metadata.generation;
    return resolved;
  }
  const api::ScalableReference& ref = *buffer.spec.scalable_ref;
  const kube::Resource* resource = WorkloadResource(ref.kind);
  if (resource == nullptr) {
    return Error(fmt::format("unsupported scalableRef kind {}", ref.kind), 0,
                 std::string(kReasonResolutionFailed));
  }
  ASSIGN_OR_RETURN(api::Manifest read,
                   Read(*resource, namespace_, ref.name, kReasonScalableRefNotFound));
  if (read.workloads.empty()) {
    return Error("not a workload", 0, std::string(kReasonResolutionFailed));
  }
  api::Workload& workload = read.workloads.front();
  resolved.pod = std::move(workload.template_);
  resolved.workload_replicas = workload.replicas;
  return resolved;
}

Status CapacityBuffers::WriteStatus(const kube::Object& object, const kube::Object& status) {
  const kube::Object current = object.value("status", kube::Object::object());
  bool same = true;
  for (const auto& [key, value] : status.items()) {
    same = same && current.value(key, kube::Object()) == value;
  }
  if (same) return {};
  ASSIGN_OR_RETURN(kube::Object written,
                   PatchedStatus(client_, kube::resources::kCapacityBuffers, object, status));
  const std::string key = fmt::format("{}/{}", kube::Namespace(written), kube::Name(written));
  if (const auto buffer = buffers_.find(key); buffer != buffers_.end()) {
    buffer->second.object = std::move(written);
  }
  return {};
}

Status CapacityBuffers::Reconcile() {
  changes_.Seen();
  std::vector<kube::Object> objects;
  cluster_.capacity_buffers().ForEach(
      [&](const kube::Object& object) { objects.push_back(object); });
  std::set<std::string, std::less<>> seen;
  std::vector<std::string> failures;
  const TimePoint now = clock_.Now();
  for (const kube::Object& object : objects) {
    const std::string key = fmt::format("{}/{}", kube::Namespace(object), kube::Name(object));
    seen.insert(key);
    Buffer entry;
    entry.object = object;
    kube::Object conditions = ConditionsOf(object);
    kube::Object status = {{"provisioningStrategy", nullptr},
                           {"replicas", nullptr},
                           {"podTemplateRef", nullptr},
                           {"podTemplateGeneration", nullptr}};
    std::string error;
    const std::optional<api::CapacityBuffer> buffer = DecodeCapacityBuffer(object, &error);
    if (!buffer) {
      SetCondition(conditions, kConditionReadyForProvisioning, false, kReasonResolutionFailed,
                   error, now, kube::Generation(object));
    } else {
      status["provisioningStrategy"] = buffer->spec.provisioning_strategy;
      Result<ResolvedPod> resolved = Resolve(*buffer);
      if (!resolved.ok()) {
        SetCondition(conditions, kConditionReadyForProvisioning, false, resolved.error().reason,
                     resolved.error().message, now, kube::Generation(object));
      } else {
        const int32_t replicas =
            std::min(api::BufferReplicas(buffer->spec, resolved->workload_replicas,
                                         api::SchedulingRequests(resolved->pod.spec)),
                     api::kMaxModelledReplicas);
        entry.ready = true;
        entry.replicas = replicas;
        entry.copies = Copies(*buffer, resolved->pod, replicas);
        status["replicas"] = replicas;
        if (resolved->template_name) {
          status["podTemplateRef"] = {{"name", *resolved->template_name}};
          status["podTemplateGeneration"] = *resolved->template_generation;
        }
        SetCondition(conditions, kConditionReadyForProvisioning, true, kReasonResolved,
                     "Pod template resolved successfully", now, kube::Generation(object));
      }
    }
    status["conditions"] = std::move(conditions);
    buffers_.insert_or_assign(key, std::move(entry));
    if (Status written = WriteStatus(object, status); !written.ok()) {
      failures.push_back(fmt::format("CapacityBuffer {}: {}", key, written.error().message));
    }
  }
  std::erase_if(buffers_, [&](const auto& entry) { return !seen.contains(entry.first); });
  // A buffer gone or asking for fewer copies releases its room now, not at the next provisioning
  // pass (which nothing may call for).
  std::map<std::string, int32_t, std::less<>> kept;
  std::erase_if(placed_, [&](const Placed& placed) {
    const auto buffer = buffers_.find(BufferKey(*placed.copy));
    return buffer == buffers_.end() || !buffer->second.ready ||
           ++kept[buffer->first] > buffer->second.replicas;
  });
  if (!failures.empty()) return Error(fmt::format("{}", fmt::join(failures, "; ")));
  return {};
}

bool CapacityBuffers::Wanted() const {
  return std::any_of(buffers_.begin(), buffers_.end(),
                     [](const auto& entry) { return entry.second.replicas > 0; });
}

std::vector<std::shared_ptr<const api::Pod>> CapacityBuffers::PendingCopies() const {
  std::vector<std::shared_ptr<const api::Pod>> copies;
  for (const auto& [key, buffer] : buffers_) {
    copies.insert(copies.end(), buffer.copies.begin(), buffer.copies.end());
  }
  return copies;
}

std::vector<std::shared_ptr<const api::Pod>> CapacityBuffers::BoundCopies() const {
  std::vector<std::shared_ptr<const api::Pod>> bound;
  bound.reserve(placed_.size());
  for (const Placed& placed : placed_) {
    // A NodeClaim that was in flight then may have its Node by now.
    std::string node = placed.target;
    if (!cluster_.nodes().Contains(node)) {
      const std::shared_ptr<const api::NodeClaim> claim =
          cluster_.decoded_node_claims().Get(placed.target);
      if (!claim || claim->status.node_name.empty()) continue;
      node = claim->status.node_name;
    }
    auto copy = std::make_shared<api::Pod>(*placed.copy);
    copy->spec.node_name = std::move(node);
    copy->status.conditions.clear();
    copy->status.phase = "Running";
    bound.push_back(std::move(copy));
  }
  return bound;
}

Status CapacityBuffers::RecordPass(const provisioning::SchedulerResult& scheduled) {
  struct Outcome {
    int fits = 0;
    int launches = 0;
    int fails = 0;
  };
  std::map<std::string, Outcome, std::less<>> outcomes;
  for (const provisioning::PlannedNodeClaim& claim : scheduled.node_claims) {
    for (const api::Pod* pod : claim.pods) {
      if (IsBufferPod(*pod)) ++outcomes[BufferKey(*pod)].launches;
    }
  }
  placed_.clear();
  for (const provisioning::ExistingPlacement& placement : scheduled.existing) {
    for (const api::Pod* pod : placement.pods) {
      if (!IsBufferPod(*pod)) continue;
      ++outcomes[BufferKey(*pod)].fits;
      placed_.push_back({std::make_shared<const api::Pod>(*pod), placement.node});
    }
  }
  for (const provisioning::UnschedulablePod& unschedulable : scheduled.unschedulable) {
    if (IsBufferPod(*unschedulable.pod)) ++outcomes[BufferKey(*unschedulable.pod)].fails;
  }

  std::vector<std::string> failures;
  const TimePoint now = clock_.Now();
  for (const auto& [key, buffer] : buffers_) {
    kube::Object conditions = ConditionsOf(buffer.object);
    const int64_t generation = kube::Generation(buffer.object);
    const Outcome outcome = outcomes.contains(key) ? outcomes.at(key) : Outcome{};
    if (!buffer.ready) {
      SetCondition(conditions, kConditionProvisioning, false, "NotReadyForProvisioning",
                   "Buffer is not ReadyForProvisioning", now, generation);
    } else if (buffer.replicas == 0) {
      SetCondition(conditions, kConditionProvisioning, false, "BufferEmpty",
                   "Buffer has zero desired replicas", now, generation);
    } else if (outcome.launches > 0 || outcome.fails > 0) {
      SetCondition(conditions, kConditionProvisioning, false, "RequiresNewCapacity",
                   fmt::format("{}/{} virtual pods required new capacity, {} failed",
                               outcome.launches, buffer.replicas, outcome.fails),
                   now, generation);
    } else {
      SetCondition(conditions, kConditionProvisioning, true, "FitsExistingCapacity",
                   fmt::format("All {} virtual pods fit on existing capacity", buffer.replicas),
                   now, generation);
    }
    if (Status written = WriteStatus(buffer.object, {{"conditions", std::move(conditions)}});
        !written.ok()) {
      failures.push_back(fmt::format("CapacityBuffer {}: {}", key, written.error().message));
    }
  }
  if (!failures.empty()) return Error(fmt::format("{}", fmt::join(failures, "; ")));
  return {};
}

}  // namespace karpenter::controllers
