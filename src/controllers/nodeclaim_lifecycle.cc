#include "controllers/nodeclaim_lifecycle.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

#include "api/condition.h"
#include "api/encode.h"
#include "api/labels.h"
#include "common/parallel_for.h"
#include "controllers/conditions.h"
#include "controllers/disruption_count.h"
#include "controllers/interruption.h"
#include "controllers/node_taints.h"
#include "controllers/owner_references.h"

namespace karpenter::controllers {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kRetry(10000);
constexpr milliseconds kConflictRetry(200);
// How often termination looks again at VolumeAttachments it waits for, as upstream's.
constexpr milliseconds kVolumePoll(5000);

// Its machine is still to launch.
bool ToLaunch(const api::NodeClaim& claim) {
  return claim.metadata.deletion_timestamp.empty() && claim.status.provider_id.empty();
}

kube::Object Member(const kube::Object& object, const char* section, const char* field) {
  const auto part = object.find(section);
  if (part == object.end() || !part->is_object()) return nullptr;
  const auto value = part->find(field);
  return value == part->end() ? kube::Object(nullptr) : *value;
}

}  // namespace

NodeClaimLifecycle::NodeClaimLifecycle(ClusterCache& cluster, kube::Client& client,
                                       cloud::CloudProvider& cloud, kube::EventRecorder& events,
                                       Metrics& metrics, const Clock& clock, Logger logger,
                                       LifecycleOptions options, RegistrationHealth& health)
    : cluster_(cluster),
      client_(client),
      cloud_(cloud),
      events_(events),
      metrics_(metrics),
      clock_(clock),
      logger_(std::move(logger)),
      options_(options),
      health_(health),
      drainer_(cluster, client, events, metrics, clock, logger_.Named("termination")) {}

std::vector<NodeClaimLifecycle::Requeue> NodeClaimLifecycle::Reconcile(
    std::span<const std::string> names) {
  // The NodeClaims as the cache has them (nullopt: gone or invalid, nothing to do).
  std::vector<std::optional<std::pair<kube::Object, api::NodeClaim>>> claims;
  claims.reserve(names.size());
  for (const std::string& name : names) {
    std::optional<kube::Object> object = cluster_.node_claims().Get(name);
    std::string error;
    std::optional<api::NodeClaim> claim =
        object ? DecodeNodeClaim(*object, &error) : std::optional<api::NodeClaim>();
    if (object && !claim) {
      logger_.Error("invalid nodeclaim", {logkey::NodeClaim(name), {"error", error}});
      events_.Record(*object, kube::EventType::kWarning, "InvalidNodeClaim", error);
    }
    if (!claim) {
      claims.emplace_back();
      continue;
    }
    claims.emplace_back(std::in_place, std::move(*object), std::move(*claim));
  }
  std::vector<const api::NodeClaim*> to_launch;
  // Which launch result is whose, fixed before anything runs out of order.
  std::vector<size_t> launch_slot(claims.size(), 0);
  for (size_t i = 0; i < claims.size(); ++i) {
    if (!claims[i] || !ToLaunch(claims[i]->second)) continue;
    launch_slot[i] = to_launch.size();
    to_launch.push_back(&claims[i]->second);
  }
  const std::vector<Result<cloud::Instance>> instances = cloud_.CreateAll(to_launch);

  std::vector<Requeue> requeues(names.size(), std::optional<milliseconds>());
  const auto advance = [&](size_t i) {
    const auto& [object, claim] = *claims[i];
    Requeue next = ToLaunch(claim) ? RecordLaunch(object, claim, instances[launch_slot[i]])
                                   : Step(object, claim);
    // A write based on a cache that was behind: look again once the cache has caught up.
    if (!next.ok() && next.error().status == 409) {
      next = std::optional<milliseconds>(kConflictRetry);
    }
    requeues[i] = std::move(next);
  };
  // Registration, initialization and recording launches touch only their own NodeClaim and Node
  // and thread-safe recorders; a deletion drives the drainer, which keeps state per Node, so
  // deletions go one at a time after the rest (in order with them when there is one worker).
  const bool concurrent = options_.workers > 1;
  std::vector<size_t> together;
  std::vector<size_t> in_turn;
  for (size_t i = 0; i < claims.size(); ++i) {
    if (!claims[i]) continue;
    const bool deleting = !claims[i]->second.metadata.deletion_timestamp.empty();
    (concurrent && deleting ? in_turn : together).push_back(i);
  }
  ParallelFor(together.size(), options_.workers, [&](size_t k) { advance(together[k]); });
  for (const size_t i : in_turn) advance(i);
  return requeues;
}

