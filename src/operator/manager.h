#pragma once
// The controller manager: the cluster's informers, and one loop that runs every controller —
// NodeClaim lifecycle, NodeClaim disruption marks and NodePool status from de-duplicating work
// queues, provisioning when a batch window closes, disruption, garbage collection and (with the
// simulated cloud) node booting on timers.
// Controllers run on that one thread, so they never race each other (the lifecycle may step the
// NodeClaims of one round on workers of its own, LifecycleOptions::workers, and returns when they
// are done); informers feed it from their own threads in production, or are pumped from the same
// thread (RunOnce after Pump) for a deterministic run on a virtual clock.

#include <prometheus/registry.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cloud/node_overlays.h"
#include "cloud/overlaid_cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mutex.h"
#include "controllers/capacity_buffers.h"
#include "controllers/cluster_cache.h"
#include "controllers/disruption_controller.h"
#include "controllers/event_metrics.h"
#include "controllers/garbage_collection.h"
#include "controllers/instance_type_metrics.h"
#include "controllers/metered_cloud_provider.h"
#include "controllers/metrics.h"
#include "controllers/node_overlay_controller.h"
#include "controllers/node_repair.h"
#include "controllers/nodeclaim_disruption.h"
#include "controllers/nodeclaim_lifecycle.h"
#include "controllers/nodepool_status.h"
#include "controllers/pod_start_metrics.h"
#include "controllers/provisioner.h"
#include "controllers/registration_health.h"
#include "controllers/state_metrics.h"
#include "controllers/static_capacity.h"
#include "controllers/work_queue.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::op {

struct ManagerOptions {
  controllers::BatchOptions batch;
  controllers::LifecycleOptions lifecycle;
  controllers::DisruptionOptions disruption;
  std::chrono::milliseconds garbage_collection_period{std::chrono::seconds(30)};
  // The NodeRepair gate: Nodes unhealthy past the cloud's repair policies are replaced. Checked
  // this often, and at the moment a toleration ends.
  bool node_repair = false;
  // The StaticCapacity gate: static NodePools (spec.replicas) keep their count
  // (controllers/static_capacity.h).
  bool static_capacity = false;
  // The NodeOverlay gate: NodeOverlays are watched and every controller sees the instance types
  // with them applied (controllers/node_overlay_controller.h).
  bool node_overlays = false;
  // The CapacityBuffer gate: CapacityBuffers are watched, provisioning plans for their copies of
  // pods and consolidation keeps room for them (controllers/capacity_buffers.h).
  bool capacity_buffers = false;
  // PREFERENCE_POLICY and MIN_VALUES_POLICY, for provisioning and disruption's simulations alike
  // (it replaces disruption.scheduling).
  provisioning::SchedulingPolicy scheduling;
  std::chrono::milliseconds node_repair_period{std::chrono::seconds(10)};
  // Re-check for pods still pending (a NodeClaim that failed, a limit that was raised).
  std::chrono::milliseconds pending_recheck_period{std::chrono::seconds(10)};
  // The longest the loop sleeps with nothing due: a safety net for a live cluster; a simulation,
  // where every timer is known, sets it long.
  std::chrono::milliseconds idle_wake{std::chrono::seconds(1)};
  uint64_t seed = 0;
  kube::EventRecorderOptions events;
};

// A controller a cloud provider brings (the AWS EC2NodeClass controller, the instance type and
// price refresh): run on the controller loop every `period`, first in the first round. After a
// failure it runs again after `retry`, doubling with each failure in a row up to `period` (zero:
// after `period`).
struct PeriodicController {
  std::string name;  // in logs
  std::chrono::milliseconds period;
  std::function<Status()> run;
  std::chrono::milliseconds retry{0};
  // When set and true, it runs in this round rather than at the end of its period: what it
  // reads changed.
  std::function<bool()> inputs_changed = {};
};

// A controller that runs in every round, after the NodeClaim controllers: the simulated cloud's
// machines booting (simulate/simulated_machines.h). It logs its own failures.
class RoundController {
 public:
  virtual ~RoundController() = default;
  // Once, after the caches synced, before the first round: recover state kept in the cluster.
  virtual void Start() = 0;
  virtual void Run() = 0;
  // When it next has something to do, if it knows.
  virtual std::optional<MonoTime> NextWake() const = 0;
};

class Manager {
 public:
  Manager(kube::Client& client, cloud::CloudProvider& cloud, const Clock& clock, Logger logger,
          ManagerOptions options);

  controllers::ClusterCache& cluster() { return cluster_; }
  const controllers::ClusterCache& cluster() const { return cluster_; }
  const controllers::DisruptionController& disruption() const { return disruption_; }
  // Where the controllers count (and where a cloud backend registers its own series).
  prometheus::Registry& registry() { return registry_; }
  // The controllers' counters, for a cloud backend's controllers to count in too.
  controllers::Metrics& metrics() { return metrics_; }
  // The series read from the cluster at each scrape.
  const controllers::StateMetrics& state_metrics() const { return state_metrics_; }
  // The instance types' series (refreshed every minute).
  const controllers::InstanceTypeMetrics& instance_type_metrics() const {
    return instance_type_metrics_;
  }
  // Where every controller, the cloud backend's too, records its Events.
  kube::EventRecorder& events() { return events_; }
  const controllers::EventMetrics& event_metrics() const { return event_metrics_; }
  // The NodeOverlays in force, for the cloud to launch at their prices; nullptr without the
  // NodeOverlay gate.
  cloud::OverlayStore* overlays() { return options_.node_overlays ? &overlays_ : nullptr; }

