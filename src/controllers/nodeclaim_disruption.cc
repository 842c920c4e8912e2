#include "controllers/nodeclaim_disruption.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "api/condition.h"
#include "api/labels.h"
#include "common/mutex.h"
#include "controllers/conditions.h"
#include "controllers/disruption_count.h"
#include "controllers/nodeclass_hash.h"
#include "controllers/nodepool_hash.h"
#include "scheduling/requirements.h"

namespace karpenter::controllers {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kConflictRetry(200);

bool IsGone(kube::WatchEventType type, const kube::Object& pod) {
  if (type == kube::WatchEventType::kDeleted || !kube::DeletionTimestamp(pod).empty()) {
    return true;
  }
  const std::string_view phase = kube::StringAt(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

milliseconds Until(TimePoint when, TimePoint now) {
  return std::max(milliseconds(1), std::chrono::ceil<milliseconds>(when - now));
}

// Whether `annotation` of `claim` was made with the same hash version as `version` and differs
// from `current`.
bool HashDrifted(const kube::Object& claim, std::string_view annotation,
                 std::string_view version_annotation, std::string_view version,
                 const std::string& current) {
  const std::string_view stamped = kube::Annotation(claim, annotation);
  return !stamped.empty() && kube::Annotation(claim, version_annotation) == version &&
         stamped != current;
}

}  // namespace

NodeClaimDisruption::NodeClaimDisruption(ClusterCache& cluster, kube::Client& client,
                                         cloud::CloudProvider& cloud, kube::EventRecorder& events,
                                         Metrics& metrics, const Clock& clock, Logger logger)
    : cluster_(cluster),
      client_(client),
      cloud_(cloud),
      events_(events),
      metrics_(metrics),
      clock_(clock),
      logger_(std::move(logger)) {}

std::optional<std::string> NodeClaimDisruption::ObservePod(kube::WatchEventType type,
                                                           const kube::Object& pod) {
  const std::string uid(kube::Uid(pod));
  const std::string_view node = kube::StringAt(pod, {"spec", "nodeName"});
  MutexLock lock(mutex_);
  const auto known = bound_pods_.find(uid);
  if (IsGone(type, pod)) {
    if (known == bound_pods_.end()) return std::nullopt;
    std::string left = std::move(known->second);
    bound_pods_.erase(known);
    last_pod_event_[left] = clock_.Now();
    return left;
  }
  if (node.empty() || known != bound_pods_.end()) return std::nullopt;
  bound_pods_.emplace(uid, std::string(node));
  last_pod_event_[std::string(node)] = clock_.Now();
  return std::string(node);
}

std::optional<TimePoint> NodeClaimDisruption::LastPodEvent(std::string_view node) const {
  MutexLock lock(mutex_);
  const auto it = last_pod_event_.find(node);
  if (it == last_pod_event_.end()) return std::nullopt;
  return it->second;
}

void NodeClaimDisruption::ForgetNode(std::string_view node) {
  MutexLock lock(mutex_);
  if (const auto it = last_pod_event_.find(node); it != last_pod_event_.end()) {
    last_pod_event_.erase(it);
  }
}

void NodeClaimDisruption::ForgetPodEvent(std::string_view node, TimePoint written) {
  MutexLock lock(mutex_);
  const auto it = last_pod_event_.find(node);
  if (it != last_pod_event_.end() && it->second <= written) last_pod_event_.erase(it);
}

std::string NodeClaimDisruption::DriftReason(const kube::Object& claim_object,
                                             const api::NodeClaim& claim,
                                             const kube::Object& node_pool_object,
                                             const kube::Object* node) const {
  if (HashDrifted(claim_object, kAnnotationNodePoolHash, kAnnotationNodePoolHashVersion,
                  kNodePoolHashVersion, NodePoolHash(node_pool_object))) {
    return std::string(api::kDriftNodePool);
  }
  const std::string_view class_name =
      kube::StringAt(claim_object, {"spec", "nodeClassRef", "name"});
  if (std::optional<kube::Object> node_class = cluster_.node_classes().Get(class_name);
      node_class &&
      HashDrifted(claim_object, kAnnotationNodeClassHash, kAnnotationNodeClassHashVersion,
                  kNodeClassHashVersion, NodeClassHash(*node_class))) {
    return std::string(api::kDriftNodeClass);
  }
  if (node == nullptr) return "";
  const std::optional<api::Node> decoded = DecodeNode(*node);
  const std::optional<api::NodePool> pool = DecodeNodePool(node_pool_object);
  if (!decoded || !pool) return "";
  scheduling::Requirements requirements =
      scheduling::Requirements::FromLabels(pool->spec.template_.metadata.labels);
  requirements.Add(
      scheduling::Requirements::FromNodeSelector(pool->spec.template_.spec.requirements));
  if (!requirements.Matches(decoded->metadata.labels)) return std::string(api::kDriftRequirements);
  const auto type = decoded->metadata.labels.find(api::kLabelInstanceType);
  if (type != decoded->metadata.labels.end()) {
    Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> types =
        cloud_.GetInstanceTypes(*pool);
    if (types.ok() &&
        std::none_of((*types)->begin(), (*types)->end(),
                     [&](const cloud::InstanceType& it) { return it.name == type->second; })) {
      return std::string(api::kDriftInstanceTypeNotFound);
    }
  }
  // What the cloud resolves now (the AWS provider: AMIs, subnets, security groups).
  Result<std::string> cloud_drift = cloud_.IsDrifted(claim);
  if (!cloud_drift.ok()) {
    // Undecided: the next reconcile asks again.
    logger_.Warn("checking drift with the cloud provider",
                 {logkey::NodeClaim(claim.metadata.name), {"error", cloud_drift.error().message}});
    return "";
  }
  return std::move(*cloud_drift);
}

Result<std::optional<milliseconds>> NodeClaimDisruption::Reconcile(std::string_view name) {
  const std::optional<kube::Object> object = cluster_.node_claims().Get(name);
  if (!object || !kube::DeletionTimestamp(*object).empty()) return std::optional<milliseconds>();
  std::string error;
  const std::optional<api::NodeClaim> claim = DecodeNodeClaim(*object, &error);
  if (!claim) return std::optional<milliseconds>();  // the lifecycle reports it
  const TimePoint now = clock_.Now();
  std::optional<milliseconds> requeue;
  auto requeue_at = [&](TimePoint when) {
    const milliseconds wait = Until(when, now);
    if (!requeue || wait < *requeue) requeue = wait;
  };

  if (claim->spec.expire_after && !claim->spec.expire_after->never()) {
    const std::optional<TimePoint> created = ParseTime(claim->metadata.creation_timestamp);
    if (created) {
      const TimePoint expires = *created + claim->spec.expire_after->value();
      if (now >= expires) {
        const std::string message =
            fmt::format("expired after {}", claim->spec.expire_after->ToString());
        events_.Record(*object, kube::EventType::kNormal, "Expired", message);
        logger_.Info("deleting expired nodeclaim",
                     {logkey::NodeClaim(name), {"expireAfter", message}});
        Status deleted = client_.Delete(kube::resources::kNodeClaims, "", name, {});
        if (!deleted.ok() && deleted.error().status != 404) return deleted.error();
        if (deleted.ok()) {
          CountDisrupted(metrics_, cluster_, *object, "expired");
        }
        return std::optional<milliseconds>();
      }
      requeue_at(expires);
    }
  }
  if (ConditionStatus(*object, api::kConditionInitialized) != api::kConditionTrue) return requeue;
  const std::string_view pool_name = kube::Label(*object, api::kLabelNodePool);
  const std::optional<kube::Object> pool_object = cluster_.node_pools().Get(pool_name);
  const std::optional<api::NodePool> pool =
      pool_object ? DecodeNodePool(*pool_object) : std::nullopt;
  if (!pool) return requeue;

  // A NodeClaim stamped by another hash version (upstream's, or an older one of ours) gets
  // today's hashes: a new way of hashing is not a change of template or class.
  kube::Object restamp = kube::Object::object();
  if (kube::Annotation(*object, kAnnotationNodePoolHashVersion) != kNodePoolHashVersion) {
    restamp[std::string(kAnnotationNodePoolHash)] = NodePoolHash(*pool_object);
    restamp[std::string(kAnnotationNodePoolHashVersion)] = kNodePoolHashVersion;
  }
  if (kube::Annotation(*object, kAnnotationNodeClassHashVersion) != kNodeClassHashVersion) {
    if (const std::optional<kube::Object> node_class =
            cluster_.node_classes().Get(claim->spec.node_class_ref.name)) {
      restamp[std::string(kAnnotationNodeClassHash)] = NodeClassHash(*node_class);
      restamp[std::string(kAnnotationNodeClassHashVersion)] = kNodeClassHashVersion;
    }
  }
  if (!restamp.empty()) {
    ASSIGN_OR_RETURN(kube::Object restamped,
                     client_.Patch(kube::resources::kNodeClaims, "", name, kube::PatchType::kMerge,
                                   kube::Object{{"metadata", {{"annotations", restamp}}}},
                                   kube::Subresource::kNone));
    return std::optional<milliseconds>(kConflictRetry);  // look again at the stamped object
  }

  const std::optional<kube::Object> node = cluster_.NodeByProviderId(claim->status.provider_id);
  kube::Object status = kube::Object::object();
  std::optional<TimePoint> last_event = ParseTime(claim->status.last_pod_event_time);
  if (node) {
    const std::optional<TimePoint> observed = LastPodEvent(kube::Name(*node));
    if (observed && (!last_event || *observed > *last_event + std::chrono::seconds(1))) {
      last_event = observed;
      status["lastPodEventTime"] = FormatTime(*observed);
    }
  }
  kube::Object conditions = ConditionsOf(*object);
  bool changed = status.contains("lastPodEventTime");
  const Duration& after = pool->spec.disruption.consolidate_after;
  const int64_t generation = claim->metadata.generation;
  if (after.never()) {
    changed |=
        SetCondition(conditions, api::kConditionConsolidatable, false, "ConsolidateAfterNever",
                     "the NodePool's consolidateAfter is Never", now, generation);
  } else {
    TimePoint since = ConditionTransitionTime(*object, api::kConditionInitialized).value_or(now);
    if (last_event) since = std::max(since, *last_event);
    const TimePoint at = since + after.value();
    if (now >= at) {
      changed |= SetCondition(conditions, api::kConditionConsolidatable, true,
                              api::kConditionConsolidatable, "", now, generation);
    } else {
      changed |= SetCondition(
          conditions, api::kConditionConsolidatable, false, "PodEventWithin",
          fmt::format("a pod arrived or left within consolidateAfter ({})", after.ToString()), now,
          generation);
      requeue_at(at);
    }
  }
  const std::string drift = DriftReason(*object, *claim, *pool_object, node ? &*node : nullptr);
  if (drift.empty()) {
    changed |= RemoveCondition(conditions, api::kConditionDrifted);
  } else if (SetCondition(conditions, api::kConditionDrifted, true, drift, "", now, generation)) {
    changed = true;
    events_.Record(*object, kube::EventType::kNormal, api::kConditionDrifted,
                   fmt::format("NodeClaim drifted: {}", drift));
  }
  if (!changed) return requeue;
  status["conditions"] = std::move(conditions);
  const bool wrote_event_time = status.contains("lastPodEventTime");
  if (Status patched = PatchStatus(client_, kube::resources::kNodeClaims, *object, status);
      !patched.ok()) {
    if (patched.error().status == 409) return std::optional<milliseconds>(kConflictRetry);
    if (patched.error().status == 404) return std::optional<milliseconds>();
    return patched.error();
  }
  // Kept in the status now: memory need only hold what is not written yet.
  if (wrote_event_time) ForgetPodEvent(kube::Name(*node), *last_event);
  return requeue;
}

}  // namespace karpenter::controllers