std::string NodeClaimLifecycle::ForeignReason(const kube::Object& object,
                                              const api::NodeClaim& claim) const {
  const std::string& provider_id = claim.status.provider_id;
  if (provider_id.empty()) return "";
  if (!provider_id.starts_with(std::string(cloud_.Name()) + "://")) {
    return fmt::format("status.providerID {} is not a provider ID of the {} cloud", provider_id,
                       cloud_.Name());
  }
  if (ConditionStatus(object, api::kConditionLaunched) != api::kConditionTrue) {
    return fmt::format(
        "status.providerID {} was not recorded by a launch (the Launched condition is not True)",
        provider_id);
  }
  return "";
}

void NodeClaimLifecycle::ReportForeign(const kube::Object& object, const api::NodeClaim& claim,
                                       const std::string& why) {
  const std::string message =
      why + ": its node is not adopted, drained or deleted and its instance never terminated";
  events_.Record(object, kube::EventType::kWarning, "ForeignProviderID", message);
  logger_.Warn("skipping nodeclaim: " + message, {logkey::NodeClaim(claim.metadata.name)});
}

NodeClaimLifecycle::Requeue NodeClaimLifecycle::Step(const kube::Object& object,
                                                     const api::NodeClaim& claim) {
  if (!claim.metadata.deletion_timestamp.empty()) return Finalize(object, claim);
  if (const std::string why = ForeignReason(object, claim); !why.empty()) {
    ReportForeign(object, claim, why);
    return std::optional<milliseconds>();
  }
  // `kubectl delete node`: our finalizer holds the Node; deleting its NodeClaim drains it and
  // terminates its machine the usual way.
  if (const std::optional<kube::Object> node = cluster_.NodeByProviderId(claim.status.provider_id);
      node && !kube::DeletionTimestamp(*node).empty() &&
      kube::HasFinalizer(*node, api::kFinalizerTermination)) {
    logger_.Info("deleting nodeclaim: its node is being deleted",
                 {logkey::NodeClaim(claim.metadata.name), logkey::Node(kube::Name(*node))});
    Status deleted = client_.Delete(kube::resources::kNodeClaims, "", claim.metadata.name,
                                    {.precondition_uid = claim.metadata.uid,
                                     .precondition_resource_version = "",
                                     .grace_period_seconds = std::nullopt});
    if (!deleted.ok() && deleted.error().status != 404) return deleted.error();
    return std::optional<milliseconds>();
  }
  if (ConditionStatus(object, api::kConditionRegistered) != api::kConditionTrue) {
    return Register(object, claim);
  }
  if (ConditionStatus(object, api::kConditionInitialized) != api::kConditionTrue) {
    return Initialize(object, claim);
  }
  return std::optional<milliseconds>();
}

