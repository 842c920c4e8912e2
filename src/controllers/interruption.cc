#include "controllers/interruption.h"

#include <algorithm>
#include <deque>
#include <string>
#include <utility>

#include "api/condition.h"
#include "controllers/cluster_snapshot.h"
#include "controllers/conditions.h"
#include "provisioning/scheduler.h"

namespace karpenter::controllers {
namespace {

using std::chrono::milliseconds;

// How often a held drain looks again for its pods' new capacity.
constexpr milliseconds kHoldPoll(2000);
// Status patches that lose a race with another writer are tried again this many times.
constexpr int kMarkAttempts = 3;

// Whether the reschedulable pods of `node_name` all fit on Nodes that are ready now (in-flight
// NodeClaims and Nodes still initializing do not count).
bool PodsFitOnReadyNodes(const ClusterCache& cluster, std::string_view node_name) {
  const ClusterSnapshot snapshot = TakeCapacitySnapshot(cluster, cluster.decoded_pods().All());
  SchedulingView view = BuildSchedulingView(snapshot);
  provisioning::SchedulerInput input;
  std::deque<api::Pod> displaced;
  for (size_t i = 0; i < view.sources.size(); ++i) {
    provisioning::ExistingNode& node = view.input.existing_nodes[i];
    const CapacitySource& source = view.sources[i];
    if (node.name == node_name) {
      AddDisplacedPods(node, displaced, input.pods);
      continue;
    }
    if (source.node == nullptr || !source.node->Ready() ||
        (source.node_claim != nullptr &&
         !api::IsConditionTrue(source.node_claim->status.conditions, api::kConditionInitialized))) {
      continue;
    }
    input.existing_nodes.push_back(std::move(node));
  }
  if (input.pods.empty()) return true;
  const provisioning::SchedulerResult result = provisioning::Schedule(input);
  return result.unschedulable.empty() && result.node_claims.empty();
}

}  // namespace

Status DeleteInterruptedNodeClaim(kube::Client& client, const kube::Object& claim,
                                  std::string_view message, TimePoint now) {
  if (!kube::DeletionTimestamp(claim).empty()) return {};
  const std::string name(kube::Name(claim));
  kube::Object current = claim;
  for (int attempt = 1;; ++attempt) {
    kube::Object conditions = ConditionsOf(current);
    SetCondition(conditions, api::kConditionDisruptionReason, true,
                 api::kDisruptionReasonInterrupted, message, now, kube::Generation(current));
    Status marked = PatchStatus(client, kube::resources::kNodeClaims, current,
                                {{"conditions", std::move(conditions)}});
    if (marked.ok()) break;
    if (marked.error().status == 404) return {};
    if (marked.error().status != 409 || attempt == kMarkAttempts) return marked;
    Result<kube::Object> fresh = client.Get(kube::resources::kNodeClaims, "", name);
    if (!fresh.ok()) return fresh.error().status == 404 ? Status() : Status(fresh.error());
    current = std::move(*fresh);
  }
  Status deleted = client.Delete(kube::resources::kNodeClaims, "", name, {});
  if (!deleted.ok() && deleted.error().status != 404) return deleted;
  return {};
}

std::optional<milliseconds> InterruptedDrainWait(const ClusterCache& cluster,
                                                 const api::NodeClaim& claim,
                                                 std::string_view node_name, TimePoint now) {
  const api::Condition* reason =
      api::FindCondition(claim.status.conditions, api::kConditionDisruptionReason);
  if (reason == nullptr || reason->status != api::kConditionTrue ||
      reason->reason != api::kDisruptionReasonInterrupted) {
    return std::nullopt;
  }
  const std::optional<TimePoint> since = ParseTime(reason->last_transition_time);
  if (!since || now >= *since + kInterruptionDrainHold) return std::nullopt;
  if (PodsFitOnReadyNodes(cluster, node_name)) return std::nullopt;
  return std::min(kHoldPoll,
                  std::chrono::ceil<milliseconds>(*since + kInterruptionDrainHold - now));
}

}  // namespace karpenter::controllers
