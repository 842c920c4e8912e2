#include "controllers/node_overlay_controller.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/condition.h"
#include "controllers/conditions.h"

namespace karpenter::controllers {

NodeOverlayController::NodeOverlayController(ClusterCache& cluster, kube::Client& client,
                                             cloud::CloudProvider& cloud,
                                             cloud::OverlayStore& store, const Clock& clock,
                                             Logger logger)
    : cluster_(cluster),
      client_(client),
      cloud_(cloud),
      store_(store),
      clock_(clock),
      logger_(std::move(logger)),
      changes_({&cluster_.node_overlays(), &cluster_.node_pools(), &cluster_.node_classes()}) {}

bool NodeOverlayController::InputsChanged() const { return changes_.Changed(); }

Status NodeOverlayController::Reconcile() {
  changes_.Seen();

  std::vector<kube::Object> objects;
  cluster_.node_overlays().ForEach([&](const kube::Object& object) { objects.push_back(object); });
  std::vector<api::NodeOverlay> overlays;
  std::map<std::string, std::string, std::less<>> invalid;  // by name: why
  for (const kube::Object& object : objects) {
    std::string error;
    if (std::optional<api::NodeOverlay> overlay = DecodeNodeOverlay(object, &error)) {
      overlays.push_back(std::move(*overlay));
    } else {
      invalid.emplace(kube::Name(object), std::move(error));
    }
  }

  std::vector<api::NodePool> pools;
  cluster_.node_pools().ForEach([&](const kube::Object& object) {
    if (std::optional<api::NodePool> pool = DecodeNodePool(object)) {
      pools.push_back(std::move(*pool));
    }
  });
  std::vector<cloud::OverlayTarget> targets;
  std::vector<std::string> failures;
  for (const api::NodePool& pool : pools) {
    Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> types =
        cloud_.GetInstanceTypes(pool);
    if (!types.ok()) {
      failures.push_back(fmt::format("NodePool {}: {}", pool.metadata.name, types.error().message));
      continue;
    }
    targets.push_back({pool.metadata.name, pool.spec.template_.metadata.labels, std::move(*types)});
  }

  cloud::OverlayEvaluation evaluation = cloud::EvaluateOverlays(overlays, targets);
  std::map<std::string, cloud::OverlayConflict, std::less<>> conflicts;
  for (cloud::OverlayConflict& conflict : evaluation.conflicts) {
    conflicts.emplace(conflict.overlay, std::move(conflict));
  }
  store_.Publish(std::move(evaluation));

  for (const kube::Object& object : objects) {
    const std::string_view name = kube::Name(object);
    Status written;
    if (const auto bad = invalid.find(name); bad != invalid.end()) {
      written = WriteStatus(object, false, kReasonOverlayInvalid, bad->second);
    } else if (const auto conflict = conflicts.find(name); conflict != conflicts.end()) {
      written = WriteStatus(
          object, false, cloud::kReasonOverlayConflict,
          fmt::format("conflicts with NodeOverlay {} of the same weight, which changes {} "
                      "first; applied nowhere until the weights differ or they no longer overlap",
                      conflict->second.with, conflict->second.what));
    } else {
      written = WriteStatus(object, true, api::kConditionValidationSucceeded, "");
    }
    if (!written.ok()) failures.push_back(written.error().message);
  }
  if (!failures.empty()) return Error(fmt::format("{}", fmt::join(failures, "; ")));
  return {};
}

Status NodeOverlayController::WriteStatus(const kube::Object& object, bool valid,
                                          std::string_view reason, std::string_view message) {
  const TimePoint now = clock_.Now();
  const int64_t generation = kube::Generation(object);
  kube::Object conditions = ConditionsOf(object);
  bool changed = SetCondition(conditions, api::kConditionValidationSucceeded, valid, reason,
                              message, now, generation);
  changed = SetCondition(conditions, api::kConditionReady, valid,
                         valid ? api::kConditionReady : reason, message, now, generation) ||
            changed;
  if (!changed) return {};
  if (!valid &&
      ConditionStatus(object, api::kConditionValidationSucceeded) != api::kConditionFalse) {
    logger_.Warn("nodeoverlay not applied", {{"NodeOverlay", {{"name", kube::Name(object)}}},
                                             {"reason", reason},
                                             {"message", message}});
  }
  return PatchStatus(client_, kube::resources::kNodeOverlays, object,
                     kube::Object{{"conditions", std::move(conditions)}});
}

}  // namespace karpenter::controllers