NodeClaimLifecycle::Requeue NodeClaimLifecycle::RecordLaunch(
    const kube::Object& object, const api::NodeClaim& claim,
    const Result<cloud::Instance>& instance) {
  const std::string& name = claim.metadata.name;
  const TimePoint now = clock_.Now();
  if (!instance.ok()) {
    if (instance.error().reason == cloud::kReasonInsufficientCapacity) {
      // Nothing can launch it now: give its pods back to the provisioner, which plans again
      // with what is available.
      events_.Record(object, kube::EventType::kWarning, "InsufficientCapacityError",
                     instance.error().message);
      logger_.Warn("deleting nodeclaim: insufficient capacity",
                   {logkey::NodeClaim(name), logkey::Err(instance.error())});
      Status deleted = client_.Delete(kube::resources::kNodeClaims, "", name, {});
      if (!deleted.ok() && deleted.error().status != 404) return deleted.error();
      if (deleted.ok()) {
        CountDisrupted(metrics_, cluster_, object, "insufficient_capacity");
      }
      return std::optional<milliseconds>();
    }
    kube::Object conditions = ConditionsOf(object);
    SetCondition(conditions, api::kConditionLaunched, false, "LaunchFailed",
                 instance.error().message, now, claim.metadata.generation);
    health_.Failed(api::LabelValue(claim.metadata.labels, api::kLabelNodePool), "LaunchFailed",
                   instance.error().message);
    (void)PatchStatus(client_, kube::resources::kNodeClaims, object, {{"conditions", conditions}});
    logger_.Error("launching nodeclaim failed",
                  {logkey::NodeClaim(name), logkey::Err(instance.error())});
    return std::optional<milliseconds>(kRetry);
  }
  // Labels first, so the Node that registers finds them on its NodeClaim.
  kube::Object labels = api::Encode(instance->labels);
  labels.erase(std::string(api::kLabelHostname));
  ASSIGN_OR_RETURN(
      kube::Object labelled,
      client_.Patch(kube::resources::kNodeClaims, "", name, kube::PatchType::kMerge,
                    kube::Object{{"metadata", {{"labels", labels}}}}, kube::Subresource::kNone));
  kube::Object conditions = ConditionsOf(object);
  SetCondition(conditions, api::kConditionLaunched, true, api::kConditionLaunched, "", now,
               claim.metadata.generation);
  // At the resourceVersion the label patch left (the cached object is older by that write).
  Status patched = PatchStatus(client_, kube::resources::kNodeClaims, labelled,
                               {{"providerID", instance->provider_id},
                                {"imageID", instance->image_id},
                                {"capacity", api::Encode(instance->capacity)},
                                {"allocatable", api::Encode(instance->allocatable)},
                                {"conditions", conditions}});
  if (!patched.ok()) return patched.error();
  logger_.Info("launched nodeclaim", {logkey::NodeClaim(name),
                                      logkey::ProviderId(instance->provider_id),
                                      {"instance-type", instance->instance_type},
                                      {"zone", instance->zone},
                                      {"capacity-type", instance->capacity_type},
                                      {"allocatable", api::Encode(instance->allocatable)}});
  // The NodeClaim's own update brings it back (with the new status in the cache).
  return std::optional<milliseconds>();
}

