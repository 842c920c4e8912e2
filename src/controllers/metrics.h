#pragma once
// The series the controllers count as things happen, under upstream's names, types, labels and
// buckets (docs/metrics.md), so that dashboards and alerts written for upstream read ours. Series
// that describe the present (nodes, pods, NodePools) are read at scrape time instead
// (controllers/state_metrics.h). Labels name NodePools, zones, capacity types, reasons and
// decisions, never pods or nodes, so these families stay small.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "common/mutex.h"
#include "common/result.h"
#include "controllers/work_queue.h"

namespace karpenter::controllers {

// The values upstream gives the `controller` label of the scheduler's series.
inline constexpr std::string_view kSchedulerProvisioner = "provisioner";
inline constexpr std::string_view kSchedulerDisruption = "disruption";
// Our controllers' names in the `controller` label of the cloud provider's and
// controller-runtime's series (and their loggers'), as upstream names its own.
inline constexpr std::string_view kControllerProvisioner = "provisioner";
inline constexpr std::string_view kControllerNodeClaimLifecycle = "nodeclaim.lifecycle";
inline constexpr std::string_view kControllerNodeClaimDisruption = "nodeclaim.disruption";
inline constexpr std::string_view kControllerGarbageCollection = "nodeclaim.garbagecollection";
inline constexpr std::string_view kControllerNodePoolStatus = "nodepool.status";
inline constexpr std::string_view kControllerDisruption = "disruption";

// How a reconcile ended, as controller-runtime's `result` label says it.
enum class ReconcileResult { kSuccess, kRequeueAfter, kError };

// Registered on a registry the caller owns (one per manager), which must outlive this.
// Thread-safe.
class Metrics {
 public:
  explicit Metrics(prometheus::Registry& registry);

  // controller-runtime's series, under our controllers' names (docs/metrics.md): one reconcile
  // of `controller` (of one object, or one pass of a singleton controller).
  void Reconciled(std::string_view controller, ReconcileResult result,
                  std::chrono::nanoseconds took);
  // The series of the work queue of `controller` (controller-runtime names the queue after it).
  WorkQueueSeries QueueSeries(std::string_view controller);

  // `reason`: "provisioned", or the disruption reason of a replacement ("underutilized", …).
  // `min_values_relaxed`: MIN_VALUES_POLICY=BestEffort lowered a minValues of it.
  void NodeClaimCreated(std::string_view reason, std::string_view node_pool,
                        bool min_values_relaxed = false);
  // Its finalizer came off.
  void NodeClaimTerminated(std::string_view node_pool, std::string_view capacity_type,
                           std::string_view zone);
  // `reason` in snake case: underutilized, empty, drifted, expired, interrupted kinds,
  // garbage_collected, insufficient_capacity, registration_timeout.
  void NodeClaimDisrupted(std::string_view reason, std::string_view node_pool,
                          std::string_view capacity_type);
  // A NodeClaim repaired: its Node's `condition` (snake case: "ready", "container_runtime_ready")
  // stayed unhealthy past its toleration. Besides NodeClaimDisrupted("unhealthy", ...).
  void NodeClaimUnhealthyDisrupted(std::string_view condition, std::string_view node_pool,
                                   std::string_view capacity_type, std::string_view image_id);
  // With it, the `pods` that must move elsewhere (controllers/disruption_count.h says which);
  // `consolidation_policy` "when_empty" or "when_empty_or_underutilized" (empty when the NodePool
  // is gone), `termination_mode` "graceful", "eventual" or "forceful".
  void PodsDisruptionInitiated(std::string_view reason, std::string_view node_pool,
                               std::string_view capacity_type,
                               std::string_view consolidation_policy,
                               std::string_view termination_mode, size_t pods);
  void InstanceTerminated(std::string_view node_pool, std::chrono::nanoseconds took);

  void NodeCreated(std::string_view node_pool, std::string_view zone);
  // Its finalizer came off `took` after its deletion, `lifetime` after its creation.
  void NodeTerminated(std::string_view node_pool, std::string_view zone,
                      std::chrono::nanoseconds took, std::chrono::nanoseconds lifetime);
  void NodeDrained(std::string_view node_pool);

  // `reason`: the NodeClaim's disruption reason as its condition says it ("Underutilized", …).
  void PodDrained(std::string_view reason);
  // `code`: the HTTP status the Eviction API answered (0: no answer).
  void EvictionRequested(int code);

