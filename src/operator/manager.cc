#include "operator/manager.h"

#include <algorithm>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "common/mutex.h"

namespace karpenter::op {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kErrorRetry(5000);

// Disruption's options, with the scheduling policy provisioning uses: its simulations must plan
// as provisioning would.
controllers::DisruptionOptions DisruptionOptionsOf(const ManagerOptions& options) {
  controllers::DisruptionOptions disruption = options.disruption;
  disruption.scheduling = options.scheduling;
  return disruption;
}

// The cheap test on the informer's thread (no decoding): not bound, not deleting, and marked
// Unschedulable by the kube-scheduler. The provisioner applies the full rule.
bool LooksProvisionable(const kube::Object& pod) {
  if (!kube::DeletionTimestamp(pod).empty()) return false;
  if (!kube::StringAt(pod, {"spec", "nodeName"}).empty()) return false;
  const kube::Object* conditions = kube::Find(pod, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return false;
  return std::any_of(conditions->begin(), conditions->end(), [](const kube::Object& c) {
    return kube::StringAt(c, {"type"}) == "PodScheduled" &&
           kube::StringAt(c, {"status"}) == "False" &&
           kube::StringAt(c, {"reason"}) == "Unschedulable";
  });
}

}  // namespace

Manager::Manager(kube::Client& client, cloud::CloudProvider& cloud, const Clock& clock,
                 Logger logger, ManagerOptions options)
    : clock_(clock),
      logger_(std::move(logger)),
      options_(options),
      cluster_(client, {.node_overlays = options.node_overlays,
                        .capacity_buffers = options.capacity_buffers}),
      metrics_(registry_),
      pod_start_metrics_(registry_, clock),
      state_metrics_(cluster_, clock),
      overlaid_cloud_(cloud, overlays_),
      node_overlay_controller_(cluster_, client, cloud, overlays_, clock,
                               logger_.Named(std::string(controllers::kControllerNodeOverlay))),
      instance_type_metrics_(cluster_, ControllersCloud(cloud)),
      provisioner_cloud_(ControllersCloud(cloud), metrics_, controllers::kControllerProvisioner),
      lifecycle_cloud_(ControllersCloud(cloud), metrics_,
                       controllers::kControllerNodeClaimLifecycle),
      garbage_collection_cloud_(ControllersCloud(cloud), metrics_,
                                controllers::kControllerGarbageCollection),
      node_claim_disruption_cloud_(ControllersCloud(cloud), metrics_,
                                   controllers::kControllerNodeClaimDisruption),
      disruption_cloud_(ControllersCloud(cloud), metrics_, controllers::kControllerDisruption),
      events_(client, clock, "karpenter", options.events),
      event_metrics_(events_),
      batcher_(options_.batch),
      capacity_buffers_(cluster_, client, clock,
                        logger_.Named(std::string(controllers::kControllerCapacityBuffer))),
      provisioner_(cluster_, client, provisioner_cloud_, events_, metrics_,
                   logger_.Named("provisioner"), options_.seed, options_.scheduling,
                   options_.capacity_buffers ? &capacity_buffers_ : nullptr),
      lifecycle_(cluster_, client, lifecycle_cloud_, events_, metrics_, clock,
                 logger_.Named("nodeclaim.lifecycle"), options_.lifecycle, registration_health_),
      node_pool_status_(cluster_, client, events_, clock, logger_.Named("nodepool.status"),
                        options.disruption.engine.balanced_consolidation, options.static_capacity,
                        registration_health_),
      garbage_collector_(cluster_, client, garbage_collection_cloud_, metrics_, clock,
                         logger_.Named("nodeclaim.garbagecollection")),
      node_claim_disruption_(cluster_, client, node_claim_disruption_cloud_, events_, metrics_,
                             clock, logger_.Named("nodeclaim.disruption")),
      disruption_(cluster_, client, disruption_cloud_, provisioner_, events_, metrics_, clock,
                  logger_.Named("disruption"), DisruptionOptionsOf(options_)),
      node_repair_(cluster_, client, ControllersCloud(cloud), events_, metrics_, clock,
                   logger_.Named(std::string(controllers::kControllerNodeRepair))),
      static_capacity_(cluster_, client, provisioner_cloud_, provisioner_, events_, metrics_, clock,
                       logger_.Named(std::string(controllers::kControllerStaticCapacity)),
                       options_.scheduling),
      node_claims_(metrics_.QueueSeries(controllers::kControllerNodeClaimLifecycle)),
      node_pools_(metrics_.QueueSeries(controllers::kControllerNodePoolStatus)),
      disruption_marks_(metrics_.QueueSeries(controllers::kControllerNodeClaimDisruption)),
      next_garbage_collection_(clock.Monotonic() + options_.garbage_collection_period),
      next_node_repair_(clock.Monotonic()),
      next_pending_recheck_(clock.Monotonic() + options_.pending_recheck_period) {
  cluster_.pods().AddHandler([this](kube::WatchEventType type, const kube::Object& pod) {
    pod_start_metrics_.Observe(type, pod);
    if (std::optional<std::string> node = node_claim_disruption_.ObservePod(type, pod)) {
      // A pod arrived or left: the node's NodeClaim is not consolidatable for a while.
      if (std::optional<kube::Object> object = cluster_.nodes().Get(*node)) {
        const std::string provider_id(kube::StringAt(*object, {"spec", "providerID"}));
        for (const kube::Object& claim : cluster_.node_claims().ByIndex(
                 controllers::kIndexNodeClaimsByProviderId, provider_id)) {
          disruption_marks_.Add(std::string(kube::Name(claim)), clock_.Monotonic());
        }
      }
    }
    const bool provisionable = type != kube::WatchEventType::kDeleted && LooksProvisionable(pod);
    {
      MutexLock lock(provisionable_mutex_);
      if (provisionable) {
        provisionable_.insert(kube::Key(pod));
      } else if (!provisionable_.empty()) {
        provisionable_.erase(kube::Key(pod));
      }
    }
    if (!provisionable) return;
    batcher_.Trigger(clock_.Monotonic());
    Wake();
  });
  cluster_.node_claims().AddHandler([this](kube::WatchEventType type, const kube::Object& claim) {
    const MonoTime now = clock_.Monotonic();
    node_claims_.Add(std::string(kube::Name(claim)), now);
    disruption_marks_.Add(std::string(kube::Name(claim)), now);
    if (std::string_view pool = kube::Label(claim, api::kLabelNodePool); !pool.empty()) {
      node_pools_.Add(std::string(pool), now);
    }
    // A NodeClaim being deleted: its pods need a new home (planned while its Node drains); one
    // gone: those of them still pending do.
    if (type == kube::WatchEventType::kDeleted || !kube::DeletionTimestamp(claim).empty()) {
      batcher_.Trigger(now);
    }
    Wake();
  });
  cluster_.nodes().AddHandler([this](kube::WatchEventType type, const kube::Object& node) {
    if (type == kube::WatchEventType::kDeleted) node_claim_disruption_.ForgetNode(kube::Name(node));
    const std::string provider_id(kube::StringAt(node, {"spec", "providerID"}));
    if (provider_id.empty()) return;
    for (const kube::Object& claim :
         cluster_.node_claims().ByIndex(controllers::kIndexNodeClaimsByProviderId, provider_id)) {
      node_claims_.Add(std::string(kube::Name(claim)), clock_.Monotonic());
      disruption_marks_.Add(std::string(kube::Name(claim)), clock_.Monotonic());
    }
    Wake();
  });
  cluster_.node_pools().AddHandler([this](kube::WatchEventType type, const kube::Object& pool) {
    std::string name(kube::Name(pool));
    if (type == kube::WatchEventType::kDeleted) {
      node_pool_generations_.erase(name);
      return;
    }
    node_pools_.Add(name, clock_.Monotonic());
    // A new or changed template may fit pending pods; our own status writes change nothing.
    const int64_t generation = kube::Generation(pool);
    auto [seen, added] = node_pool_generations_.try_emplace(std::move(name), generation);
    if (added || seen->second != generation) {
      seen->second = generation;
      batcher_.Trigger(clock_.Monotonic());
      RecheckDisruptionMarks(kube::Name(pool));  // drift, consolidateAfter
    }
    Wake();
  });
  for (kube::Informer* gated : {&cluster_.node_overlays(), &cluster_.capacity_buffers()}) {
    gated->AddHandler([this](kube::WatchEventType, const kube::Object&) { Wake(); });
  }
  cluster_.node_classes().AddHandler([this](kube::WatchEventType, const kube::Object&) {
    const MonoTime now = clock_.Monotonic();
    cluster_.node_pools().ForEach(
        [&](const kube::Object& pool) { node_pools_.Add(std::string(kube::Name(pool)), now); });
    RecheckDisruptionMarks("");
    batcher_.Trigger(now);
    Wake();
  });
}

void Manager::Wake() {
  {
    MutexLock lock(wake_mutex_);
    woken_ = true;
  }
  wake_.NotifyOne();
}

void Manager::RecheckDisruptionMarks(std::string_view node_pool) {
  const MonoTime now = clock_.Monotonic();
  cluster_.node_claims().ForEach([&](const kube::Object& claim) {
    if (node_pool.empty() || kube::Label(claim, api::kLabelNodePool) == node_pool) {
      disruption_marks_.Add(std::string(kube::Name(claim)), now);
    }
  });
}

void Manager::AddPeriodic(PeriodicController controller) {
  periodic_.push_back(ScheduledController{std::move(controller), MonoTime{}});
}

void Manager::AddRoundController(RoundController& controller) {
  round_controllers_.push_back(&controller);
}

template <typename Pass>
auto Manager::Timed(std::string_view controller, const Pass& pass) {
  const auto started = std::chrono::steady_clock::now();
  auto result = pass();
  metrics_.Reconciled(
      controller,
      result.ok() ? controllers::ReconcileResult::kSuccess : controllers::ReconcileResult::kError,
      std::chrono::steady_clock::now() - started);
  return result;
}

cloud::CloudProvider& Manager::ControllersCloud(cloud::CloudProvider& cloud) {
  return options_.node_overlays ? overlaid_cloud_ : cloud;
}

void Manager::Start() {
  if (options_.node_overlays) {
    // After the cloud's own controllers (which resolve node classes and offerings), before the
    // metrics and the provisioning that read the overlaid types. A pass that changes what is
    // overlaid may make pending pods fit (capacity an overlay adds): they are looked at again.
    AddPeriodic({std::string(controllers::kControllerNodeOverlay),
                 controllers::NodeOverlayController::kRefresh,
                 [this] {
                   const uint64_t before = overlays_.generation();
                   Status status = Timed(controllers::kControllerNodeOverlay,
                                         [this] { return node_overlay_controller_.Reconcile(); });
                   if (overlays_.generation() != before) batcher_.Trigger(clock_.Monotonic());
                   return status;
                 },
                 kErrorRetry, [this] { return node_overlay_controller_.InputsChanged(); }});
  }
  if (options_.capacity_buffers) {
    // Every 30 s, as upstream (a workload's replicas, a PodTemplate may have changed), and at once
    // when a buffer changes; each pass that leaves room wanted asks provisioning to look, so room
    // real pods took is launched again.
    AddPeriodic({std::string(controllers::kControllerCapacityBuffer),
                 controllers::CapacityBuffers::kResync,
                 [this] {
                   Status status = Timed(controllers::kControllerCapacityBuffer,
                                         [this] { return capacity_buffers_.Reconcile(); });
                   if (capacity_buffers_.Wanted()) batcher_.Trigger(clock_.Monotonic());
                   return status;
                 },
                 kErrorRetry, [this] { return capacity_buffers_.InputsChanged(); }});
  }
  // Last, after the cloud's own controllers that keep instance types and prices current; as often
  // as upstream's metrics controller; a failure is tried again in 5 s.
  AddPeriodic({"instance type metrics", std::chrono::minutes(1),
               [this] { return instance_type_metrics_.Refresh(); }, kErrorRetry,
               [this] { return instance_type_metrics_.NodePoolsChanged(); }});
  disruption_.Recover();
  for (RoundController* controller : round_controllers_) controller->Start();
}

void Manager::ReconcileDue(
    controllers::WorkQueue& queue, std::string_view controller, MonoTime now,
    std::string_view failure,
    const std::function<std::vector<Requeue>(std::span<const std::string>)>& reconcile) {
  const std::vector<std::string> due = queue.TakeDue(now);
  if (due.empty()) return;
  const auto started = std::chrono::steady_clock::now();
  const std::vector<Requeue> requeues = reconcile(due);
  const auto each = (std::chrono::steady_clock::now() - started) / due.size();
  for (size_t i = 0; i < due.size(); ++i) {
    const std::string& name = due[i];
    const Requeue& requeue = requeues[i];
    controllers::ReconcileResult result = controllers::ReconcileResult::kSuccess;
    if (!requeue.ok()) {
      logger_.Error(failure, {logkey::NodeClaim(name), logkey::Err(requeue.error())});
      queue.Add(name, now + kErrorRetry);
      result = controllers::ReconcileResult::kError;
    } else if (requeue->has_value()) {
      queue.Add(name, now + **requeue);
      result = controllers::ReconcileResult::kRequeueAfter;
    }
    metrics_.Reconciled(controller, result, each);
  }
}

void Manager::RunOnce() {
  MonoTime now = clock_.Monotonic();
  // The cloud's own controllers first: what they keep current (node classes, prices) feeds the
  // provisioning below.
  for (ScheduledController& scheduled : periodic_) {
    if (now < scheduled.next &&
        !(scheduled.controller.inputs_changed && scheduled.controller.inputs_changed())) {
      continue;
    }
    scheduled.next = now + scheduled.controller.period;
    Status status = scheduled.controller.run();
    if (status.ok()) {
      scheduled.failures = 0;
      continue;
    }
    logger_.Error(scheduled.controller.name + " failed", {logkey::Err(status.error())});
    const std::chrono::milliseconds retry = scheduled.controller.retry;
    if (retry.count() > 0) {
      const int doublings = std::min(scheduled.failures++, 16);
      scheduled.next =
          now + std::min(scheduled.controller.period, retry * (int64_t{1} << doublings));
    }
  }
  ReconcileDue(node_claims_, controllers::kControllerNodeClaimLifecycle, now,
               "reconciling nodeclaim failed",
               [this](std::span<const std::string> names) { return lifecycle_.Reconcile(names); });
  ReconcileDue(disruption_marks_, controllers::kControllerNodeClaimDisruption, now,
               "updating nodeclaim disruption status failed",
               [this](std::span<const std::string> names) {
                 std::vector<Requeue> requeues;
                 requeues.reserve(names.size());
                 for (const std::string& name : names) {
                   requeues.push_back(node_claim_disruption_.Reconcile(name));
                 }
                 return requeues;
               });
  for (const std::string& name : node_pools_.TakeDue(now)) {
    if (Status status = Timed(controllers::kControllerNodePoolStatus,
                              [&] { return node_pool_status_.Reconcile(name); });
        !status.ok()) {
      logger_.Error("updating nodepool status failed",
                    {logkey::NodePool(name), logkey::Err(status.error())});
      node_pools_.Add(name, now + kErrorRetry);
    }
    if (!options_.static_capacity) continue;
    Result<std::optional<std::chrono::milliseconds>> requeue = Timed(
        controllers::kControllerStaticCapacity, [&] { return static_capacity_.Reconcile(name); });
    if (!requeue.ok()) {
      logger_.Error("keeping a static nodepool's replicas failed",
                    {logkey::NodePool(name), logkey::Err(requeue.error())});
      node_pools_.Add(name, now + kErrorRetry);
    } else if (requeue->has_value()) {
      node_pools_.Add(name, now + **requeue);
    }
  }
  for (RoundController* controller : round_controllers_) controller->Run();
  if (now >= next_pending_recheck_) {
    next_pending_recheck_ = now + options_.pending_recheck_period;
    bool pending = false;
    {
      MutexLock lock(provisionable_mutex_);
      pending = !provisionable_.empty();
    }
    cluster_.node_claims().ForEach([&](const kube::Object& claim) {
      pending = pending || !kube::DeletionTimestamp(claim).empty();
    });
    if (pending) batcher_.Trigger(now);
  }
  if (batcher_.Ready(now)) {
    const auto started = std::chrono::steady_clock::now();
    Result<controllers::ProvisioningResult> provisioned =
        Timed(controllers::kControllerProvisioner, [this] { return provisioner_.Provision(); });
    last_provisioning_ = {
        {"at", FormatTime(clock_.Now())},
        {"seconds",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()}};
    if (provisioned.ok()) {
      last_provisioning_["nodeClaimsCreated"] = provisioned->node_claims;
      last_provisioning_["podsNominated"] = provisioned->pods_nominated;
      last_provisioning_["podsUnschedulable"] = provisioned->pods_unschedulable;
    } else {
      last_provisioning_["error"] = provisioned.error().message;
      logger_.Error("provisioning failed", {logkey::Err(provisioned.error())});
    }
  }
  disruption_.Reconcile();
  now = clock_.Monotonic();
  if (now >= next_garbage_collection_) {
    next_garbage_collection_ = now + options_.garbage_collection_period;
    if (Result<controllers::GarbageCollectionResult> collected =
            Timed(controllers::kControllerGarbageCollection,
                  [this] { return garbage_collector_.Collect(); });
        !collected.ok()) {
      logger_.Error("garbage collection failed", {logkey::Err(collected.error())});
    }
  }
  if (options_.node_repair && now >= next_node_repair_) {
    next_node_repair_ = now + options_.node_repair_period;
    Result<controllers::RepairResult> repaired =
        Timed(controllers::kControllerNodeRepair, [this] { return node_repair_.Repair(); });
    if (!repaired.ok()) {
      logger_.Error("node repair failed", {logkey::Err(repaired.error())});
    } else if (repaired->next_deadline) {
      // A toleration that ends before the next pass brings the pass forward.
      next_node_repair_ =
          std::min(next_node_repair_, MonotonicAt(clock_, *repaired->next_deadline));
    }
  }
  ServeDebugRequest();
}

void Manager::ServeDebugRequest() {
  MutexLock lock(debug_mutex_);
  if (debug_served_ == debug_requested_) return;
  const MonoTime now = clock_.Monotonic();
  const auto seconds = [](auto duration) {
    return std::chrono::duration<double>(duration).count();
  };
  kube::Object informers = kube::Object::array();
  for (const kube::Informer* informer : cluster_.all()) {
    informers.push_back({{"resource", informer->resource().plural},
                         {"synced", informer->synced()},
                         {"objects", informer->size()}});
  }
  kube::Object batch = {{"idleSeconds", seconds(options_.batch.idle)},
                        {"maxSeconds", seconds(options_.batch.max)},
                        {"open", false}};
  if (const std::optional<MonoTime> closes = batcher_.Deadline()) {
    batch["open"] = true;
    batch["closesInSeconds"] = seconds(*closes - now);
  }
  const kube::EventCounts events = events_.counts();
  debug_state_ = {{"at", FormatTime(clock_.Now())},
                  {"informers", informers},
                  {"batch", batch},
                  {"lastProvisioning", last_provisioning_},
                  {"disruption", disruption_.DebugState()},
                  {"queues",
                   {{controllers::kControllerNodeClaimLifecycle, node_claims_.size()},
                    {controllers::kControllerNodeClaimDisruption, disruption_marks_.size()},
                    {controllers::kControllerNodePoolStatus, node_pools_.size()}}},
                  {"events",
                   {{"written", events.written},
                    {"repeats", events.repeats},
                    {"rateLimited", events.rate_limited},
                    {"queueFull", events.queue_full},
                    {"failed", events.failed}}}};
  debug_served_ = debug_requested_;
  debug_ready_.NotifyAll();
}

Result<kube::Object> Manager::DebugState(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  uint64_t wanted = 0;
  {
    MutexLock lock(debug_mutex_);
    wanted = ++debug_requested_;
  }
  Wake();
  MutexLock lock(debug_mutex_);
  while (debug_served_ < wanted) {
    if (!debug_ready_.WaitUntil(lock, deadline) && debug_served_ < wanted) {
      return Error(
          "the controller loop did not answer: it is not running (a standby replica "
          "waiting for the leader Lease) or a pass is taking long");
    }
  }
  return debug_state_;
}

MonoTime Manager::NextWake() const {
  MonoTime next = clock_.Monotonic() + options_.idle_wake;
  for (const RoundController* controller : round_controllers_) {
    if (std::optional<MonoTime> wake = controller->NextWake()) next = std::min(next, *wake);
  }
  for (const std::optional<MonoTime>& due : {node_claims_.NextDue(), disruption_marks_.NextDue(),
                                             node_pools_.NextDue(), batcher_.Deadline()}) {
    if (due) next = std::min(next, *due);
  }
  for (const ScheduledController& scheduled : periodic_) next = std::min(next, scheduled.next);
  if (options_.node_repair) next = std::min(next, next_node_repair_);
  return std::min({next, next_garbage_collection_, next_pending_recheck_, disruption_.NextWake()});
}

void Manager::Run(const std::stop_token& stop) {
  std::vector<std::jthread> informers;
  for (kube::Informer* informer : cluster_.all()) {
    informers.emplace_back([this, informer, stop] {
      informer->Run(stop, [&](const Error& error) {
        logger_.Warn("watch failed; retrying",
                     {{"resource", std::string(informer->resource().plural)}, logkey::Err(error)});
      });
    });
  }
  while (!stop.stop_requested() && !cluster_.synced()) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  logger_.Info("caches synced", {{"pods", cluster_.pods().size()},
                                 {"nodes", cluster_.nodes().size()},
                                 {"nodeclaims", cluster_.node_claims().size()},
                                 {"nodepools", cluster_.node_pools().size()}});
  Start();
  std::stop_callback wake_on_stop(stop, [this] { Wake(); });
  while (!stop.stop_requested()) {
    RunOnce();
    MutexLock lock(wake_mutex_);
    const MonoTime until = NextWake();
    while (!woken_ && !stop.stop_requested() && wake_.WaitUntil(lock, until)) {
    }
    woken_ = false;
  }
}

}  // namespace karpenter::op
