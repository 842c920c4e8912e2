#include "controllers/disruption_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "api/condition.h"
#include "api/labels.h"
#include "controllers/conditions.h"
#include "controllers/disruption_count.h"
#include "controllers/node_taints.h"
#include "controllers/object_refs.h"
#include "disruption/budgets.h"

namespace karpenter::controllers {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kProgressPeriod(1000);
// A node stays blocked or unconsolidatable for as long as its pods do: say so again only this
// often, not at every pass.
constexpr std::chrono::minutes kWhyNotRepeatWindow(15);

std::string Reason(disruption::Method method) {
  return std::string(disruption::ReasonName(disruption::DisruptionReasonOf(method)));
}

// The reason as upstream's voluntary disruption series write it ("underutilized", …).
std::string MetricReason(disruption::Method method) {
  std::string reason = Reason(method);
  std::transform(reason.begin(), reason.end(), reason.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return reason;
}

// Upstream's consolidation_type label: none for drift.
std::string_view ConsolidationType(disruption::Method method) {
  switch (method) {
    case disruption::Method::kEmptiness:
      return "empty";
    case disruption::Method::kDrift:
      return "";
    case disruption::Method::kMultiNodeConsolidation:
      return "multi";
    case disruption::Method::kSingleNodeConsolidation:
      return "single";
  }
  return "";
}

}  // namespace

DisruptionController::DisruptionController(ClusterCache& cluster, kube::Client& client,
                                           cloud::CloudProvider& cloud, Provisioner& provisioner,
                                           kube::EventRecorder& events, Metrics& metrics,
                                           const Clock& clock, Logger logger,
                                           DisruptionOptions options)
    : cluster_(cluster),
      client_(client),
      cloud_(cloud),
      provisioner_(provisioner),
      events_(events),
      metrics_(metrics),
      clock_(clock),
      logger_(std::move(logger)),
      options_(options),
      next_poll_(clock.Monotonic() + options.poll_period) {}

void DisruptionController::Recover() {
  const api::Taint disrupted = DisruptedTaint();
  cluster_.nodes().ForEach([&](const kube::Object& node) {
    if (!HasTaint(node, disrupted)) return;
    const std::string provider_id(kube::StringAt(node, {"spec", "providerID"}));
    for (const kube::Object& claim :
         cluster_.node_claims().ByIndex(kIndexNodeClaimsByProviderId, provider_id)) {
      if (kube::DeletionTimestamp(claim).empty()) {
        logger_.Info("untainting a node a previous run left marked for disruption",
                     {logkey::Node(kube::Name(node)), logkey::NodeClaim(kube::Name(claim))});
        Unmark(kube::Name(claim), kube::Name(node));
      }
    }
  });
}

void DisruptionController::Reconcile() {
  const TimePoint now = clock_.Now();
  const MonoTime mono = clock_.Monotonic();
  std::erase_if(in_flight_, [&](const InFlight& command) { return Progress(command, mono); });
  if (decided_) {
    if (mono >= decided_->at + options_.validation_delay) ValidateAndExecute(now, mono);
    return;
  }
  if (mono >= next_poll_) {
    next_poll_ = mono + options_.poll_period;
    Decide(now, mono);
  }
}

MonoTime DisruptionController::NextWake() const {
  MonoTime next = decided_ ? decided_->at + options_.validation_delay : next_poll_;
  if (!in_flight_.empty()) next = std::min(next, clock_.Monotonic() + kProgressPeriod);
  return next;
}

void DisruptionController::Decide(TimePoint now, MonoTime mono) {
  const uint64_t generation = cluster_.generation();
  // Nothing changed in the cluster since a pass that found nothing, and nothing it depends on
  // changes with time alone: skip even the view, but look again every few minutes (instance
  // types and prices change outside the cluster).
  if (fruitless_ && fruitless_->cluster_generation == generation && !fruitless_->scheduled &&
      mono < fruitless_at_ + kFruitlessRecheck) {
    last_pass_.at = now;
    last_pass_.outcome = "skipped: the cluster did not change since a pass that found nothing";
    return;
  }
  last_pass_ = PassSummary{now, "", kube::Object::array(), kube::Object::object()};
  const std::unique_ptr<DisruptionView> view =
      BuildDisruptionView(cluster_, cloud_, logger_, now, provisioner_.BufferCopies());
  view->cluster.capacity.policy = options_.scheduling;
  const disruption::Cluster& cluster = view->cluster;
  // The engine is a function of the cluster, the budgets now and the instance types: when none
  // changed since a pass that found nothing, this one would find nothing either.
  PassInputs inputs{generation, cluster.budgets, {}, false};
  for (const NodePoolView& pool : view->snapshot.node_pools) {
    inputs.instance_types.push_back(pool.instance_types);
    for (const api::Budget& budget : pool.pool.spec.disruption.budgets) {
      inputs.scheduled = inputs.scheduled || !budget.schedule.empty();
    }
  }
  std::map<std::string, std::map<std::string, int64_t>, std::less<>> allowed;
  for (const auto& [pool, remaining] : cluster.budgets) {
    for (size_t reason = 0; reason < remaining.size(); ++reason) {
      allowed[pool]
             [std::string(disruption::ReasonName(static_cast<api::DisruptionReason>(reason)))] =
                 remaining[reason];
    }
  }
  metrics_.SetAllowedDisruptions(allowed);
  last_pass_.allowed = allowed;
  ExplainBlocked(*view);
  if (fruitless_ == inputs) {
    fruitless_at_ = mono;
    last_pass_.outcome = "nothing to do: nothing it depends on changed since the last pass";
    return;
  }
  disruption::PassObserver observer{
      .method =
          [this](disruption::Method method, size_t eligible, std::chrono::nanoseconds took) {
            metrics_.DisruptionEvaluated(MetricReason(method), ConsolidationType(method), eligible,
                                         took);
            last_pass_.methods.push_back(
                {{"method", disruption::MethodName(method)},
                 {"eligible", eligible},
                 {"seconds", std::chrono::duration<double>(took).count()}});
          },
      .unconsolidatable =
          [&](size_t index, std::string_view why) {
            const CapacitySource& source = view->sources[cluster.candidates[index].capacity_index];
            RecordWhyNot(*source.node, source.node_claim, "Unconsolidatable", why);
          },
      .timed_out =
          [this](disruption::Method method) {
            metrics_.ConsolidationTimedOut(ConsolidationType(method));
            logger_.Warn("consolidation search stopped at its timeout",
                         {{"method", std::string(disruption::MethodName(method))}});
          },
      .scored = [&](const disruption::Command& move,
                    const disruption::MoveScore& score) { ExplainScore(*view, move, score); }};
  std::optional<disruption::Command> command =
      disruption::ComputeCommand(cluster, options_.engine, observer);
  if (!command) {
    fruitless_ = std::move(inputs);
    fruitless_at_ = mono;
    last_pass_.outcome = "nothing to do: no method found a command";
    return;
  }
  fruitless_.reset();
  // What drifted stays drifted: upstream gives drift no second look (docs/upstream-reference.md
  // §10), so its command runs now. Emptiness and consolidation depend on pods that come and go,
  // and wait out the validation delay.
  if (command->method == disruption::Method::kDrift) {
    last_pass_.outcome = "executed: " + command->Describe(cluster);
    Execute(*view, *command, now, mono);
    return;
  }
  Decided decided{command->method, {}, command->replacements.size(), mono};
  for (size_t index : command->candidates) {
    decided.node_claims.push_back(cluster.candidates[index].node_claim);
  }
  logger_.Info(
      "disruption decided, validating before executing",
      {{"method", std::string(disruption::MethodName(command->method))},
       {"decision", command->Describe(cluster)},
       {"delay",
        fmt::format(
            "{}s",
            std::chrono::duration_cast<std::chrono::seconds>(options_.validation_delay).count())}});
  last_pass_.outcome = "decided, validating: " + command->Describe(cluster);
  decided_ = std::move(decided);
}

kube::Object DisruptionController::DebugState() const {
  const MonoTime now = clock_.Monotonic();
  const auto seconds = [](auto duration) {
    return std::chrono::duration<double>(duration).count();
  };
  kube::Object state = {
      {"lastPass",
       {{"at", last_pass_.at == TimePoint{} ? "" : FormatTime(last_pass_.at)},
        {"outcome", last_pass_.outcome},
        {"methods", last_pass_.methods},
        {"allowedDisruptions", last_pass_.allowed}}},
      {"nextPassInSeconds", seconds(std::max(next_poll_ - now, MonoTime::duration::zero()))},
      {"pending", nullptr},
      {"inFlight", kube::Object::array()},
      {"decisionsMade", decisions_made_},
      {"recentDecisions", kube::Object::array()}};
  if (decided_) {
    state["pending"] = {
        {"method", disruption::MethodName(decided_->method)},
        {"nodeClaims", decided_->node_claims},
        {"replacements", decided_->replacements},
        {"validatesInSeconds", seconds(decided_->at + options_.validation_delay - now)}};
  }
  for (const InFlight& command : in_flight_) {
    state["inFlight"].push_back({{"method", disruption::MethodName(command.method)},
                                 {"nodes", command.nodes},
                                 {"replacements", command.replacements},
                                 {"startedSecondsAgo", seconds(now - command.started)},
                                 {"description", command.description}});
  }
  constexpr size_t kRecent = 5;
  for (size_t i = decisions_.size() > kRecent ? decisions_.size() - kRecent : 0;
       i < decisions_.size(); ++i) {
    const DisruptionDecision& decision = decisions_[i];
    state["recentDecisions"].push_back({{"at", FormatTime(decision.at)},
                                        {"method", disruption::MethodName(decision.method)},
                                        {"nodes", decision.nodes},
                                        {"replacements", decision.replacements},
                                        {"savingsPerHour", decision.savings_per_hour},
                                        {"description", decision.description}});
  }
  return state;
}

void DisruptionController::RecordWhyNot(const api::Node& node, const api::NodeClaim* claim,
                                        std::string_view reason, std::string_view message) {
  events_.Record(ObjectReference("v1", "Node", node.metadata), kube::EventType::kNormal, reason,
                 message, kWhyNotRepeatWindow);
  if (claim != nullptr) {
    events_.Record(ObjectReference("karpenter.sh/v1", "NodeClaim", claim->metadata),
                   kube::EventType::kNormal, reason, message, kWhyNotRepeatWindow);
  }
}

void DisruptionController::ExplainScore(const DisruptionView& view, const disruption::Command& move,
                                        const disruption::MoveScore& score) {
  const std::string_view decision = score.approved() ? "approved" : "rejected";
  metrics_.ConsolidationScored(decision, score.node_pool, score.score);
  logger_.Debug("balanced consolidation scored a move", {{"nodepool", score.node_pool},
                                                         {"decision", std::string(decision)},
                                                         {"move", move.Describe(view.cluster)},
                                                         {"score", score.Describe()}});
  const std::string_view reason =
      score.approved() ? "ConsolidationApproved" : "ConsolidationRejected";
  // A single node's move is told on it; a move of several on their NodePool (the score is the
  // move's, not one node's).
  if (move.candidates.size() == 1) {
    const CapacitySource& source =
        view.sources[view.cluster.candidates[move.candidates.front()].capacity_index];
    RecordWhyNot(*source.node, source.node_claim, reason, score.Describe());
    return;
  }
  for (const NodePoolView& pool : view.snapshot.node_pools) {
    if (pool.pool.metadata.name == score.node_pool) {
      events_.Record(pool.object, kube::EventType::kNormal, reason, score.Describe(),
                     kWhyNotRepeatWindow);
    }
  }
}

void DisruptionController::ExplainBlocked(const DisruptionView& view) {
  for (const BlockedNode& blocked : view.blocked) {
    RecordWhyNot(*blocked.node, blocked.node_claim, "DisruptionBlocked", blocked.reason);
  }
  // A NodePool whose budgets allow no disruption for a reason, while it has nodes that could go.
  std::map<std::string_view, bool> has_candidates;
  for (const disruption::Candidate& candidate : view.cluster.candidates) {
    has_candidates[candidate.node_pool->metadata.name] = true;
  }
  for (const NodePoolView& pool : view.snapshot.node_pools) {
    const auto remaining = view.cluster.budgets.find(pool.pool.metadata.name);
    if (!has_candidates.contains(pool.pool.metadata.name) ||
        remaining == view.cluster.budgets.end()) {
      continue;
    }
    for (size_t reason = 0; reason < remaining->second.size(); ++reason) {
      if (remaining->second[reason] > 0) continue;
      events_.Record(
          pool.object, kube::EventType::kNormal, "DisruptionBlocked",
          fmt::format("No disruptions for reason {} allowed by the NodePool's budgets now",
                      disruption::ReasonName(static_cast<api::DisruptionReason>(reason))),
          kWhyNotRepeatWindow);
    }
  }
}

void DisruptionController::ValidateAndExecute(TimePoint now, MonoTime mono) {
  const Decided decided = std::move(*decided_);
  decided_.reset();
  next_poll_ = mono + options_.poll_period;
  const std::unique_ptr<DisruptionView> view =
      BuildDisruptionView(cluster_, cloud_, logger_, now, provisioner_.BufferCopies());
  view->cluster.capacity.policy = options_.scheduling;
  const disruption::Cluster& cluster = view->cluster;
  std::vector<size_t> candidates;
  for (const std::string& name : decided.node_claims) {
    const auto it =
        std::find_if(cluster.candidates.begin(), cluster.candidates.end(),
                     [&](const disruption::Candidate& c) { return c.node_claim == name; });
    if (it == cluster.candidates.end()) break;
    candidates.push_back(static_cast<size_t>(it - cluster.candidates.begin()));
  }
  std::optional<disruption::Command> command;
  if (candidates.size() == decided.node_claims.size()) {
    command = disruption::Revalidate(cluster, decided.method, candidates, decided.replacements,
                                     options_.engine);
  }
  if (!command) {
    logger_.Info("disruption no longer valid, not executed",
                 {{"method", std::string(disruption::MethodName(decided.method))},
                  {"nodeclaims", decided.node_claims}});
    return;
  }
  Execute(*view, *command, now, mono);
}

void DisruptionController::Execute(const DisruptionView& view, const disruption::Command& command,
                                   TimePoint now, MonoTime mono) {
  const disruption::Cluster& cluster = view.cluster;
  const std::string description = command.Describe(cluster);
  const std::string reason = Reason(command.method);
  InFlight in_flight{command.method, {}, {}, {}, mono, description};
  for (size_t index : command.candidates) {
    const disruption::Candidate& candidate = cluster.candidates[index];
    in_flight.node_claims.push_back(candidate.node_claim);
    in_flight.nodes.push_back(candidate.node);
  }
  // Mark every candidate first: nothing may land on them while their pods' new homes launch.
  for (size_t i = 0; i < in_flight.nodes.size(); ++i) {
    const std::optional<kube::Object> node = cluster_.nodes().Get(in_flight.nodes[i]);
    const std::optional<kube::Object> claim = cluster_.node_claims().Get(in_flight.node_claims[i]);
    Status marked = node && claim ? AddTaint(client_, *node, DisruptedTaint())
                                  : Status(Error("node or nodeclaim is gone"));
    if (marked.ok()) {
      kube::Object conditions = ConditionsOf(*claim);
      SetCondition(conditions, api::kConditionDisruptionReason, true, reason, description, now,
                   kube::Generation(*claim));
      marked = PatchStatus(client_, kube::resources::kNodeClaims, *claim,
                           {{"conditions", std::move(conditions)}});
    }
    if (!marked.ok()) {
      logger_.Warn("marking a node for disruption failed; not executing",
                   {logkey::Node(in_flight.nodes[i]), logkey::Err(marked.error())});
      in_flight.nodes.resize(i + 1);
      in_flight.node_claims.resize(i + 1);
      RollBack(in_flight, "marking the nodes failed");
      return;
    }
  }
  for (const provisioning::PlannedNodeClaim& planned : command.replacements) {
    const auto pool = std::find_if(
        view.snapshot.node_pools.begin(), view.snapshot.node_pools.end(),
        [&](const NodePoolView& p) { return p.pool.metadata.name == planned.node_pool; });
    Result<kube::Object> created = pool == view.snapshot.node_pools.end()
                                       ? Result<kube::Object>(Error("the NodePool is gone"))
                                       : provisioner_.CreateNodeClaim(planned, pool->object);
    if (!created.ok()) {
      logger_.Warn("launching a replacement failed",
                   {logkey::NodePool(planned.node_pool), logkey::Err(created.error())});
      RollBack(in_flight, "launching a replacement failed");
      return;
    }
    in_flight.replacements.emplace_back(kube::Name(*created));
    metrics_.NodeClaimCreated(MetricReason(command.method), planned.node_pool,
                              !planned.relaxed_min_values.empty());
  }
  metrics_.DisruptionDecided(command.replacements.empty() ? "delete" : "replace",
                             MetricReason(command.method), ConsolidationType(command.method));
  logger_.Info("disrupting", {{"method", std::string(disruption::MethodName(command.method))},
                              {"reason", reason},
                              {"decision", description},
                              {"nodes", in_flight.nodes},
                              {"replacements", in_flight.replacements}});
  decisions_.push_back({now, command.method, in_flight.nodes, in_flight.replacements,
                        command.savings_per_hour, description});
  ++decisions_made_;
  if (decisions_.size() > kDecisionsKept) decisions_.pop_front();
  const std::string message = fmt::format("{}: {}", reason, description);
  for (size_t i = 0; i < in_flight.nodes.size(); ++i) {
    if (std::optional<kube::Object> node = cluster_.nodes().Get(in_flight.nodes[i])) {
      events_.Record(
          *node, kube::EventType::kNormal,
          in_flight.replacements.empty() ? "DisruptionTerminating" : "DisruptionLaunching",
          message);
    }
  }
  if (in_flight.replacements.empty()) {
    DeleteCandidates(in_flight);
  } else {
    in_flight_.push_back(std::move(in_flight));
  }
}

bool DisruptionController::Progress(const InFlight& command, MonoTime now) {
  bool initialized = true;
  for (const std::string& name : command.replacements) {
    std::optional<kube::Object> claim = cluster_.node_claims().Get(name);
    if (!claim) {
      // The cache may not have seen a claim created moments ago: only the API server says it is
      // gone (a rollback here would delete a replacement that is launching).
      Result<kube::Object> read = client_.Get(kube::resources::kNodeClaims, "", name);
      if (read.ok()) {
        claim = std::move(*read);
      } else if (read.error().status != 404) {
        return false;
      }
    }
    if (!claim || !kube::DeletionTimestamp(*claim).empty()) {
      RollBack(command, fmt::format("replacement {} failed", name));
      return true;
    }
    initialized =
        initialized && ConditionStatus(*claim, api::kConditionInitialized) == api::kConditionTrue;
  }
  if (initialized) {
    DeleteCandidates(command);
    return true;
  }
  if (now - command.started >= options_.replacement_timeout) {
    RollBack(command, "replacements did not initialize in time");
    return true;
  }
  return false;
}

void DisruptionController::DeleteCandidates(const InFlight& command) {
  for (size_t i = 0; i < command.node_claims.size(); ++i) {
    Status deleted = client_.Delete(kube::resources::kNodeClaims, "", command.node_claims[i], {});
    if (!deleted.ok() && deleted.error().status != 404) {
      logger_.Error("deleting a disrupted nodeclaim failed",
                    {logkey::NodeClaim(command.node_claims[i]), logkey::Err(deleted.error())});
      continue;
    }
    if (std::optional<kube::Object> claim = cluster_.node_claims().Get(command.node_claims[i])) {
      CountDisrupted(metrics_, cluster_, *claim, MetricReason(command.method));
      events_.Record(*claim, kube::EventType::kNormal, "DisruptionTerminating",
                     fmt::format("{}: {}", Reason(command.method), command.description));
    }
  }
}

void DisruptionController::RollBack(const InFlight& command, std::string_view why) {
  logger_.Warn(
      "rolling back disruption",
      {{"why", std::string(why)}, {"decision", command.description}, {"nodes", command.nodes}});
  for (size_t i = 0; i < command.nodes.size(); ++i) {
    Unmark(command.node_claims[i], command.nodes[i]);
    if (std::optional<kube::Object> node = cluster_.nodes().Get(command.nodes[i])) {
      events_.Record(*node, kube::EventType::kWarning, "DisruptionRollback",
                     fmt::format("not disrupted: {}", why));
    }
  }
  for (const std::string& name : command.replacements) {
    const std::optional<kube::Object> claim = cluster_.node_claims().Get(name);
    if (!claim || ConditionStatus(*claim, api::kConditionInitialized) == api::kConditionTrue) {
      continue;
    }
    Status deleted = client_.Delete(kube::resources::kNodeClaims, "", name, {});
    if (!deleted.ok() && deleted.error().status != 404) {
      logger_.Error("deleting a replacement failed",
                    {logkey::NodeClaim(name), logkey::Err(deleted.error())});
    }
  }
}

void DisruptionController::Unmark(std::string_view node_claim, std::string_view node) {
  // Fresh reads: the cache may not have seen the marks made moments ago.
  if (Result<kube::Object> object = client_.Get(kube::resources::kNodes, "", node); object.ok()) {
    if (Status status = RemoveTaint(client_, *object, DisruptedTaint()); !status.ok()) {
      logger_.Error("untainting a node failed", {logkey::Node(node), logkey::Err(status.error())});
    }
  }
  if (Result<kube::Object> claim = client_.Get(kube::resources::kNodeClaims, "", node_claim);
      claim.ok()) {
    kube::Object conditions = ConditionsOf(*claim);
    if (!RemoveCondition(conditions, api::kConditionDisruptionReason)) return;
    Status status = PatchStatus(client_, kube::resources::kNodeClaims, *claim,
                                {{"conditions", std::move(conditions)}});
    if (!status.ok()) {
      logger_.Error("clearing a DisruptionReason failed",
                    {logkey::NodeClaim(node_claim), logkey::Err(status.error())});
    }
  }
}

}  // namespace karpenter::controllers
