#include "controllers/static_capacity.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

#include "api/condition.h"
#include "api/labels.h"
#include "api/workloads.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/conditions.h"
#include "controllers/disruption_view.h"

namespace karpenter::controllers {

StaticCapacity::StaticCapacity(ClusterCache& cluster, kube::Client& client,
                               cloud::CloudProvider& cloud, Provisioner& provisioner,
                               kube::EventRecorder& events, Metrics& metrics, const Clock& clock,
                               Logger logger, provisioning::SchedulingPolicy policy)
    : cluster_(cluster),
      client_(client),
      cloud_(cloud),
      provisioner_(provisioner),
      events_(events),
      metrics_(metrics),
      clock_(clock),
      logger_(std::move(logger)),
      policy_(policy) {}

Result<StaticCapacity::Requeue> StaticCapacity::Reconcile(std::string_view name) {
  const std::optional<kube::Object> object = cluster_.node_pools().Get(name);
  if (!object || !kube::DeletionTimestamp(*object).empty()) return Requeue();
  const std::optional<api::NodePool> pool = DecodeNodePool(*object);
  if (!pool || !api::IsStatic(*pool)) return Requeue();

  // Expectations the informer has met (or that waited too long) are done with.
  const MonoTime now = clock_.Monotonic();
  std::erase_if(created_, [&](const auto& entry) {
    return now - entry.second.at > kExpectationTimeout ||
           cluster_.node_claims().Get(entry.first).has_value();
  });
  std::erase_if(deleted_, [&](const auto& entry) {
    const std::optional<kube::Object> claim = cluster_.node_claims().Get(entry.first);
    return now - entry.second.at > kExpectationTimeout || !claim ||
           !kube::DeletionTimestamp(*claim).empty();
  });

  std::vector<std::shared_ptr<const api::NodeClaim>> active;
  int64_t existing = 0;  // what limits.nodes counts: deleting ones too
  for (std::shared_ptr<const api::NodeClaim>& claim : cluster_.decoded_node_claims().All()) {
    if (api::LabelValue(claim->metadata.labels, api::kLabelNodePool) != name) continue;
    ++existing;
    if (claim->metadata.deletion_timestamp.empty() && !deleted_.contains(claim->metadata.name)) {
      active.push_back(std::move(claim));
    }
  }
  int64_t launching = 0;  // created, not in the informer yet
  for (const auto& [claim, expectation] : created_) {
    if (expectation.node_pool == name) ++launching;
  }
  existing += launching;
  const int64_t replicas = *pool->spec.replicas;
  const auto count = static_cast<int64_t>(active.size()) + launching;
  if (count > replicas) {
    // Those still to appear are the surplus first; a later pass deletes them once they have.
    if (count - launching > replicas) {
      RETURN_IF_ERROR(ScaleDown(*pool, *object, active, count - launching - replicas));
    }
    return Requeue();
  }
  if (count == replicas) return Requeue();
  // Not Ready (invalid, its EC2NodeClass missing or not ready): its status says why.
  if (ConditionStatus(*object, api::kConditionReady) != api::kConditionTrue) {
    return Requeue(kStaticRecheck);
  }
  return ScaleUp(*pool, *object, replicas - count, existing);
}

Result<StaticCapacity::Requeue> StaticCapacity::ScaleUp(const api::NodePool& pool,
                                                        const kube::Object& object, int64_t wanted,
                                                        int64_t existing) {
  ASSIGN_OR_RETURN(std::shared_ptr<const std::vector<cloud::InstanceType>> types,
                   cloud_.GetInstanceTypes(pool));
  provisioning::NodePoolOffer offer;
  offer.node_pool = &pool;
  for (const cloud::InstanceType& type : *types) offer.instance_types.push_back(&type);
  offer.in_use.Set("nodes", Quantity::FromUnits(existing));
  const std::vector<api::Workload> daemon_sets = DecodeDaemonSets(cluster_);
  provisioning::SchedulerInput input;
  input.policy = policy_;
  input.node_pools.push_back(std::move(offer));
  for (const api::Workload& daemon_set : daemon_sets) {
    input.daemon_sets.push_back(&daemon_set.template_);
  }
  std::string why;
  const std::vector<provisioning::PlannedNodeClaim> planned =
      provisioning::PlanTemplateClaims(input, pool.metadata.name, static_cast<size_t>(wanted), why);
  for (const provisioning::PlannedNodeClaim& claim : planned) {
    ASSIGN_OR_RETURN(kube::Object created, provisioner_.CreateNodeClaim(claim, object));
    created_.insert_or_assign(std::string(kube::Name(created)),
                              Expectation{pool.metadata.name, clock_.Monotonic()});
    metrics_.NodeClaimCreated("provisioned", pool.metadata.name, !claim.relaxed_min_values.empty());
    logger_.Info("created nodeclaim", {logkey::NodePool(pool.metadata.name),
                                       logkey::NodeClaim(kube::Name(created)),
                                       {"replicas", *pool.spec.replicas},
                                       {"instance-types", claim.instance_types.size()}});
  }
  if (std::cmp_equal(planned.size(), wanted)) return Requeue();
  const std::string message =
      fmt::format("NodePool {} can launch {} of the {} NodeClaims its replicas ask for: {}",
                  pool.metadata.name, planned.size(), wanted, why);
  events_.Record(object, kube::EventType::kWarning, "ReplicasNotMet", message);
  logger_.Warn("static nodepool short of its replicas",
               {logkey::NodePool(pool.metadata.name), {"reason", why}});
  return Requeue(kStaticRecheck);
}

StaticCapacity::Removal StaticCapacity::RemovalOf(const api::NodeClaim& claim) const {
  Removal removal{!claim.status.provider_id.empty(), false, false, 0, claim.metadata.name};
  if (claim.status.node_name.empty()) return removal;
  for (const kube::Object& object :
       cluster_.pods().ByIndex(kIndexPodsByNode, claim.status.node_name)) {
    const std::shared_ptr<const api::Pod> pod = cluster_.decoded_pods().Get(kube::Key(object));
    if (pod == nullptr || !api::IsReschedulable(*pod)) continue;
    removal.has_pods = true;
    removal.do_not_disrupt = removal.do_not_disrupt || api::DoNotDisrupt(pod->metadata);
    removal.eviction_cost += EvictionCost(*pod);
  }
  return removal;
}

Status StaticCapacity::ScaleDown(const api::NodePool& pool, const kube::Object& object,
                                 const std::vector<std::shared_ptr<const api::NodeClaim>>& active,
                                 int64_t surplus) {
  std::vector<Removal> removals;
  removals.reserve(active.size());
  for (const std::shared_ptr<const api::NodeClaim>& claim : active) {
    removals.push_back(RemovalOf(*claim));
  }
  std::sort(removals.begin(), removals.end(),
            [](const Removal& a, const Removal& b) { return a.Key() < b.Key(); });
  removals.resize(static_cast<size_t>(std::min<int64_t>(surplus, std::ssize(removals))));
  for (const Removal& removal : removals) {
    Status deleted =
        client_.Delete(kube::resources::kNodeClaims, "", removal.name, kube::DeleteOptions{});
    if (!deleted.ok() && deleted.error().status != 404) return deleted;
    deleted_.insert_or_assign(removal.name, Expectation{pool.metadata.name, clock_.Monotonic()});
    events_.Record(
        object, kube::EventType::kNormal, "ScaledDown",
        fmt::format("Deleting NodeClaim {}: NodePool {} has {} NodeClaims for {} "
                    "replicas",
                    removal.name, pool.metadata.name, active.size(), *pool.spec.replicas));
    logger_.Info("deleting nodeclaim over the nodepool's replicas",
                 {logkey::NodePool(pool.metadata.name), logkey::NodeClaim(removal.name)});
  }
  return {};
}

}  // namespace karpenter::controllers