NodeClaimLifecycle::Requeue NodeClaimLifecycle::Register(const kube::Object& object,
                                                         const api::NodeClaim& claim) {
  const std::string& name = claim.metadata.name;
  const std::optional<kube::Object> node = cluster_.NodeByProviderId(claim.status.provider_id);
  const TimePoint now = clock_.Now();
  if (!node) {
    const std::optional<TimePoint> launched =
        ConditionTransitionTime(object, api::kConditionLaunched);
    if (launched && now - *launched > options_.registration_ttl) {
      const std::string message = fmt::format(
          "its node did not register within {}s",
          std::chrono::duration_cast<std::chrono::seconds>(options_.registration_ttl).count());
      events_.Record(object, kube::EventType::kWarning, "RegistrationTimeout", message);
      health_.Failed(api::LabelValue(claim.metadata.labels, api::kLabelNodePool),
                     "RegistrationFailed", "Failed to register node: " + message);
      logger_.Warn("deleting nodeclaim: " + message, {logkey::NodeClaim(name)});
      Status deleted = client_.Delete(kube::resources::kNodeClaims, "", name, {});
      if (!deleted.ok() && deleted.error().status != 404) return deleted.error();
      if (deleted.ok()) {
        CountDisrupted(metrics_, cluster_, object, "registration_timeout");
      }
      return std::optional<milliseconds>();
    }
    return std::optional<milliseconds>(kRetry);
  }
  const std::string node_name(kube::Name(*node));
  // The Node takes the NodeClaim's labels and taints, loses karpenter.sh/unregistered, and is
  // owned by the NodeClaim (deleting the NodeClaim deletes it).
  kube::Object labels = api::Encode(claim.metadata.labels);
  labels[std::string(api::kLabelRegistered)] = "true";
  std::vector<api::Taint> taints;
  if (std::optional<api::Node> decoded = DecodeNode(*node)) {
    for (const api::Taint& taint : decoded->spec.taints) {
      if (taint.key != api::kTaintUnregistered) taints.push_back(taint);
    }
  }
  for (const api::Taint& taint : claim.spec.taints) {
    if (std::find(taints.begin(), taints.end(), taint) == taints.end()) taints.push_back(taint);
  }
  kube::Object owners = Member(*node, "metadata", "ownerReferences");
  if (!owners.is_array()) owners = kube::Object::array();
  const bool owned = std::any_of(owners.begin(), owners.end(), [&](const kube::Object& owner) {
    return kube::StringAt(owner, {"uid"}) == claim.metadata.uid;
  });
  if (!owned) {
    owners.push_back(BlockingOwnerReference("NodeClaim", name, claim.metadata.uid));
  }
  kube::Object finalizers = kube::FinalizersWithout(*node, api::kFinalizerTermination);
  finalizers.push_back(std::string(api::kFinalizerTermination));
  Result<kube::Object> owned_node =
      client_.Patch(kube::resources::kNodes, "", node_name, kube::PatchType::kMerge,
                    kube::Object{{"metadata",
                                  {{"labels", labels},
                                   {"ownerReferences", owners},
                                   {"finalizers", finalizers},
                                   {"resourceVersion", std::string(kube::ResourceVersion(*node))}}},
                                 {"spec", {{"taints", api::Encode(taints)}}}},
                    kube::Subresource::kNone);
  if (!owned_node.ok()) return ExplainOwnerReferenceDenial(owned_node.error(), "nodeclaims");
  kube::Object conditions = ConditionsOf(object);
  SetCondition(conditions, api::kConditionRegistered, true, api::kConditionRegistered, "", now,
               claim.metadata.generation);
  if (Status status = PatchStatus(client_, kube::resources::kNodeClaims, object,
                                  {{"nodeName", node_name}, {"conditions", conditions}});
      !status.ok()) {
    return status.error();
  }
  metrics_.NodeCreated(api::LabelValue(claim.metadata.labels, api::kLabelNodePool),
                       api::LabelValue(claim.metadata.labels, api::kLabelZone));
  health_.Registered(api::LabelValue(claim.metadata.labels, api::kLabelNodePool));
  logger_.Info("registered nodeclaim", {logkey::NodeClaim(name), logkey::Node(node_name),
                                        logkey::ProviderId(claim.status.provider_id)});
  return std::optional<milliseconds>();
}

NodeClaimLifecycle::Requeue NodeClaimLifecycle::Initialize(const kube::Object& object,
                                                           const api::NodeClaim& claim) {
  const std::optional<kube::Object> node_object =
      cluster_.NodeByProviderId(claim.status.provider_id);
  if (!node_object) return std::optional<milliseconds>(kRetry);
  const std::optional<api::Node> node = DecodeNode(*node_object);
  if (!node || !node->Ready()) return std::optional<milliseconds>();
  for (const api::Taint& taint : claim.spec.startup_taints) {
    if (std::find(node->spec.taints.begin(), node->spec.taints.end(), taint) !=
        node->spec.taints.end()) {
      return std::optional<milliseconds>();  // something on the node still prepares it
    }
  }
  bool resources_ready = true;
  claim.spec.resource_requests.ForEach([&](std::string_view resource, Quantity) {
    if (node->status.allocatable.Get(resource).is_zero()) resources_ready = false;
  });
  if (!resources_ready) return std::optional<milliseconds>();
  ASSIGN_OR_RETURN(
      kube::Object labelled,
      client_.Patch(
          kube::resources::kNodes, "", node->metadata.name, kube::PatchType::kMerge,
          kube::Object{{"metadata", {{"labels", {{std::string(api::kLabelInitialized), "true"}}}}}},
          kube::Subresource::kNone));
  const TimePoint now = clock_.Now();
  kube::Object conditions = ConditionsOf(object);
  SetCondition(conditions, api::kConditionInitialized, true, api::kConditionInitialized, "", now,
               claim.metadata.generation);
  SetCondition(conditions, api::kConditionReady, true, api::kConditionReady, "", now,
               claim.metadata.generation);
  if (Status status =
          PatchStatus(client_, kube::resources::kNodeClaims, object, {{"conditions", conditions}});
      !status.ok()) {
    return status.error();
  }
  logger_.Info("initialized nodeclaim", {logkey::NodeClaim(claim.metadata.name),
                                         logkey::Node(node->metadata.name),
                                         {"allocatable", api::Encode(node->status.allocatable)}});
  return std::optional<milliseconds>();
}

