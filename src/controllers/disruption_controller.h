#pragma once
// Disruption (upstream-reference §10): every poll period, one pass of the engine over the cluster
// decides at most one command (emptiness, drift, multi-node then single-node consolidation). The
// command waits the validation delay and is checked again on a fresh view; then the candidates are
// tainted karpenter.sh/disrupted:NoSchedule and marked with a DisruptionReason condition, the
// replacements are launched, and once every replacement is initialized the candidates' NodeClaims
// are deleted (termination drains them). A replacement that fails, or does not initialize within
// the replacement timeout, rolls the command back: taints and conditions removed, replacements
// that never initialized deleted. Events say what was decided and why, with the savings.

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "controllers/cluster_cache.h"
#include "controllers/conditions.h"
#include "controllers/disruption_view.h"
#include "controllers/metrics.h"
#include "controllers/provisioner.h"
#include "disruption/methods.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::controllers {

struct DisruptionOptions {
  std::chrono::milliseconds poll_period{std::chrono::seconds(10)};
  std::chrono::milliseconds validation_delay{std::chrono::seconds(15)};
  std::chrono::milliseconds replacement_timeout{std::chrono::minutes(10)};
  disruption::Options engine;
  provisioning::SchedulingPolicy scheduling;  // for the scheduling simulations
};

// A command that was executed, for reports.
struct DisruptionDecision {
  TimePoint at;
  disruption::Method method = disruption::Method::kEmptiness;
  std::vector<std::string> nodes;         // the candidates' Nodes
  std::vector<std::string> replacements;  // NodeClaims launched for them
  double savings_per_hour = 0;
  std::string description;
};

class DisruptionController {
 public:
  DisruptionController(ClusterCache& cluster, kube::Client& client, cloud::CloudProvider& cloud,
                       Provisioner& provisioner, kube::EventRecorder& events, Metrics& metrics,
                       const Clock& clock, Logger logger, DisruptionOptions options);

  // After the caches synced: a previous run may have tainted nodes for a command it never
  // finished; they are untainted (their NodeClaims are not being deleted).
  void Recover();
  // Progresses commands in flight, validates and executes the decided command when its delay
  // is over, and decides anew when the poll period is due.
  void Reconcile();
  // When Reconcile next has something to do.
  MonoTime NextWake() const;

  // The latest executed commands, oldest first (at most kDecisionsKept: a controller runs for
  // months).
  const std::deque<DisruptionDecision>& decisions() const { return decisions_; }
  static constexpr size_t kDecisionsKept = 10000;
  // How many commands were executed since the start (decisions() keeps the latest).
  uint64_t decisions_made() const { return decisions_made_; }

  // What a person debugging it needs (the debug endpoint): the last pass — when, what it
  // concluded, each method's candidates and time —, the budgets it saw, the command waiting for
  // validation, the commands in flight and the latest decisions. Controller thread only.
  kube::Object DebugState() const;

 private:
  struct Decided {
    disruption::Method method;
    std::vector<std::string> node_claims;
    size_t replacements = 0;
    MonoTime at;
  };
  // What a decision depends on.
  struct PassInputs {
    uint64_t cluster_generation = 0;
    std::map<std::string, disruption::BudgetRemaining, std::less<>> budgets;
    // Per NodePool; lists are replaced, never mutated, so the same pointer is the same list (held
    // here, so no new list can reuse its address).
    std::vector<std::shared_ptr<const std::vector<cloud::InstanceType>>> instance_types;
    bool scheduled = false;  // a budget has a schedule: what it allows changes with time
    bool operator==(const PassInputs&) const = default;
  };
  struct InFlight {
    disruption::Method method;
    std::vector<std::string> node_claims;
    std::vector<std::string> nodes;
    std::vector<std::string> replacements;
    MonoTime started;
    std::string description;
  };

  // `now` is the wall time (budget schedules, conditions written), `mono` the same instant on the
  // monotonic clock (this controller's timers).
  void Decide(TimePoint now, MonoTime mono);
  // DisruptionBlocked events: on each node that is no candidate, and why; on each NodePool whose
  // budgets allow no disruption for a reason while it has candidates.
  void ExplainBlocked(const DisruptionView& view);
  // What Balanced consolidation made of a move: its metrics, and a ConsolidationApproved or
  // ConsolidationRejected event on the node (a single node's move) or the NodePool.
  void ExplainScore(const DisruptionView& view, const disruption::Command& move,
                    const disruption::MoveScore& score);
  // A "why not" event on the Node and its NodeClaim, repeated at most every 15 minutes.
  void RecordWhyNot(const api::Node& node, const api::NodeClaim* claim, std::string_view reason,
                    std::string_view message);
  void ValidateAndExecute(TimePoint now, MonoTime mono);
  void Execute(const DisruptionView& view, const disruption::Command& command, TimePoint now,
               MonoTime mono);
  // True when the command is finished (done or rolled back).
  bool Progress(const InFlight& command, MonoTime now);
  void DeleteCandidates(const InFlight& command);
  void RollBack(const InFlight& command, std::string_view why);
  // Untaints the node and clears the NodeClaim's DisruptionReason.
  void Unmark(std::string_view node_claim, std::string_view node);

  ClusterCache& cluster_;
  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  Provisioner& provisioner_;
  kube::EventRecorder& events_;
  Metrics& metrics_;
  const Clock& clock_;
  Logger logger_;
  const DisruptionOptions options_;

  struct PassSummary {
    TimePoint at;
    std::string outcome;
    kube::Object methods = kube::Object::array();   // {method, eligible, seconds}
    kube::Object allowed = kube::Object::object();  // NodePool → reason → nodes
  };

  MonoTime next_poll_;
  PassSummary last_pass_;
  std::optional<Decided> decided_;
  std::optional<PassInputs> fruitless_;  // of the last pass that found nothing to do
  MonoTime fruitless_at_;
  static constexpr std::chrono::minutes kFruitlessRecheck{5};
  std::vector<InFlight> in_flight_;
  std::deque<DisruptionDecision> decisions_;
  uint64_t decisions_made_ = 0;
};

}  // namespace karpenter::controllers
