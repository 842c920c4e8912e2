#include "controllers/disruption_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "api/condition.h"
#include "api/labels.h"
#include "controllers/node_taints.h"
#include "controllers/nodeclaim_disruption.h"
#include "disruption/budgets.h"
#include "kube/disruption_budget.h"

namespace karpenter::controllers {
namespace {

std::string PodKey(std::string_view namespace_, std::string_view name) {
  return std::string(namespace_) + "/" + std::string(name);
}

// Pods a PodDisruptionBudget protects right now, with the budget ("namespace/name"): it allows no
// disruption (as its status says, or — before any controller wrote one — as computed from the
// pods).
std::map<std::string, std::string, std::less<>> ProtectedPods(const ClusterCache& cluster) {
  std::map<std::string, std::string, std::less<>> protected_pods;
  cluster.disruption_budgets().ForEach([&](const kube::Object& budget) {
    const kube::Object* status = kube::Find(budget, {"status", "disruptionsAllowed"});
    const bool has_status = status != nullptr && status->is_number_integer();
    if (has_status && status->get<int64_t>() > 0) return;
    cluster.pods().VisitIndexed(
        kIndexPodsByNamespace, kube::Namespace(budget),
        [&](const std::vector<const kube::Object*>& pods) {
          std::vector<const kube::Object*> selected;
          Result<kube::DisruptionBudgetStatus> computed =
              kube::ComputeDisruptionBudget(budget, pods, &selected);
          // A status allows nothing here (see above); without one, the computed value decides.
          if (!has_status && computed.ok() && computed->disruptions_allowed > 0) return;
          for (const kube::Object* pod : selected) {
            protected_pods.emplace(PodKey(kube::Namespace(*pod), kube::Name(*pod)),
                                   PodKey(kube::Namespace(budget), kube::Name(budget)));
          }
        });
  });
  return protected_pods;
}

// The price of the node's offering in its NodePool's instance types; 0 when it is not there.
double NodePrice(const api::Node& node, const NodePoolView& pool) {
  auto label = [&](std::string_view key) -> std::string_view {
    const auto it = node.metadata.labels.find(key);
    return it == node.metadata.labels.end() ? std::string_view() : it->second;
  };
  const std::string_view type_name = label(api::kLabelInstanceType);
  for (const cloud::InstanceType& type : *pool.instance_types) {
    if (type.name != type_name) continue;
    for (const cloud::Offering& offering : type.offerings) {
      if (offering.zone == label(api::kLabelZone) &&
          offering.capacity_type == label(api::kLabelCapacityType)) {
        return offering.price;
      }
    }
  }
  return 0;
}

// The eviction costs of the pods that would have to move off a node.
std::vector<double> EvictionCosts(const std::vector<const api::Pod*>& pods) {
  std::vector<double> costs;
  for (const api::Pod* pod : pods) {
    if (!api::IsDaemonSetPod(*pod) && !api::IsMirrorPod(*pod)) costs.push_back(EvictionCost(*pod));
  }
  return costs;
}

}  // namespace

double EvictionCost(const api::Pod& pod) {
  constexpr double kDeletionCostScale = 1 << 27;
  constexpr double kPriorityScale = 1 << 25;
  double cost = 1.0 + api::PodDeletionCost(pod) / kDeletionCostScale;
  cost += static_cast<double>(pod.spec.priority.value_or(0)) / kPriorityScale;
  return std::clamp(cost, -10.0, 10.0);
}

std::unique_ptr<DisruptionView> BuildDisruptionView(
    const ClusterCache& cluster, cloud::CloudProvider& cloud, const Logger& logger, TimePoint now,
    const std::vector<std::shared_ptr<const api::Pod>>& buffer_copies) {
  auto view = std::make_unique<DisruptionView>();
  std::vector<std::shared_ptr<const api::Pod>> pods = cluster.decoded_pods().All();
  pods.insert(pods.end(), buffer_copies.begin(), buffer_copies.end());
  view->snapshot = TakeSnapshot(cluster, cloud, logger, std::move(pods));
  SchedulingView scheduling = BuildSchedulingView(view->snapshot);
  view->sources = std::move(scheduling.sources);
  disruption::Cluster& out = view->cluster;
  out.capacity = std::move(scheduling.input);

  std::map<std::string_view, const NodePoolView*> pools;
  for (const NodePoolView& pool : view->snapshot.node_pools) pools[pool.pool.metadata.name] = &pool;
  std::map<std::string_view, int> total;
  std::map<std::string_view, int> disrupting;
  for (const auto& claim : view->snapshot.node_claims) {
    const auto pool = claim->metadata.labels.find(api::kLabelNodePool);
    if (pool == claim->metadata.labels.end()) continue;
    ++total[pool->second];
    if (!claim->metadata.deletion_timestamp.empty()) ++disrupting[pool->second];
  }
  const std::map<std::string, std::string, std::less<>> protected_pods = ProtectedPods(cluster);
  const api::Taint disrupted = DisruptedTaint();

  out.accepts_pods.assign(out.capacity.existing_nodes.size(), false);
  for (size_t i = 0; i < view->sources.size(); ++i) {
    const CapacitySource& source = view->sources[i];
    if (source.node == nullptr) continue;  // in flight: not initialized yet
    const api::Node& node = *source.node;
    const api::NodeClaim* claim = source.node_claim;
    const bool marked = std::find(node.spec.taints.begin(), node.spec.taints.end(), disrupted) !=
                        node.spec.taints.end();
    const bool initialized = claim == nullptr || api::IsConditionTrue(claim->status.conditions,
                                                                      api::kConditionInitialized);
    const bool deleting = claim != nullptr && !claim->metadata.deletion_timestamp.empty();
    out.accepts_pods[i] = initialized && !deleting && !marked && !node.spec.unschedulable;
    if (claim == nullptr) continue;  // not ours to disrupt
    const auto pool_label = claim->metadata.labels.find(api::kLabelNodePool);
    if (pool_label == claim->metadata.labels.end()) continue;
    const std::vector<double> eviction_costs = EvictionCosts(out.capacity.existing_nodes[i].pods);
    if (const auto pool = pools.find(pool_label->second); pool != pools.end()) {
      // Every node of the pool counts, candidate or not (Balanced consolidation's denominators).
      disruption::PoolTotals& totals = out.pool_totals[pool_label->second];
      totals.cost += NodePrice(node, *pool->second);
      totals.disruption_cost += disruption::NodeDisruptionCost(eviction_costs);
    }
    if (marked && !deleting) ++disrupting[pool_label->second];
    if (deleting || marked) continue;  // already disrupting
    const auto pool = pools.find(pool_label->second);
    auto block = [&](std::string reason) {
      view->blocked.push_back({&node, claim, std::move(reason)});
    };
    if (pool == pools.end()) {
      block(fmt::format("NodePool \"{}\" not found, being deleted, or without its node class",
                        pool_label->second));
      continue;
    }
    if (!initialized) {
      block("Node is not initialized");
      continue;
    }
    if (node.spec.unschedulable) {
      block("Node is cordoned");
      continue;
    }
    if (api::DoNotDisrupt(node.metadata) || api::DoNotDisrupt(claim->metadata)) {
      block(fmt::format("{} has the {} annotation",
                        api::DoNotDisrupt(node.metadata) ? "Node" : "NodeClaim",
                        api::kAnnotationDoNotDisrupt));
      continue;
    }
    disruption::Candidate candidate;
    candidate.capacity_index = i;
    candidate.node = node.metadata.name;
    candidate.node_claim = claim->metadata.name;
    candidate.node_pool = &pool->second->pool;
    auto label = [&](std::string_view key) {
      const auto it = node.metadata.labels.find(key);
      return it == node.metadata.labels.end() ? std::string() : it->second;
    };
    candidate.instance_type = label(api::kLabelInstanceType);
    candidate.capacity_type = label(api::kLabelCapacityType);
    candidate.zone = label(api::kLabelZone);
    candidate.price_per_hour = NodePrice(node, *pool->second);
    bool blocked = false;
    for (const api::Pod* pod : out.capacity.existing_nodes[i].pods) {
      if (api::IsDaemonSetPod(*pod) || api::IsMirrorPod(*pod)) {
        continue;
      }
      const std::string key = PodKey(pod->metadata.namespace_, pod->metadata.name);
      if (api::DoNotDisrupt(pod->metadata)) {
        block(fmt::format("Pod \"{}\" has the {} annotation", key, api::kAnnotationDoNotDisrupt));
        blocked = true;
        break;
      }
      if (const auto budget = protected_pods.find(key); budget != protected_pods.end()) {
        block(fmt::format("PodDisruptionBudget \"{}\" allows no eviction of pod \"{}\"",
                          budget->second, key));
        blocked = true;
        break;
      }
      candidate.pods.push_back(pod);
    }
    if (blocked) continue;
    // The same pods as eviction_costs: each costed once a pass.
    for (double cost : eviction_costs) candidate.disruption_cost += cost;
    candidate.node_disruption_cost = disruption::NodeDisruptionCost(eviction_costs);
    // A static NodePool's nodes are never consolidated (emptiness included): the user set their
    // count. Drift and expiry still replace them.
    candidate.consolidatable =
        !api::IsStatic(*candidate.node_pool) &&
        api::IsConditionTrue(claim->status.conditions, api::kConditionConsolidatable);
    if (const api::Condition* drifted =
            api::FindCondition(claim->status.conditions, api::kConditionDrifted);
        drifted != nullptr && drifted->status == api::kConditionTrue) {
      candidate.drifted = drifted->reason;
    }
    out.candidates.push_back(std::move(candidate));
  }

  for (const NodePoolView& pool : view->snapshot.node_pools) {
    const std::string& name = pool.pool.metadata.name;
    disruption::BudgetRemaining& remaining = out.budgets[name];
    for (api::DisruptionReason reason :
         {api::DisruptionReason::kUnderutilized, api::DisruptionReason::kEmpty,
          api::DisruptionReason::kDrifted}) {
      Result<int> left =
          disruption::RemainingDisruptions(pool.pool, reason, now, total[name], disrupting[name]);
      if (!left.ok()) logger.Error("invalid disruption budget", {logkey::Err(left.error())});
      remaining[static_cast<size_t>(reason)] = left.ok() ? *left : 0;
    }
  }
  return view;
}

}  // namespace karpenter::controllers