  // Adds a controller; before Run or the first RunOnce.
  void AddPeriodic(PeriodicController controller);
  // Adds a controller it does not own (it outlives the manager's rounds); before Run or the first
  // RunOnce.
  void AddRoundController(RoundController& controller);

  // Production: informers on their own threads, the controller loop on this one, until `stop`.
  void Run(const std::stop_token& stop);
  // After the caches synced, before the first round: recover state kept in the cluster.
  void Start();
  // One round of every controller that is due at the clock's now.
  void RunOnce();
  // When RunOnce next has something to do, at the latest.
  MonoTime NextWake() const;

  // The controllers' internal state as JSON, for the debug endpoint: informers, the batching
  // window, the last provisioning pass, the disruption controller's (controllers/
  // disruption_controller.h), work queues and events. Thread-safe: asks the controller loop, which
  // answers at the end of its round; an error when it does not within `timeout`.
  Result<kube::Object> DebugState(std::chrono::milliseconds timeout) EXCLUDES(debug_mutex_);

 private:
  using Requeue = Result<std::optional<std::chrono::milliseconds>>;  // when to look again

  void Wake();
  // Answers a pending DebugState request (end of a round, controller thread).
  void ServeDebugRequest() EXCLUDES(debug_mutex_);
  // Runs `reconcile` on the NodeClaims of `queue` that are due, all in one call (its results
  // parallel to the names), queueing each again when it asks to be or failed (logged with
  // `failure`).
  // Each object's reconcile counts in controller-runtime's series under `controller` (a batch's
  // time shared evenly among its objects).
  void ReconcileDue(
      controllers::WorkQueue& queue, std::string_view controller, MonoTime now,
      std::string_view failure,
      const std::function<std::vector<Requeue>(std::span<const std::string>)>& reconcile);
  // Times `run` (a singleton controller's pass) in controller-runtime's series.
  template <typename Pass>
  auto Timed(std::string_view controller, const Pass& pass);
  // Queues the disruption marks of every NodeClaim (of `node_pool` only, when given).
  void RecheckDisruptionMarks(std::string_view node_pool);
  // The cloud as the controllers call it: `cloud` itself, or with the NodeOverlays applied.
  cloud::CloudProvider& ControllersCloud(cloud::CloudProvider& cloud);

  const Clock& clock_;
  Logger logger_;
  const ManagerOptions options_;

  controllers::ClusterCache cluster_;
  prometheus::Registry registry_;
  controllers::Metrics metrics_;
  controllers::PodStartMetrics pod_start_metrics_;
  controllers::StateMetrics state_metrics_;
  // Under the NodeOverlay gate, every controller but the overlay controller calls the cloud through
  // `overlaid_cloud_`.
  cloud::OverlayStore overlays_;
  cloud::OverlaidCloudProvider overlaid_cloud_;
  controllers::NodeOverlayController node_overlay_controller_;
  controllers::InstanceTypeMetrics instance_type_metrics_;
  // The cloud as each controller calls it: timed and counted under its name.
  controllers::MeteredCloudProvider provisioner_cloud_;
  controllers::MeteredCloudProvider lifecycle_cloud_;
  controllers::MeteredCloudProvider garbage_collection_cloud_;
  controllers::MeteredCloudProvider node_claim_disruption_cloud_;
  controllers::MeteredCloudProvider disruption_cloud_;
  kube::EventRecorder events_;
  controllers::EventMetrics event_metrics_;
  controllers::Batcher batcher_;
  // What the NodeClaim lifecycle saw of registrations, for the NodePool status.
  controllers::RegistrationHealth registration_health_;
  controllers::CapacityBuffers capacity_buffers_;
  controllers::Provisioner provisioner_;
  controllers::NodeClaimLifecycle lifecycle_;
  controllers::NodePoolStatus node_pool_status_;
  controllers::GarbageCollector garbage_collector_;
  controllers::NodeClaimDisruption node_claim_disruption_;
  controllers::DisruptionController disruption_;
  controllers::NodeRepair node_repair_;
  controllers::StaticCapacity static_capacity_;
  std::vector<RoundController*> round_controllers_;
  controllers::WorkQueue node_claims_;
  controllers::WorkQueue node_pools_;
  controllers::WorkQueue disruption_marks_;  // NodeClaim names
  // The generation of each NodePool last seen (touched only by the NodePool informer's handler).
  std::map<std::string, int64_t, std::less<>> node_pool_generations_;
  struct ScheduledController {
    PeriodicController controller;
    MonoTime next;
    int failures = 0;  // in a row
  };
  std::vector<ScheduledController> periodic_;
  MonoTime next_garbage_collection_;
  MonoTime next_node_repair_;
  MonoTime next_pending_recheck_;
  // The pods LooksProvisionable() holds for, kept by the pod informer's handler: the periodic
  // recheck asks it rather than walking every pod (50,000 in a large cluster) every 10 s.
  Mutex provisionable_mutex_;
  std::set<std::string, std::less<>> provisionable_ GUARDED_BY(provisionable_mutex_);

  kube::Object last_provisioning_ = nullptr;  // controller thread

  Mutex debug_mutex_;
  CondVar debug_ready_;
  uint64_t debug_requested_ GUARDED_BY(debug_mutex_) = 0;
  uint64_t debug_served_ GUARDED_BY(debug_mutex_) = 0;
  kube::Object debug_state_ GUARDED_BY(debug_mutex_);

  Mutex wake_mutex_;
  CondVar wake_;
  bool woken_ GUARDED_BY(wake_mutex_) = false;
};

}  // namespace karpenter::op