  // One scheduling simulation of `controller` begins with `pods` to place (the queue's depth
  // while it runs), and ends.
  void SchedulingStarted(std::string_view controller, size_t pods);
  void SchedulingFinished(std::string_view controller, std::chrono::nanoseconds took,
                          size_t unschedulable);

  // `reason` lower case (underutilized, empty, drifted); `consolidation_type` empty, "empty",
  // "single" or "multi"; `decision` "delete" or "replace".
  void DisruptionDecided(std::string_view decision, std::string_view reason,
                         std::string_view consolidation_type);
  void DisruptionEvaluated(std::string_view reason, std::string_view consolidation_type,
                           size_t eligible_nodes, std::chrono::nanoseconds took);
  // A consolidation method ("single" or "multi") stopped at its timeout.
  void ConsolidationTimedOut(std::string_view consolidation_type);
  // Balanced consolidation scored a move of `node_pool`: `decision` "approved" or "rejected".
  void ConsolidationScored(std::string_view decision, std::string_view node_pool, double score);
  // A call of the cloud provider's `method` by `controller` took `took`, and failed with
  // `error` (nullptr: it succeeded).
  void CloudProviderCalled(std::string_view controller, std::string_view method,
                           std::string_view provider, std::chrono::nanoseconds took,
                           const Error* error);

  // What each NodePool's budgets allow now, per reason ("Underutilized", …); NodePools not
  // given lose their series.
  void SetAllowedDisruptions(
      const std::map<std::string, std::map<std::string, int64_t>, std::less<>>& allowed);

 private:
  prometheus::Family<prometheus::Counter>& node_claims_created_;
  prometheus::Family<prometheus::Counter>& node_claims_terminated_;
  prometheus::Family<prometheus::Counter>& node_claims_disrupted_;
  prometheus::Family<prometheus::Counter>& node_claims_unhealthy_disrupted_;
  prometheus::Family<prometheus::Counter>& pods_disruption_initiated_;
  prometheus::Family<prometheus::Histogram>& instance_termination_duration_;
  prometheus::Family<prometheus::Counter>& nodes_created_;
  prometheus::Family<prometheus::Counter>& nodes_terminated_;
  prometheus::Family<prometheus::Counter>& nodes_drained_;
  prometheus::Family<prometheus::Summary>& nodes_termination_duration_;
  prometheus::Family<prometheus::Histogram>& nodes_lifetime_duration_;
  prometheus::Family<prometheus::Counter>& pods_drained_;
  prometheus::Family<prometheus::Counter>& pods_eviction_requests_;
  prometheus::Family<prometheus::Histogram>& scheduling_duration_;
  prometheus::Family<prometheus::Gauge>& unschedulable_pods_;
  prometheus::Family<prometheus::Gauge>& queue_depth_;
  prometheus::Family<prometheus::Counter>& disruption_decisions_;
  prometheus::Family<prometheus::Gauge>& disruption_eligible_nodes_;
  prometheus::Family<prometheus::Histogram>& disruption_evaluation_duration_;
  prometheus::Family<prometheus::Counter>& consolidation_timeouts_;
  prometheus::Family<prometheus::Histogram>& consolidation_score_;
  prometheus::Family<prometheus::Counter>& consolidation_moves_;
  prometheus::Family<prometheus::Gauge>& allowed_disruptions_;
  prometheus::Family<prometheus::Histogram>& cloud_provider_duration_;
  prometheus::Family<prometheus::Counter>& cloud_provider_errors_;
  prometheus::Family<prometheus::Counter>& reconcile_total_;
  prometheus::Family<prometheus::Counter>& reconcile_errors_;
  prometheus::Family<prometheus::Histogram>& reconcile_time_;
  // Built once: Reconciled runs for every object a controller reconciles.
  const prometheus::Histogram::BucketBoundaries reconcile_buckets_;
  prometheus::Family<prometheus::Gauge>& work_queue_depth_;
  prometheus::Family<prometheus::Counter>& work_queue_adds_;
  prometheus::Family<prometheus::Histogram>& work_queue_duration_;

  Mutex mutex_;
  // The scheduler's queue-depth series of each controller (its latest pass only, as upstream).
  std::map<std::string, prometheus::Gauge*, std::less<>> queue_depths_ GUARDED_BY(mutex_);
  uint64_t scheduling_passes_ GUARDED_BY(mutex_) = 0;
  // The allowed-disruptions series set last, by NodePool and reason.
  std::map<std::pair<std::string, std::string>, prometheus::Gauge*> allowed_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::controllers
