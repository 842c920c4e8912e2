#include "controllers/garbage_collection.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "controllers/conditions.h"
#include "controllers/disruption_count.h"

namespace karpenter::controllers {

GarbageCollector::GarbageCollector(ClusterCache& cluster, kube::Client& client,
                                   cloud::CloudProvider& cloud, Metrics& metrics,
                                   const Clock& clock, Logger logger,
                                   std::chrono::milliseconds grace)
    : cluster_(cluster),
      client_(client),
      cloud_(cloud),
      metrics_(metrics),
      clock_(clock),
      logger_(std::move(logger)),
      grace_(grace) {}

Result<GarbageCollectionResult> GarbageCollector::Collect() {
  ASSIGN_OR_RETURN(std::vector<cloud::Instance> instances, cloud_.List());
  GarbageCollectionResult result;
  const TimePoint now = clock_.Now();

  std::set<std::string, std::less<>> claim_names;
  std::set<std::string, std::less<>> claimed_ids;
  std::vector<std::pair<std::string, std::string>> launched;  // name, provider ID
  cluster_.node_claims().ForEach([&](const kube::Object& claim) {
    claim_names.emplace(kube::Name(claim));
    const std::string provider_id(kube::StringAt(claim, {"status", "providerID"}));
    if (provider_id.empty()) return;
    claimed_ids.insert(provider_id);
    if (kube::DeletionTimestamp(claim).empty() &&
        ConditionStatus(claim, api::kConditionLaunched) == api::kConditionTrue) {
      launched.emplace_back(std::string(kube::Name(claim)), provider_id);
    }
  });

  std::set<std::string, std::less<>> live_ids;
  for (const cloud::Instance& instance : instances) {
    live_ids.insert(instance.provider_id);
    if (claimed_ids.contains(instance.provider_id) || claim_names.contains(instance.node_claim) ||
        now - instance.launch_time < grace_) {
      continue;
    }
    Status terminated = cloud_.Delete(instance.provider_id);
    if (!terminated.ok() && terminated.error().reason != cloud::kReasonNotFound) {
      logger_.Error("terminating leaked instance failed",
                    {logkey::ProviderId(instance.provider_id), logkey::Err(terminated.error())});
      continue;
    }
    // The machine is gone, so is the Node it registered (no NodeClaim will ever finalize it).
    if (std::optional<kube::Object> node = cluster_.NodeByProviderId(instance.provider_id)) {
      DeleteNode(std::string(kube::Name(*node)));
    }
    logger_.Info("garbage collected leaked instance", {logkey::ProviderId(instance.provider_id),
                                                       logkey::NodeClaim(instance.node_claim)});
    ++result.instances_terminated;
  }

  // Our Node whose machine is gone and that no NodeClaim claims: its NodeClaim was finalized
  // before the Node reached the cache, or its machine was terminated from outside. Nothing would
  // ever delete it on a cluster without a cloud controller manager that does.
  std::vector<std::pair<std::string, std::string>> orphans;  // Node, provider ID
  cluster_.nodes().ForEach([&](const kube::Object& node) {
    const std::string provider_id(kube::StringAt(node, {"spec", "providerID"}));
    if (provider_id.empty() || live_ids.contains(provider_id) ||
        claimed_ids.contains(provider_id) || kube::Label(node, api::kLabelNodePool).empty()) {
      return;
    }
    const std::optional<TimePoint> created =
        ParseTime(kube::StringAt(node, {"metadata", "creationTimestamp"}));
    if (created && now - *created >= grace_) {
      orphans.emplace_back(std::string(kube::Name(node)), provider_id);
    }
  });
  for (const auto& [name, provider_id] : orphans) {
    Result<cloud::Instance> instance = cloud_.Get(provider_id);
    if (instance.ok() || instance.error().reason != cloud::kReasonNotFound) continue;
    if (DeleteNode(name)) {
      logger_.Info("garbage collected node whose instance is gone and has no nodeclaim",
                   {logkey::Node(name), logkey::ProviderId(provider_id)});
      ++result.nodes_deleted;
    }
  }

  for (const auto& [name, provider_id] : launched) {
    if (live_ids.contains(provider_id)) continue;
    // List may race a launch that finished after it: confirm before deleting.
    Result<cloud::Instance> instance = cloud_.Get(provider_id);
    if (instance.ok() || instance.error().reason != cloud::kReasonNotFound) continue;
    const std::optional<kube::Object> claim = cluster_.node_claims().Get(name);
    Status deleted = client_.Delete(kube::resources::kNodeClaims, "", name, {});
    if (!deleted.ok() && deleted.error().status != 404) {
      logger_.Error("deleting nodeclaim without instance failed",
                    {logkey::NodeClaim(name), logkey::Err(deleted.error())});
      continue;
    }
    if (deleted.ok() && claim) {
      CountDisrupted(metrics_, cluster_, *claim, "garbage_collected");
    }
    logger_.Info("garbage collected nodeclaim whose instance is gone",
                 {logkey::NodeClaim(name), logkey::ProviderId(provider_id)});
    ++result.node_claims_deleted;
  }
  result.capacity_types_updated = UpdateCapacityTypes(instances);
  return result;
}

bool GarbageCollector::DeleteNode(const std::string& name) {
  // Our finalizer would wait for a NodeClaim that does not exist.
  (void)client_.Patch(kube::resources::kNodes, "", name, kube::PatchType::kMerge,
                      kube::Object{{"metadata", {{"finalizers", nullptr}}}},
                      kube::Subresource::kNone);
  Status deleted = client_.Delete(kube::resources::kNodes, "", name, {});
  if (!deleted.ok() && deleted.error().status != 404) {
    logger_.Error("deleting a node whose instance is gone failed",
                  {logkey::Node(name), logkey::Err(deleted.error())});
    return false;
  }
  return true;
}

size_t GarbageCollector::UpdateCapacityTypes(const std::vector<cloud::Instance>& instances) {
  std::map<std::string_view, const cloud::Instance*> by_id;
  for (const cloud::Instance& instance : instances) by_id.emplace(instance.provider_id, &instance);
  const auto reserved = [](const kube::Object& object) {
    return kube::DeletionTimestamp(object).empty() &&
           kube::Label(object, api::kLabelCapacityType) == api::kCapacityTypeReserved;
  };
  // A NodeClaim, its instance, and its Node when that still says reserved. The Node is looked at
  // on its own, so one whose patch failed is relabelled on a later pass, after its NodeClaim.
  struct Stale {
    std::string claim;  // empty when only the Node is stale
    const cloud::Instance* instance;
    std::optional<std::string> node;
  };
  std::vector<Stale> stale;
  // The NodeClaims first, their Nodes after: one informer is never read inside another's ForEach
  // (each holds its lock; nesting them in both orders could deadlock).
  cluster_.node_claims().ForEach([&](const kube::Object& claim) {
    if (!kube::DeletionTimestamp(claim).empty()) return;
    const auto found = by_id.find(kube::StringAt(claim, {"status", "providerID"}));
    if (found == by_id.end() || found->second->capacity_type.empty() ||
        found->second->capacity_type == api::kCapacityTypeReserved) {
      return;
    }
    stale.push_back({reserved(claim) ? std::string(kube::Name(claim)) : std::string(),
                     found->second, std::nullopt});
  });
  for (Stale& entry : stale) {
    std::optional<kube::Object> node = cluster_.NodeByProviderId(entry.instance->provider_id);
    if (node.has_value() && reserved(*node)) entry.node = std::string(kube::Name(*node));
  }
  std::erase_if(stale, [](const Stale& entry) { return entry.claim.empty() && !entry.node; });
  size_t updated = 0;
  for (const Stale& entry : stale) {
    const kube::Object labels = {
        {std::string(api::kLabelCapacityType), entry.instance->capacity_type},
        {std::string(api::kLabelCapacityReservationId), nullptr},
        {std::string(api::kLabelCapacityReservationType), nullptr}};
    const kube::Object patch = {{"metadata", {{"labels", labels}}}};
    if (!entry.claim.empty()) {
      if (Result<kube::Object> patched =
              client_.Patch(kube::resources::kNodeClaims, "", entry.claim, kube::PatchType::kMerge,
                            patch, kube::Subresource::kNone);
          !patched.ok()) {
        logger_.Error("relabelling a nodeclaim whose reservation ended failed",
                      {logkey::NodeClaim(entry.claim), logkey::Err(patched.error())});
        continue;
      }
      logger_.Info(
          "capacity reservation ended: relabelled nodeclaim",
          {logkey::NodeClaim(entry.claim), {"capacityType", entry.instance->capacity_type}});
      ++updated;
    }
    if (entry.node) {
      if (Result<kube::Object> patched =
              client_.Patch(kube::resources::kNodes, "", *entry.node, kube::PatchType::kMerge,
                            patch, kube::Subresource::kNone);
          !patched.ok()) {
        logger_.Error("relabelling a node whose reservation ended failed",
                      {logkey::Node(*entry.node), logkey::Err(patched.error())});
      }
    }
  }
  return updated;
}

}  // namespace karpenter::controllers
