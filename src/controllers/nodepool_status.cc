#include "controllers/nodepool_status.h"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <utility>

#include "api/condition.h"
#include "api/encode.h"
#include "api/labels.h"
#include "controllers/conditions.h"
#include "controllers/nodepool_hash.h"

namespace karpenter::controllers {

NodePoolStatus::NodePoolStatus(ClusterCache& cluster, kube::Client& client,
                               kube::EventRecorder& events, const Clock& clock, Logger logger,
                               bool balanced_consolidation, bool static_capacity,
                               RegistrationHealth& health)
    : cluster_(cluster),
      client_(client),
      events_(events),
      clock_(clock),
      logger_(std::move(logger)),
      balanced_consolidation_(balanced_consolidation),
      static_capacity_(static_capacity),
      health_(health) {}

void NodePoolStatus::UpdateRegistrationHealth(const kube::Object& object, kube::Object& conditions,
                                              std::optional<int64_t> class_generation,
                                              TimePoint now) {
  const int64_t generation = kube::Generation(object);
  const kube::Object* seen_class = kube::Find(object, {"status", "nodeClassObservedGeneration"});
  std::string_view status;
  bool current = false;  // set for this generation of the NodePool and of its node class
  for (const kube::Object& condition : conditions) {
    if (kube::StringAt(condition, {"type"}) != api::kConditionNodeRegistrationHealthy) continue;
    status = kube::StringAt(condition, {"status"});
    const kube::Object* observed = kube::Find(condition, {"observedGeneration"});
    current = observed != nullptr && *observed == generation &&
              (!class_generation || (seen_class != nullptr && *seen_class == *class_generation));
  }
  if (!current) {
    SetConditionStatus(conditions, api::kConditionNodeRegistrationHealthy, api::kConditionUnknown,
                       "AwaitingRegistration",
                       "no NodeClaim of this NodePool and node class has registered yet", now,
                       generation);
    status = api::kConditionUnknown;
  }
  const std::optional<RegistrationOutcome> outcome = health_.Take(kube::Name(object));
  if (!outcome) return;
  if (outcome->registered) {
    SetCondition(conditions, api::kConditionNodeRegistrationHealthy, true,
                 api::kConditionNodeRegistrationHealthy, "", now, generation);
  } else if (status == api::kConditionUnknown) {
    // One failure after a registration is a blip; one before any says the launch path is broken.
    SetCondition(conditions, api::kConditionNodeRegistrationHealthy, false, outcome->reason,
                 outcome->message, now, generation);
  }
}

Status NodePoolStatus::Reconcile(std::string_view name) {
  const std::optional<kube::Object> object = cluster_.node_pools().Get(name);
  if (!object || !kube::DeletionTimestamp(*object).empty()) return {};

  const std::string hash = NodePoolHash(*object);
  if (kube::Annotation(*object, kAnnotationNodePoolHash) != hash ||
      kube::Annotation(*object, kAnnotationNodePoolHashVersion) != kNodePoolHashVersion) {
    ASSIGN_OR_RETURN(kube::Object annotated,
                     client_.Patch(kube::resources::kNodePools, "", name, kube::PatchType::kMerge,
                                   kube::Object{{"metadata",
                                                 {{"annotations",
                                                   {{std::string(kAnnotationNodePoolHash), hash},
                                                    {std::string(kAnnotationNodePoolHashVersion),
                                                     kNodePoolHashVersion}}}}}},
                                   kube::Subresource::kNone));
  }

  api::ResourceList resources;
  int64_t nodes = 0;
  // The decoded cache, not a decode of each NodeClaim: this runs on every change of any of the
  // pool's NodeClaims, and a scale-up of hundreds of them made it most of the loop's work.
  for (const std::shared_ptr<const api::NodeClaim>& claim : cluster_.decoded_node_claims().All()) {
    if (api::LabelValue(claim->metadata.labels, api::kLabelNodePool) != name) continue;
    resources += claim->status.capacity;
    ++nodes;
  }
  resources.Set("nodes", Quantity::FromUnits(nodes));

  std::string error;
  const std::optional<api::NodePool> pool = DecodeNodePool(*object, &error);
  const TimePoint now = clock_.Now();
  const int64_t generation = kube::Generation(*object);
  kube::Object conditions =
      object->value("status", kube::Object::object()).value("conditions", kube::Object::array());
  bool class_ready = false;
  std::string class_message;
  std::optional<int64_t> class_generation;
  if (pool) {
    const api::NodeClassReference& ref = pool->spec.template_.spec.node_class_ref;
    if (const std::optional<kube::Object> node_class = cluster_.node_classes().Get(ref.name)) {
      class_ready = true;
      class_generation = kube::Generation(*node_class);
    } else {
      class_message = fmt::format("{} \"{}\" not found", ref.kind, ref.name);
    }
  }
  SetCondition(conditions, api::kConditionValidationSucceeded, pool.has_value(),
               pool ? "ValidationSucceeded" : "ValidationFailed", error, now, generation);
  if (pool) {  // an invalid NodePool's reference is not looked at
    SetCondition(conditions, api::kConditionNodeClassReady, class_ready,
                 class_ready ? "NodeClassReady" : "NodeClassNotFound", class_message, now,
                 generation);
  }
  // Balanced without its gate consolidates as WhenEmptyOrUnderutilized: say so where the user
  // looks, rather than fail the NodePool.
  if (pool && pool->spec.disruption.consolidation_policy == api::ConsolidationPolicy::kBalanced &&
      !balanced_consolidation_) {
    SetCondition(conditions, api::kConditionConsolidationPolicyUnsupported, true,
                 "FeatureGateDisabled",
                 "consolidationPolicy Balanced needs the BalancedConsolidation feature gate "
                 "(settings.featureGates.balancedConsolidation); until it is on, or the policy "
                 "changes, this NodePool consolidates as WhenEmptyOrUnderutilized",
                 now, generation);
  } else {
    RemoveCondition(conditions, api::kConditionConsolidationPolicyUnsupported);
  }
  UpdateRegistrationHealth(*object, conditions, class_generation, now);
  const bool static_disabled = pool && api::IsStatic(*pool) && !static_capacity_;
  const bool ready = pool.has_value() && class_ready && !static_disabled;
  std::string ready_message = !pool ? error : class_message;
  if (pool && class_ready && static_disabled) {
    ready_message =
        "spec.replicas needs the StaticCapacity feature gate "
        "(settings.featureGates.staticCapacity); until it is on, this NodePool launches nothing";
  }
  const bool became_unready = ConditionStatus(*object, api::kConditionReady) !=
                              (ready ? api::kConditionTrue : api::kConditionFalse);
  SetCondition(conditions, api::kConditionReady, ready, ready ? "Ready" : "NotReady", ready_message,
               now, generation);
  if (!ready && became_unready) {
    events_.Record(*object, kube::EventType::kWarning, "NotReady",
                   fmt::format("NodePool {} cannot provision: {}", name, ready_message));
    logger_.Warn("nodepool not ready", {logkey::NodePool(name), {"reason", ready_message}});
  }
  kube::Object status = {{"resources", api::Encode(resources)},
                         {"nodes", nodes},
                         {"conditions", std::move(conditions)}};
  // Which generation of the node class the conditions above saw, as upstream's status says; null
  // (removed by the merge patch) when there is none.
  status["nodeClassObservedGeneration"] =
      class_generation ? kube::Object(*class_generation) : kube::Object();
  const kube::Object current = object->value("status", kube::Object::object());
  if (current.value("resources", kube::Object()) == status["resources"] &&
      current.value("nodes", kube::Object()) == status["nodes"] &&
      current.value("conditions", kube::Object()) == status["conditions"] &&
      current.value("nodeClassObservedGeneration", kube::Object()) ==
          status["nodeClassObservedGeneration"]) {
    return {};
  }
  ASSIGN_OR_RETURN(
      kube::Object patched,
      client_.Patch(kube::resources::kNodePools, "", name, kube::PatchType::kMerge,
                    kube::Object{{"status", std::move(status)}}, kube::Subresource::kStatus));
  return {};
}

}  // namespace karpenter::controllers
