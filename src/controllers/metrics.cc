#include "controllers/metrics.h"

#include <string>

#include "cloud/cloud_provider.h"
#include "metrics/buckets.h"

namespace karpenter::controllers {
namespace {

prometheus::Family<prometheus::Counter>& Counter(prometheus::Registry& registry,
                                                 const std::string& name, const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

prometheus::Family<prometheus::Gauge>& Gauge(prometheus::Registry& registry,
                                             const std::string& name, const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

prometheus::Family<prometheus::Histogram>& Histogram(prometheus::Registry& registry,
                                                     const std::string& name,
                                                     const std::string& help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(registry);
}

std::string S(std::string_view text) { return std::string(text); }

double Seconds(std::chrono::nanoseconds duration) {
  return std::chrono::duration<double>(duration).count();
}

// Upstream's node lifetime buckets: 15 minutes to 30 days.
prometheus::Histogram::BucketBoundaries LifetimeBuckets() {
  constexpr double kHour = 3600;
  constexpr double kDay = 24 * kHour;
  return {kHour / 4, kHour / 2,  3 * kHour / 4, kHour,      2 * kHour,  4 * kHour, 6 * kHour,
          8 * kHour, 10 * kHour, 12 * kHour,    16 * kHour, 20 * kHour, kDay,      2 * kDay,
          3 * kDay,  5 * kDay,   10 * kDay,     15 * kDay,  20 * kDay,  25 * kDay, 30 * kDay};
}

// controller-runtime's reconcile-time buckets: the duration buckets up to a minute.
// Upstream's consolidation score buckets: around the thresholds 1/3, 1/2 and 1 that
// consolidationThreshold sets.
prometheus::Histogram::BucketBoundaries ScoreBuckets() {
  return {0.1, 0.25, 0.33, 0.5, 1.0, 2.0, 5.0, 10.0};
}

prometheus::Histogram::BucketBoundaries ReconcileBuckets() {
  prometheus::Histogram::BucketBoundaries bounds = metrics::DurationBuckets();
  std::erase_if(bounds, [](double bound) { return bound > 60; });
  return bounds;
}

}  // namespace

Metrics::Metrics(prometheus::Registry& registry)
    : node_claims_created_(Counter(registry, "karpenter_nodeclaims_created_total",
                                   "NodeClaims created, by why and NodePool.")),
      node_claims_terminated_(Counter(registry, "karpenter_nodeclaims_terminated_total",
                                      "NodeClaims whose termination finished.")),
      node_claims_disrupted_(Counter(registry, "karpenter_nodeclaims_disrupted_total",
                                     "NodeClaims deleted for a disruption reason (consolidation, "
                                     "drift, expiry, interruption, capacity, ...).")),
      node_claims_unhealthy_disrupted_(
          Counter(registry, "karpenter_nodeclaims_unhealthy_disrupted_total",
                  "NodeClaims repaired: deleted because a condition of their Node stayed unhealthy "
                  "past its toleration.")),
      pods_disruption_initiated_(Counter(
          registry, "karpenter_pods_disruption_initiated_total",
          "Pods whose disruption began: those to reschedule (not DaemonSet or mirror pods) of each "
          "NodeClaim disrupted.")),
      instance_termination_duration_(Histogram(
          registry, "karpenter_nodeclaims_instance_termination_duration_seconds",
          "From asking the cloud to terminate an instance to its being gone, in seconds.")),
      nodes_created_(
          Counter(registry, "karpenter_nodes_created_total", "Nodes registered for a NodeClaim.")),
      nodes_terminated_(Counter(registry, "karpenter_nodes_terminated_total",
                                "Nodes whose termination finished.")),
      nodes_drained_(Counter(registry, "karpenter_nodes_drained_total",
                             "Nodes drained of their pods before termination.")),
      nodes_termination_duration_(
          prometheus::BuildSummary()
              .Name("karpenter_nodes_termination_duration_seconds")
              .Help("From a Node's deletion to its finalizer coming off, in seconds.")
              .Register(registry)),
      nodes_lifetime_duration_(Histogram(registry, "karpenter_nodes_lifetime_duration_seconds",
                                         "How long nodes lived, at their termination, in "
                                         "seconds.")),
      pods_drained_(Counter(registry, "karpenter_pods_drained_total",
                            "Pods evicted or deleted by draining, by the disruption reason.")),
      pods_eviction_requests_(Counter(registry, "karpenter_pods_eviction_requests_total",
                                      "Eviction API requests, by the answer's HTTP status.")),
      scheduling_duration_(Histogram(registry, "karpenter_scheduler_scheduling_duration_seconds",
                                     "How long one scheduling simulation took, in seconds.")),
      unschedulable_pods_(Gauge(registry, "karpenter_scheduler_unschedulable_pods_count",
                                "Pods the last scheduling simulation could not place.")),
      queue_depth_(Gauge(registry, "karpenter_scheduler_queue_depth",
                         "Pods the current scheduling simulation has yet to place.")),
      disruption_decisions_(Counter(registry, "karpenter_voluntary_disruption_decisions_total",
                                    "Disruption decisions taken, by decision, reason and "
                                    "consolidation type.")),
      disruption_eligible_nodes_(Gauge(registry, "karpenter_voluntary_disruption_eligible_nodes",
                                       "Nodes a disruption method could consider, by reason.")),
      disruption_evaluation_duration_(
          Histogram(registry, "karpenter_voluntary_disruption_decision_evaluation_duration_seconds",
                    "How long a disruption method's evaluation took, in seconds.")),
      consolidation_timeouts_(Counter(registry,
                                      "karpenter_voluntary_disruption_consolidation_timeouts_total",
                                      "Consolidation searches stopped by their timeout.")),
      consolidation_score_(Histogram(registry, "karpenter_consolidation_score",
                                     "Scores of the moves Balanced consolidation weighed, by "
                                     "decision, NodePool and policy.")),
      consolidation_moves_(Counter(registry, "karpenter_consolidation_moves_total",
                                   "Moves Balanced consolidation weighed, by decision, NodePool "
                                   "and policy.")),
      allowed_disruptions_(Gauge(registry, "karpenter_nodepools_allowed_disruptions",
                                 "Nodes a NodePool's budgets allow disrupting now, by reason.")),
      cloud_provider_duration_(Histogram(registry, "karpenter_cloudprovider_duration_seconds",
                                         "How long a call of the cloud provider took, in "
                                         "seconds.")),
      cloud_provider_errors_(Counter(registry, "karpenter_cloudprovider_errors_total",
                                     "Calls of the cloud provider that failed, by error.")),
      reconcile_total_(Counter(registry, "controller_runtime_reconcile_total",
                               "Reconciles per controller, by result.")),
      reconcile_errors_(Counter(registry, "controller_runtime_reconcile_errors_total",
                                "Reconciles per controller that failed.")),
      reconcile_time_(Histogram(registry, "controller_runtime_reconcile_time_seconds",
                                "How long a reconcile took, in seconds.")),
      reconcile_buckets_(ReconcileBuckets()),
      work_queue_depth_(Gauge(registry, "workqueue_depth", "Keys waiting in a work queue.")),
      work_queue_adds_(Counter(registry, "workqueue_adds_total", "Keys added to a work queue.")),
      work_queue_duration_(
          Histogram(registry, "workqueue_queue_duration_seconds",
                    "How long a key waited in a work queue once due, in seconds.")) {
  // Every controller's result series from the start, as controller-runtime registers them (but
  // "requeue": ours never ask to come back at once, so it could never move).
  for (std::string_view controller :
       {kControllerNodeClaimLifecycle, kControllerNodeClaimDisruption, kControllerNodePoolStatus,
        kControllerProvisioner, kControllerGarbageCollection}) {
    for (std::string_view result : {"success", "error", "requeue_after"}) {
      reconcile_total_.Add({{"controller", S(controller)}, {"result", S(result)}});
    }
    reconcile_errors_.Add({{"controller", S(controller)}});
  }
  for (std::string_view type : {"single", "multi"}) {
    consolidation_timeouts_.Add({{"consolidation_type", S(type)}});
  }
}

void Metrics::Reconciled(std::string_view controller, ReconcileResult result,
                         std::chrono::nanoseconds took) {
  std::string_view name = "success";
  if (result == ReconcileResult::kRequeueAfter) name = "requeue_after";
  if (result == ReconcileResult::kError) {
    name = "error";
    reconcile_errors_.Add({{"controller", S(controller)}}).Increment();
  }
  reconcile_total_.Add({{"controller", S(controller)}, {"result", S(name)}}).Increment();
  reconcile_time_.Add({{"controller", S(controller)}}, reconcile_buckets_).Observe(Seconds(took));
}

WorkQueueSeries Metrics::QueueSeries(std::string_view controller) {
  const prometheus::Labels labels = {{"name", S(controller)}, {"controller", S(controller)}};
  prometheus::Labels depth_labels = labels;
  depth_labels.emplace("priority", "");
  return {&work_queue_depth_.Add(depth_labels), &work_queue_adds_.Add(labels),
          &work_queue_duration_.Add(labels, metrics::ExponentialBuckets(1e-8, 10, 12))};
}

void Metrics::NodeClaimCreated(std::string_view reason, std::string_view node_pool,
                               bool min_values_relaxed) {
  node_claims_created_
      .Add({{"reason", S(reason)},
            {"nodepool", S(node_pool)},
            {"min_values_relaxed", min_values_relaxed ? "true" : "false"}})
      .Increment();
}

void Metrics::NodeClaimTerminated(std::string_view node_pool, std::string_view capacity_type,
                                  std::string_view zone) {
  node_claims_terminated_
      .Add({{"nodepool", S(node_pool)}, {"capacity_type", S(capacity_type)}, {"zone", S(zone)}})
      .Increment();
}

void Metrics::NodeClaimDisrupted(std::string_view reason, std::string_view node_pool,
                                 std::string_view capacity_type) {
  node_claims_disrupted_
      .Add({{"reason", S(reason)}, {"nodepool", S(node_pool)}, {"capacity_type", S(capacity_type)}})
      .Increment();
}

void Metrics::NodeClaimUnhealthyDisrupted(std::string_view condition, std::string_view node_pool,
                                          std::string_view capacity_type,
                                          std::string_view image_id) {
  node_claims_unhealthy_disrupted_
      .Add({{"condition", S(condition)},
            {"nodepool", S(node_pool)},
            {"capacity_type", S(capacity_type)},
            {"image_id", S(image_id)}})
      .Increment();
}

void Metrics::PodsDisruptionInitiated(std::string_view reason, std::string_view node_pool,
                                      std::string_view capacity_type,
                                      std::string_view consolidation_policy,
                                      std::string_view termination_mode, size_t pods) {
  pods_disruption_initiated_
      .Add({{"reason", S(reason)},
            {"nodepool", S(node_pool)},
            {"capacity_type", S(capacity_type)},
            {"consolidation_policy", S(consolidation_policy)},
            {"termination_mode", S(termination_mode)}})
      .Increment(static_cast<double>(pods));
}

void Metrics::InstanceTerminated(std::string_view node_pool, std::chrono::nanoseconds took) {
  instance_termination_duration_
      .Add({{"nodepool", S(node_pool)}}, metrics::ExponentialBuckets(1, 2, 11))
      .Observe(Seconds(took));
}

void Metrics::NodeCreated(std::string_view node_pool, std::string_view zone) {
  nodes_created_.Add({{"nodepool", S(node_pool)}, {"zone", S(zone)}}).Increment();
}

void Metrics::NodeTerminated(std::string_view node_pool, std::string_view zone,
                             std::chrono::nanoseconds took, std::chrono::nanoseconds lifetime) {
  nodes_terminated_.Add({{"nodepool", S(node_pool)}, {"zone", S(zone)}}).Increment();
  nodes_termination_duration_.Add({{"nodepool", S(node_pool)}}, metrics::SummaryQuantiles())
      .Observe(Seconds(took));
  nodes_lifetime_duration_.Add({{"nodepool", S(node_pool)}}, LifetimeBuckets())
      .Observe(Seconds(lifetime));
}

void Metrics::NodeDrained(std::string_view node_pool) {
  nodes_drained_.Add({{"nodepool", S(node_pool)}}).Increment();
}

void Metrics::PodDrained(std::string_view reason) {
  pods_drained_.Add({{"reason", S(reason)}}).Increment();
}

void Metrics::EvictionRequested(int code) {
  pods_eviction_requests_.Add({{"code", std::to_string(code)}}).Increment();
}

void Metrics::SchedulingStarted(std::string_view controller, size_t pods) {
  MutexLock lock(mutex_);
  // Only the latest pass of each controller keeps a series (a pass's id is its number).
  auto [it, added] = queue_depths_.try_emplace(S(controller), nullptr);
  if (it->second != nullptr) queue_depth_.Remove(it->second);
  it->second = &queue_depth_.Add(
      {{"controller", S(controller)}, {"scheduling_id", std::to_string(++scheduling_passes_)}});
  it->second->Set(static_cast<double>(pods));
}

void Metrics::SchedulingFinished(std::string_view controller, std::chrono::nanoseconds took,
                                 size_t unschedulable) {
  scheduling_duration_.Add({{"controller", S(controller)}}, metrics::DurationBuckets())
      .Observe(Seconds(took));
  unschedulable_pods_.Add({{"controller", S(controller)}}).Set(static_cast<double>(unschedulable));
  MutexLock lock(mutex_);
  if (auto it = queue_depths_.find(controller); it != queue_depths_.end() && it->second) {
    it->second->Set(0);
  }
}

void Metrics::DisruptionDecided(std::string_view decision, std::string_view reason,
                                std::string_view consolidation_type) {
  disruption_decisions_
      .Add({{"decision", S(decision)},
            {"reason", S(reason)},
            {"consolidation_type", S(consolidation_type)}})
      .Increment();
}

void Metrics::DisruptionEvaluated(std::string_view reason, std::string_view consolidation_type,
                                  size_t eligible_nodes, std::chrono::nanoseconds took) {
  disruption_eligible_nodes_.Add({{"reason", S(reason)}}).Set(static_cast<double>(eligible_nodes));
  disruption_evaluation_duration_
      .Add({{"reason", S(reason)}, {"consolidation_type", S(consolidation_type)}},
           metrics::DurationBuckets())
      .Observe(Seconds(took));
}

void Metrics::ConsolidationTimedOut(std::string_view consolidation_type) {
  consolidation_timeouts_.Add({{"consolidation_type", S(consolidation_type)}}).Increment();
}

void Metrics::ConsolidationScored(std::string_view decision, std::string_view node_pool,
                                  double score) {
  const std::map<std::string, std::string> labels = {
      {"decision", S(decision)}, {"nodepool", S(node_pool)}, {"policy", "Balanced"}};
  consolidation_score_.Add(labels, ScoreBuckets()).Observe(score);
  consolidation_moves_.Add(labels).Increment();
}

void Metrics::CloudProviderCalled(std::string_view controller, std::string_view method,
                                  std::string_view provider, std::chrono::nanoseconds took,
                                  const Error* error) {
  cloud_provider_duration_
      .Add({{"controller", S(controller)}, {"method", S(method)}, {"provider", S(provider)}},
           metrics::DefaultBuckets())
      .Observe(Seconds(took));
  if (error == nullptr) return;
  // Upstream's error names for the errors controllers act on; any other failure is "unknown".
  std::string_view name = "unknown";
  if (error->reason == cloud::kReasonNotFound) name = "NodeClaimNotFoundError";
  if (error->reason == cloud::kReasonInsufficientCapacity) name = "InsufficientCapacityError";
  cloud_provider_errors_
      .Add({{"controller", S(controller)},
            {"method", S(method)},
            {"provider", S(provider)},
            {"error", S(name)}})
      .Increment();
}

void Metrics::SetAllowedDisruptions(
    const std::map<std::string, std::map<std::string, int64_t>, std::less<>>& allowed) {
  MutexLock lock(mutex_);
  std::map<std::pair<std::string, std::string>, prometheus::Gauge*> now;
  for (const auto& [pool, reasons] : allowed) {
    for (const auto& [reason, count] : reasons) {
      prometheus::Gauge& gauge = allowed_disruptions_.Add({{"nodepool", pool}, {"reason", reason}});
      gauge.Set(static_cast<double>(count));
      now.emplace(std::make_pair(pool, reason), &gauge);
    }
  }
  for (const auto& [key, gauge] : allowed_) {
    if (!now.contains(key)) allowed_disruptions_.Remove(gauge);
  }
  allowed_ = std::move(now);
}

}  // namespace karpenter::controllers