Result<bool> NodeClaimLifecycle::ReleaseFinalizer(const kube::Object& object,
                                                  const std::string& name) {
  Result<kube::Object> released = client_.Patch(
      kube::resources::kNodeClaims, "", name, kube::PatchType::kMerge,
      kube::Object{{"metadata",
                    {{"finalizers", kube::FinalizersWithout(object, api::kFinalizerTermination)},
                     {"resourceVersion", std::string(kube::ResourceVersion(object))}}}},
      kube::Subresource::kNone);
  if (released.ok()) return true;
  if (released.error().status == 404) return false;
  return released.error();
}

// A Node that is not Ready and whose machine the cloud no longer has: nothing runs there to drain.
bool NodeClaimLifecycle::InstanceGone(const kube::Object& node, std::string_view provider_id) {
  if (ConditionStatus(node, api::kConditionReady) == api::kConditionTrue) return false;
  Result<cloud::Instance> instance = cloud_.Get(provider_id);
  return !instance.ok() && instance.error().reason == cloud::kReasonNotFound;
}

NodeClaimLifecycle::Requeue NodeClaimLifecycle::Finalize(const kube::Object& object,
                                                         const api::NodeClaim& claim) {
  if (!kube::HasFinalizer(object, api::kFinalizerTermination)) {
    return std::optional<milliseconds>();
  }
  const std::string& name = claim.metadata.name;
  if (const std::string why = ForeignReason(object, claim); !why.empty()) {
    ReportForeign(object, claim, why);
    RETURN_IF_ERROR(ReleaseFinalizer(object, name));
    return std::optional<milliseconds>();
  }
  // What the series count once the finalizer is off (a failed step retries the whole path).
  bool drained = false;
  std::optional<std::chrono::nanoseconds> instance_termination;
  std::optional<TimePoint> node_created;
  // The NodeClaim as this pass's status write left it, if it wrote: the finalizer goes at the
  // latest version.
  std::optional<kube::Object> written;
  if (!claim.status.provider_id.empty()) {
    const std::optional<kube::Object> node = cluster_.NodeByProviderId(claim.status.provider_id);
    if (node && InstanceGone(*node, claim.status.provider_id)) {
      logger_.Info("not draining node: its instance is gone and it is not ready",
                   {logkey::NodeClaim(name), logkey::Node(kube::Name(*node))});
    } else if (node) {
      // Nothing new lands on it while it drains (a 404: it is gone already).
      if (Status tainted = AddTaint(client_, *node, DisruptedTaint());
          !tainted.ok() && tainted.error().status != 404) {
        return tainted.error();
      }
      // An interrupted instance's pods wait for their new capacity (provisioning launches it).
      if (std::optional<milliseconds> wait =
              InterruptedDrainWait(cluster_, claim, kube::Name(*node), clock_.Now())) {
        return wait;
      }
      const DrainOutcome drain = drainer_.Drain(*node, claim);
      const TimePoint now = clock_.Now();
      kube::Object conditions = ConditionsOf(object);
      if (!drain.drained) {
        if (SetCondition(conditions, api::kConditionDrained, false, "Draining", "Draining", now,
                         claim.metadata.generation)) {
          RETURN_IF_ERROR(PatchStatus(client_, kube::resources::kNodeClaims, object,
                                      {{"conditions", std::move(conditions)}}));
        }
        return std::optional<milliseconds>(drain.requeue);
      }
      drained = true;
      bool changed = SetCondition(conditions, api::kConditionDrained, true, api::kConditionDrained,
                                  "", now, claim.metadata.generation);
      const std::vector<std::string> attached = drainer_.AttachedVolumes(*node, claim);
      if (attached.empty()) {
        changed =
            SetCondition(conditions, api::kConditionVolumesDetached, true,
                         api::kConditionVolumesDetached, "", now, claim.metadata.generation) ||
            changed;
      } else {
        const std::string message =
            fmt::format("Awaiting deletion of the VolumeAttachments bound to the node ({})",
                        fmt::join(attached, ", "));
        changed =
            SetCondition(conditions, api::kConditionVolumesDetached, false,
                         "AwaitingVolumeDetachment", message, now, claim.metadata.generation) ||
            changed;
        events_.Record(*node, kube::EventType::kNormal, "AwaitingVolumeDetachment", message);
      }
      if (changed) {
        ASSIGN_OR_RETURN(written, PatchedStatus(client_, kube::resources::kNodeClaims, object,
                                                {{"conditions", std::move(conditions)}}));
      }
      if (!attached.empty()) return std::optional<milliseconds>(kVolumePoll);
    }
    const MonoTime terminating = clock_.Monotonic();
    Status terminated = cloud_.Delete(claim.status.provider_id);
    if (!terminated.ok() && terminated.error().reason == cloud::kReasonNotOwned) {
      ReportForeign(object, claim, terminated.error().message);
      RETURN_IF_ERROR(ReleaseFinalizer(written ? *written : object, name));
      return std::optional<milliseconds>();
    }
    if (!terminated.ok() && terminated.error().reason != cloud::kReasonNotFound) {
      logger_.Error("terminating instance failed",
                    {logkey::NodeClaim(name), logkey::Err(terminated.error())});
      return std::optional<milliseconds>(kRetry);
    }
    instance_termination = clock_.Monotonic() - terminating;
    if (node) {
      node_created = ParseTime(kube::StringAt(*node, {"metadata", "creationTimestamp"}));
      const std::string node_name(kube::Name(*node));
      if (kube::HasFinalizer(*node, api::kFinalizerTermination)) {
        Result<kube::Object> released = client_.Patch(
            kube::resources::kNodes, "", node_name, kube::PatchType::kMerge,
            kube::Object{
                {"metadata",
                 {{"finalizers", kube::FinalizersWithout(*node, api::kFinalizerTermination)}}}},
            kube::Subresource::kNone);
        if (!released.ok() && released.error().status != 404) return released.error();
      }
      Status deleted = client_.Delete(kube::resources::kNodes, "", node_name, {});
      if (!deleted.ok() && deleted.error().status != 404) return deleted.error();
      drainer_.Forget(node_name);
    }
  }
  ASSIGN_OR_RETURN(const bool released, ReleaseFinalizer(written ? *written : object, name));
  if (!released) return std::optional<milliseconds>();
  const std::string_view pool = api::LabelValue(claim.metadata.labels, api::kLabelNodePool);
  const std::string_view zone = api::LabelValue(claim.metadata.labels, api::kLabelZone);
  const TimePoint now = clock_.Now();
  if (drained) metrics_.NodeDrained(pool);
  if (instance_termination) metrics_.InstanceTerminated(pool, *instance_termination);
  if (node_created) {
    const std::optional<TimePoint> deleting = ParseTime(claim.metadata.deletion_timestamp);
    metrics_.NodeTerminated(pool, zone, deleting ? now - *deleting : std::chrono::nanoseconds(0),
                            now - *node_created);
  }
  metrics_.NodeClaimTerminated(
      pool, api::LabelValue(claim.metadata.labels, api::kLabelCapacityType), zone);
  logger_.Info("deleted nodeclaim",
               {logkey::NodeClaim(name), logkey::ProviderId(claim.status.provider_id)});
  return std::optional<milliseconds>();
}

}  // namespace karpenter::controllers
