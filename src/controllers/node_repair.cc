#include "controllers/node_repair.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "controllers/conditions.h"
#include "controllers/disruption_count.h"

namespace karpenter::controllers {
namespace {

// Up to this share of a NodePool's Nodes may be unhealthy for repair to go on (rounded up).
constexpr int kUnhealthyPercent = 20;

// "ContainerRuntimeReady" → "container_runtime_ready", as upstream's condition label.
std::string SnakeCase(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isupper(static_cast<unsigned char>(c)) != 0) {
      if (!out.empty()) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

// An unhealthy condition of a Node: the policy it matches and when its toleration ends.
struct Unhealthy {
  std::string condition;
  std::string status;
  std::chrono::minutes toleration;
  TimePoint since;

  TimePoint due() const { return since + toleration; }
};

struct Candidate {
  kube::Object node;
  kube::Object claim;
  std::string pool;     // the NodePool's name
  Unhealthy first_due;  // the matching condition whose toleration ends first
};

}  // namespace

NodeRepair::NodeRepair(ClusterCache& cluster, kube::Client& client,
                       const cloud::CloudProvider& cloud, kube::EventRecorder& events,
                       Metrics& metrics, const Clock& clock, Logger logger)
    : cluster_(cluster),
      client_(client),
      cloud_(cloud),
      events_(events),
      metrics_(metrics),
      clock_(clock),
      logger_(std::move(logger)) {}

TimePoint NodeRepair::UnhealthySince(const std::string& node, std::string_view condition,
                                     std::optional<TimePoint> transition, TimePoint now) {
  if (transition) return *transition;
  return first_seen_.try_emplace({node, std::string(condition)}, now).first->second;
}

Result<RepairResult> NodeRepair::Repair() {
  RepairResult result;
  const std::span<const cloud::RepairPolicy> policies = cloud_.RepairPolicies();
  if (policies.empty()) return result;
  const TimePoint now = clock_.Now();

  // Every Node of ours, counted per NodePool; the unhealthy ones kept as candidates.
  std::map<std::string, int, std::less<>> nodes;
  std::map<std::string, int, std::less<>> unhealthy;
  std::vector<Candidate> candidates;
  std::set<std::pair<std::string, std::string>> still_unhealthy;
  cluster_.nodes().ForEach([&](const kube::Object& node) {
    // Ours carry their NodePool's label (counted without decoding or looking up the NodeClaim);
    // the NodeClaim is looked up only for a Node that is unhealthy, below.
    const std::string pool(kube::Label(node, api::kLabelNodePool));
    if (pool.empty()) return;
    ++nodes[pool];
    const std::string name(kube::Name(node));
    std::optional<Unhealthy> first;
    const kube::Object* conditions = kube::Find(node, {"status", "conditions"});
    if (conditions != nullptr && conditions->is_array()) {
      for (const kube::Object& condition : *conditions) {
        const std::string_view type = kube::StringAt(condition, {"type"});
        const std::string_view status = kube::StringAt(condition, {"status"});
        for (const cloud::RepairPolicy& policy : policies) {
          if (policy.condition_type != type || policy.condition_status != status) continue;
          still_unhealthy.emplace(name, type);
          const TimePoint since = UnhealthySince(
              name, type, ParseTime(kube::StringAt(condition, {"lastTransitionTime"})), now);
          Unhealthy match{std::string(type), std::string(status), policy.toleration, since};
          if (!first || match.due() < first->due()) first = std::move(match);
        }
      }
    }
    if (!first) return;
    ++unhealthy[pool];
    candidates.push_back({node, kube::Object(), pool, std::move(*first)});
  });
  // Their NodeClaims are looked up after the pass over the Nodes: one informer is never read
  // inside another's ForEach (each holds its lock; nesting them in both orders could deadlock).
  std::erase_if(candidates, [&](Candidate& candidate) {
    const std::string_view provider_id = kube::StringAt(candidate.node, {"spec", "providerID"});
    if (provider_id.empty()) return true;
    std::vector<kube::Object> claims =
        cluster_.node_claims().ByIndex(kIndexNodeClaimsByProviderId, provider_id);
    if (claims.empty()) return true;  // not launched by us: never repaired
    candidate.claim = std::move(claims.front());
    return false;
  });
  std::erase_if(first_seen_,
                [&](const auto& entry) { return !still_unhealthy.contains(entry.first); });

  for (const Candidate& candidate : candidates) {
    const std::string node_name(kube::Name(candidate.node));
    if (!kube::DeletionTimestamp(candidate.claim).empty()) continue;  // already going
    const Unhealthy& cause = candidate.first_due;
    if (now < cause.due()) {
      result.next_deadline =
          result.next_deadline ? std::min(*result.next_deadline, cause.due()) : cause.due();
      continue;
    }
    const int total = nodes[candidate.pool];
    const int sick = unhealthy[candidate.pool];
    const int allowed = (total * kUnhealthyPercent + 99) / 100;
    if (sick > allowed) {
      ++result.blocked;
      const std::string message = fmt::format(
          "more than {}% of the nodes of NodePool \"{}\" are unhealthy ({} of {}): not "
          "repairing any of them",
          kUnhealthyPercent, candidate.pool, sick, total);
      events_.Record(candidate.node, kube::EventType::kWarning, "NodeRepairBlocked", message,
                     kRepairBlockedRepeat);
      logger_.Warn("node repair blocked", {logkey::Node(node_name), {"reason", message}});
      continue;
    }
    const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(now - cause.since);
    const std::string message = fmt::format(
        "Node condition {} has been {} for {}m, past its toleration of {}m: "
        "force-terminating the NodeClaim",
        cause.condition, cause.status, minutes.count(), cause.toleration.count());
    if (Status terminated =
            ForceTerminate(candidate.claim, candidate.node, cause.condition, message, now);
        !terminated.ok()) {
      logger_.Error("repairing a node failed",
                    {logkey::Node(node_name), logkey::NodeClaim(kube::Name(candidate.claim)),
                     logkey::Err(terminated.error())});
      continue;
    }
    ++result.repaired;
  }
  return result;
}

Status NodeRepair::ForceTerminate(const kube::Object& claim, const kube::Object& node,
                                  std::string_view condition, std::string_view message,
                                  TimePoint now) {
  const std::string name(kube::Name(claim));
  // The termination deadline is now: termination deletes the pods left without evicting them.
  Result<kube::Object> annotated = client_.Patch(
      kube::resources::kNodeClaims, "", name, kube::PatchType::kMerge,
      {{"metadata",
        {{"annotations",
          {{std::string(api::kAnnotationNodeClaimTerminationTimestamp), FormatTime(now)}}}}}},
      kube::Subresource::kNone);
  if (!annotated.ok()) {
    return annotated.error().status == 404 ? Status() : Status(annotated.error());
  }
  kube::Object conditions = ConditionsOf(*annotated);
  SetCondition(conditions, api::kConditionDisruptionReason, true, api::kDisruptionReasonUnhealthy,
               message, now, kube::Generation(*annotated));
  if (Status marked = PatchStatus(client_, kube::resources::kNodeClaims, *annotated,
                                  {{"conditions", std::move(conditions)}});
      !marked.ok()) {
    // The reason is for the drain's metrics and for users; the repair goes on without it.
    logger_.Warn("marking a repaired nodeclaim failed",
                 {logkey::NodeClaim(name), logkey::Err(marked.error())});
  }
  Status deleted = client_.Delete(kube::resources::kNodeClaims, "", name, {});
  if (!deleted.ok()) return deleted.error().status == 404 ? Status() : deleted;
  const std::string_view pool = kube::Label(claim, api::kLabelNodePool);
  const std::string_view capacity_type = kube::Label(claim, api::kLabelCapacityType);
  CountDisrupted(metrics_, cluster_, claim, "unhealthy");
  metrics_.NodeClaimUnhealthyDisrupted(SnakeCase(condition), pool, capacity_type,
                                       kube::StringAt(claim, {"status", "imageID"}));
  events_.Record(node, kube::EventType::kWarning, "NodeRepair", message);
  logger_.Info("repairing node: deleted its nodeclaim", {logkey::Node(kube::Name(node)),
                                                         logkey::NodeClaim(name),
                                                         {"condition", std::string(condition)},
                                                         {"reason", std::string(message)}});
  return {};
}

}  // namespace karpenter::controllers
