#include "aws/provider/node_class_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "api/condition.h"
#include "api/encode.h"
#include "aws/nodeclass/status_conditions.h"
#include "controllers/conditions.h"
#include "controllers/nodeclass_hash.h"
#include "kube/object.h"

namespace karpenter::aws {
namespace {

constexpr std::chrono::seconds kNotReadyResync(15);
// How long a launch-permission verdict stands while what it depends on is unchanged.
constexpr std::chrono::minutes kValidatedTtl(30);
constexpr std::chrono::minutes kFailedValidationTtl(1);

}  // namespace

NodeClassController::NodeClassController(kube::Client& client, controllers::ClusterCache& cluster,
                                         kube::EventRecorder& events, NodeClassResolver& resolver,
                                         LaunchTemplates& launch_templates, const Clock& clock,
                                         Logger logger, NodeClassRefresh refresh,
                                         LaunchAuthorizationCheck check)
    : client_(client),
      cluster_(cluster),
      events_(events),
      resolver_(resolver),
      launch_templates_(launch_templates),
      clock_(clock),
      logger_(std::move(logger)),
      refresh_(refresh),
      check_(std::move(check)) {}

void NodeClassController::RecordNewFailures(const kube::Object& object,
                                            const api::EC2NodeClass::Status& status) {
  const kube::Object written =
      object.value("status", kube::Object::object()).value("conditions", kube::Object::array());
  for (const api::Condition& condition : status.conditions) {
    // Ready repeats the message of the condition that failed it.
    if (condition.status != api::kConditionFalse || condition.type == api::kConditionReady) {
      continue;
    }
    const bool known = std::any_of(written.begin(), written.end(), [&](const kube::Object& c) {
      return c.value("type", "") == condition.type &&
             c.value("status", "") == api::kConditionFalse &&
             c.value("message", "") == condition.message;
    });
    if (known) continue;
    events_.Record(object, kube::EventType::kWarning, condition.reason, condition.message);
  }
}

void NodeClassController::Validate(const kube::Object& object, const api::EC2NodeClass& node_class,
                                   api::EC2NodeClass::Status& status) {
  const TimePoint now = clock_.Now();
  const int64_t generation = node_class.metadata.generation;
  const std::string name(kube::Name(object));
  auto set = [&](bool ok, std::string_view reason, std::string_view message) {
    SetStatusCondition(status.conditions, api::kConditionValidationSucceeded, ok, reason, message,
                       now, generation);
    SetNodeClassReady(status.conditions, now, generation);
  };
  if (!check_) {
    set(true, "DryRunDisabled", "Dry run is disabled");
    return;
  }
  for (const std::string_view part :
       {api::kConditionAmisReady, api::kConditionInstanceProfileReady,
        api::kConditionSecurityGroupsReady, api::kConditionSubnetsReady}) {
    if (!api::IsConditionTrue(status.conditions, part)) {
      set(false, "DependenciesNotReady",
          "Awaiting AMI, Instance Profile, Security Group, and Subnet resolution");
      return;
    }
  }
  // What the verdict depends on: what is resolved, and what of the spec goes into the launch.
  api::EC2NodeClass::Status resolved = status;
  resolved.conditions.clear();
  std::sort(resolved.subnets.begin(), resolved.subnets.end(),
            [](const api::SubnetStatus& a, const api::SubnetStatus& b) { return a.id < b.id; });
  const kube::Object& spec = object.value("spec", kube::Object::object());
  const std::string inputs = api::Encode(resolved).dump() +
                             spec.value("metadataOptions", kube::Object()).dump() +
                             spec.value("blockDeviceMappings", kube::Object()).dump() +
                             spec.value("tags", kube::Object()).dump();
  const MonoTime at = clock_.Monotonic();
  const auto known = validated_.find(name);
  if (known == validated_.end() || known->second.inputs != inputs ||
      at - known->second.at >= (known->second.verdict.failed_reason.empty()
                                    ? std::chrono::milliseconds(kValidatedTtl)
                                    : std::chrono::milliseconds(kFailedValidationTtl))) {
    api::EC2NodeClass checked = node_class;
    checked.status = status;
    Result<LaunchAuthorization> verdict = check_(checked);
    if (!verdict.ok()) {
      // Undecided (throttled, no offering yet): what was known stays; asked again next time.
      logger_.Warn("checking the launch permissions",
                   {{"ec2nodeclass", name}, {"error", verdict.error().message}});
      if (!api::FindCondition(status.conditions, api::kConditionValidationSucceeded)) {
        set(false, "ValidationPending", verdict.error().message);
      }
      return;
    }
    validated_[name] = Validated{inputs, at, std::move(*verdict)};
  }
  const LaunchAuthorization& verdict = validated_[name].verdict;
  if (verdict.failed_reason.empty()) {
    set(true, api::kConditionValidationSucceeded, "");
  } else {
    set(false, verdict.failed_reason, verdict.message);
  }
}

Status NodeClassController::ReconcileAll() {
  std::vector<std::pair<kube::Object, ResolveParts>> due;
  const MonoTime now = clock_.Monotonic();
  cluster_.node_classes().ForEach([&](const kube::Object& object) {
    const auto seen = resolved_.find(kube::Name(object));
    if (seen == resolved_.end() || seen->second.generation != kube::Generation(object) ||
        !kube::DeletionTimestamp(object).empty() ||
        now - seen->second.at >= (seen->second.ready ? refresh_.everything
                                                     : std::min<std::chrono::milliseconds>(
                                                           refresh_.everything, kNotReadyResync))) {
      due.emplace_back(object, ResolveParts{});
      return;
    }
    const Resolved& resolved = seen->second;
    const ResolveParts parts{
        .subnets = now - resolved.subnets_at >= refresh_.subnets,
        .security_groups = now - resolved.security_groups_at >= refresh_.security_groups,
        .amis = now - resolved.amis_at >= refresh_.amis,
        .instance_profile = false,
        .capacity_reservations =
            now - resolved.capacity_reservations_at >= refresh_.capacity_reservations};
    if (parts.subnets || parts.security_groups || parts.amis || parts.capacity_reservations) {
      due.emplace_back(object, parts);
    }
  });
  Status first;
  for (const auto& [object, parts] : due) {
    Status status = Reconcile(object, parts);
    if (!status.ok() && first.ok()) first = status;
  }
  return first;
}

Status NodeClassController::Reconcile(const kube::Object& object, const ResolveParts& parts) {
  const std::string name(kube::Name(object));
  if (!kube::DeletionTimestamp(object).empty()) return Finalize(object);
  std::string error;
  const std::optional<api::EC2NodeClass> node_class =
      controllers::DecodeEC2NodeClass(object, &error);
  if (!node_class.has_value()) {
    // Remembered, so a bad object is reported once per change, not every round.
    const MonoTime now = clock_.Monotonic();
    resolved_[name] = Resolved{kube::Generation(object), now, true, now, now, now, now};
    return Error(fmt::format("EC2NodeClass {}: {}", name, error));
  }
  // The finalizer, and the hash of the spec that NodeClaims launched from it carry (drift).
  const std::string hash = controllers::NodeClassHash(object);
  if (!kube::HasFinalizer(object, kFinalizerNodeClassTermination) ||
      kube::Annotation(object, controllers::kAnnotationNodeClassHash) != hash ||
      kube::Annotation(object, controllers::kAnnotationNodeClassHashVersion) !=
          controllers::kNodeClassHashVersion) {
    kube::Object finalizers = kube::FinalizersWithout(object, kFinalizerNodeClassTermination);
    finalizers.push_back(std::string(kFinalizerNodeClassTermination));
    Result<kube::Object> patched = client_.Patch(
        kube::resources::kEC2NodeClasses, "", name, kube::PatchType::kMerge,
        kube::Object{{"metadata",
                      {{"finalizers", finalizers},
                       {"annotations",
                        {{std::string(controllers::kAnnotationNodeClassHash), hash},
                         {std::string(controllers::kAnnotationNodeClassHashVersion),
                          std::string(controllers::kNodeClassHashVersion)}}},
                       {"resourceVersion", std::string(kube::ResourceVersion(object))}}}},
        kube::Subresource::kNone);
    // The patch moved the object on: its status is written after the informer sees it.
    if (!patched.ok()) return Error("EC2NodeClass " + name + ": " + patched.error().message);
    return {};
  }
  api::EC2NodeClass::Status status = resolver_.Resolve(*node_class, parts);
  Validate(object, *node_class, status);
  const kube::Object encoded = api::Encode(status);
  const kube::Object current = object.value("status", kube::Object::object());
  bool changed = false;
  for (const auto& [key, value] : encoded.items()) {
    if (current.value(key, kube::Object()) != value) changed = true;
  }
  if (changed) {
    RecordNewFailures(object, status);
    if (Status patched =
            controllers::PatchStatus(client_, kube::resources::kEC2NodeClasses, object, encoded);
        !patched.ok()) {
      return Error("EC2NodeClass " + name + ": " + patched.error().message);
    }
    const bool ready = api::IsConditionTrue(status.conditions, api::kConditionReady);
    logger_.Info("resolved ec2nodeclass", {{"ec2nodeclass", name},
                                           {"ready", ready},
                                           {"subnets", status.subnets.size()},
                                           {"securityGroups", status.security_groups.size()},
                                           {"amis", status.amis.size()}});
  }
  const MonoTime now = clock_.Monotonic();
  Resolved& resolved = resolved_[name];
  resolved.generation = kube::Generation(object);
  resolved.ready = api::IsConditionTrue(status.conditions, api::kConditionReady);
  if (parts.subnets) resolved.subnets_at = now;
  if (parts.security_groups) resolved.security_groups_at = now;
  if (parts.amis) resolved.amis_at = now;
  if (parts.capacity_reservations) resolved.capacity_reservations_at = now;
  if (!parts.instance_profile) return {};  // a part's refresh: the rest waits for its turn
  resolved.at = now;
  Result<int> deleted = launch_templates_.DeleteUnused(name, refresh_.everything);
  if (!deleted.ok()) return Error("EC2NodeClass " + name + ": " + deleted.error().message);
  if (*deleted > 0) {
    logger_.Info("deleted unused launch templates", {{"ec2nodeclass", name}, {"count", *deleted}});
  }
  return {};
}

Status NodeClassController::Finalize(const kube::Object& object) {
  const std::string name(kube::Name(object));
  if (!kube::HasFinalizer(object, kFinalizerNodeClassTermination)) return {};
  size_t users = 0;
  cluster_.node_claims().ForEach([&](const kube::Object& claim) {
    if (kube::StringAt(claim, {"spec", "nodeClassRef", "name"}) == name) ++users;
  });
  if (users > 0) return {};  // their termination comes first; looked at again next round
  std::string error;
  const std::optional<api::EC2NodeClass> node_class =
      controllers::DecodeEC2NodeClass(object, &error);
  Result<int> deleted = launch_templates_.DeleteForNodeClass(name);
  if (!deleted.ok()) return Error("EC2NodeClass " + name + ": " + deleted.error().message);
  if (node_class.has_value()) {
    if (Status cleaned = resolver_.Finalize(*node_class); !cleaned.ok()) {
      return Error("EC2NodeClass " + name + ": " + cleaned.error().message);
    }
  }
  Result<kube::Object> patched = client_.Patch(
      kube::resources::kEC2NodeClasses, "", name, kube::PatchType::kMerge,
      kube::Object{
          {"metadata",
           {{"finalizers", kube::FinalizersWithout(object, kFinalizerNodeClassTermination)},
            {"resourceVersion", std::string(kube::ResourceVersion(object))}}}},
      kube::Subresource::kNone);
  if (!patched.ok()) return Error("EC2NodeClass " + name + ": " + patched.error().message);
  resolved_.erase(name);
  validated_.erase(name);
  logger_.Info("finalized ec2nodeclass", {{"ec2nodeclass", name}, {"launchTemplates", *deleted}});
  return {};
}

}  // namespace karpenter::aws
