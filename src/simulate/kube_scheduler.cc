#include "simulate/kube_scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "api/pod.h"
#include "common/hash.h"
#include "kube/disruption_budget.h"
#include "provisioning/scheduler.h"
#include "simulate/preemption.h"

namespace karpenter::simulate {
namespace {

using kube::Object;

// kube-scheduler's defaults (podInitialBackoffSeconds, podMaxBackoffSeconds).
constexpr std::chrono::milliseconds kInitialBackoff(1000);
constexpr std::chrono::milliseconds kMaxBackoff(10000);
// kube-scheduler tries one pod at a time, so the pods of one sweep that fit nowhere fail one after
// another, not at one instant, and their backoffs end as far apart: a node that joins later is
// taken by the pods whose turn has come, consecutive in the queue. 5 ms a pod is 200 a second, a
// round figure for its some hundred a second (the loaded test cluster's took 11-54 ms a failure;
// README, "Fidelity", says how the figure was chosen and how much it moves).
constexpr std::chrono::microseconds kSweepStep(5000);
// Pods a pass lets look for victims: each look costs scheduling passes over a few nodes.
constexpr size_t kMaxPreemptionTries = 100;

bool Schedulable(const api::Node& node) {
  return node.Ready() && node.metadata.deletion_timestamp.empty();
}

}  // namespace

KubeScheduler::KubeScheduler(kube::Client& client, controllers::ClusterCache& cluster,
                             const Clock& clock, PreemptionNote note)
    : client_(client), cluster_(cluster), clock_(clock), note_(std::move(note)) {
  cluster_.pods().AddHandler([this](kube::WatchEventType type, const Object& pod) {
    dirty_ = true;
    const std::string_view phase = kube::StringAt(pod, {"status", "phase"});
    const bool gone =
        type == kube::WatchEventType::kDeleted || phase == "Succeeded" || phase == "Failed";
    const bool bound = !kube::StringAt(pod, {"spec", "nodeName"}).empty();
    const bool waits =
        !gone && kube::DeletionTimestamp(pod).empty() && (!bound || phase == "Pending");
    std::string key = kube::Key(pod);
    // Room on a node: a pod went away. A bound pod may be what a parked one's affinity wants.
    if (bound && (gone || parked_want_affinity_)) Unpark();
    if (!waits || bound) {
      parked_.erase(key);
      failures_.erase(key);
    }
    if (waits) {
      waiting_.insert(std::move(key));
    } else {
      waiting_.erase(key);
    }
  });
  cluster_.nodes().AddHandler([this](kube::WatchEventType, const Object&) {
    dirty_ = true;
    Unpark();
  });
}

int KubeScheduler::BudgetViolations(const std::vector<const api::Pod*>& victims) const {
  std::map<std::string, int64_t, std::less<>> left;  // budget → disruptions it still allows
  int violations = 0;
  for (const api::Pod* victim : victims) {
    const std::optional<Object> pod = cluster_.pods().Get(api::NamespacedName(victim->metadata));
    if (!pod) continue;
    bool broken = false;
    cluster_.disruption_budgets().ForEach([&](const Object& budget) {
      if (kube::Namespace(budget) != victim->metadata.namespace_ ||
          !kube::SelectsPod(budget, *pod)) {
        return;
      }
      const Object* allowed = kube::Find(budget, {"status", "disruptionsAllowed"});
      const auto [it, fresh] = left.try_emplace(
          kube::Key(budget),
          allowed != nullptr && allowed->is_number_integer() ? allowed->get<int64_t>() : 0);
      if (--it->second < 0) broken = true;
    });
    violations += broken ? 1 : 0;
  }
  return violations;
}

void KubeScheduler::Unpark() {
  parked_.clear();
  parked_want_affinity_ = false;
}

std::optional<TimePoint> KubeScheduler::NextWake() const {
  if (!backoff_ends_) return std::nullopt;
  // kube-scheduler moves the pods whose backoff is over to its active queue once a second (an
  // event that frees room finds them sooner), so the backoffs of a sweep, a turn apart, bring it
  // back a few times, not once a pod.
  return std::chrono::ceil<std::chrono::seconds>(*backoff_ends_);
}

Result<size_t> KubeScheduler::Run() {
  const TimePoint now_time = clock_.Now();
  const bool backoff_over = backoff_ends_ && now_time >= *backoff_ends_;
  if ((!dirty_ && !backoff_over) || waiting_.empty()) return size_t{0};
  dirty_ = false;
  backoff_ends_.reset();
  const std::vector<std::shared_ptr<const api::Pod>> pods = cluster_.decoded_pods().All();
  struct Waiting {
    const api::Pod* pod;
    const Failures* failed;  // null: never tried
  };
  std::vector<Waiting> pending;
  std::vector<const api::Pod*> starting;  // bound, not yet started by their kubelet
  for (const auto& pod : pods) {
    if (!pod->metadata.deletion_timestamp.empty() || api::IsTerminal(*pod)) continue;
    if (pod->spec.node_name.empty()) {
      const std::string key = api::NamespacedName(pod->metadata);
      if (parked_.contains(key)) continue;
      const auto failed = failures_.find(key);
      if (failed == failures_.end()) {
        pending.push_back({pod.get(), nullptr});
        continue;
      }
      // After its k-th failure a pod backs off for 1 s * 2^(k-1), at most 10 s.
      const TimePoint backoff_until =
          failed->second.last +
          std::min<std::chrono::milliseconds>(
              kInitialBackoff * (1 << std::min(failed->second.count - 1, 8)), kMaxBackoff);
      if (backoff_until <= now_time) {
        pending.push_back({pod.get(), &failed->second});
      } else if (!backoff_ends_ || backoff_until < *backoff_ends_) {
        backoff_ends_ = backoff_until;  // in kube-scheduler's backoff queue
      }
    } else if (pod->status.phase == "Pending") {
      starting.push_back(pod.get());
    }
  }
  const std::string now = FormatTime(now_time);
  auto start = [&](const api::Pod& pod, const std::string& node) -> Status {
    if (!node.empty()) {
      ASSIGN_OR_RETURN(Object bound,
                       client_.Patch(kube::resources::kPods, pod.metadata.namespace_,
                                     pod.metadata.name, kube::PatchType::kMerge,
                                     {{"spec", {{"nodeName", node}}}}, kube::Subresource::kNone));
    }
    const Object status = {
        {"status",
         {{"phase", "Running"},
          {"conditions",
           Object::array(
               {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", now}},
                {{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", now}}})}}}};
    Result<Object> started =
        client_.Patch(kube::resources::kPods, pod.metadata.namespace_, pod.metadata.name,
                      kube::PatchType::kMerge, status, kube::Subresource::kStatus);
    return started.ok() ? Status{} : Status(started.error());
  };
  for (const api::Pod* pod : starting) {
    RETURN_IF_ERROR(start(*pod, ""));
  }
  if (pending.empty()) return size_t{0};

  // The Nodes, with the pods bound to them.
  const std::vector<std::shared_ptr<const api::Node>> nodes = cluster_.decoded_nodes().All();
  provisioning::SchedulerInput input;
  std::map<std::string_view, size_t, std::less<>> index;
  for (const auto& node : nodes) {
    if (!Schedulable(*node)) continue;
    provisioning::ExistingNode existing;
    existing.name = node->metadata.name;
    existing.labels = node->metadata.labels;
    existing.labels.emplace(api::kLabelHostname, node->metadata.name);
    existing.taints = node->spec.taints;
    if (node->spec.unschedulable) {
      existing.taints.push_back(
          {"node.kubernetes.io/unschedulable", "", api::TaintEffect::kNoSchedule});
    }
    existing.allocatable = node->status.allocatable;
    index.emplace(node->metadata.name, input.existing_nodes.size());
    input.existing_nodes.push_back(std::move(existing));
  }
  // A pod nominated to a node where it preempted holds its room there while it backs off, as
  // kube-scheduler counts nominated pods on their nodes when it places pods of no higher priority.
  std::set<const api::Pod*> queued;
  for (const Waiting& waiting : pending) queued.insert(waiting.pod);
  int32_t lowest =
      std::numeric_limits<int32_t>::max();  // of the pods on the nodes: who can preempt
  for (const auto& pod : pods) {
    const bool held = pod->spec.node_name.empty() && !pod->status.nominated_node_name.empty() &&
                      pod->metadata.deletion_timestamp.empty() && !queued.contains(pod.get());
    const std::string& node = held ? pod->status.nominated_node_name : pod->spec.node_name;
    if (node.empty() || api::IsTerminal(*pod)) continue;
    if (auto it = index.find(node); it != index.end()) {
      input.existing_nodes[it->second].pods.push_back(pod.get());
      lowest = std::min(lowest, pod->spec.priority.value_or(0));
    }
  }
  // Its queue: higher priority first, then the pods that waited longest (RFC 3339 times of one
  // format order as text). Pods created in the same second came from workload controllers working
  // side by side, each creating its pods in slow-start batches of 1, 2, 4, ... sent together, the
  // next once the last is done: a batch reaches the queue as one run, the k-th batches of the
  // workloads one after another, in an order no workload owns, before any (k+1)-th.
  std::sort(pending.begin(), pending.end(), [](const Waiting& a, const Waiting& b) {
    const api::ObjectMeta& x = a.pod->metadata;
    const api::ObjectMeta& y = b.pod->metadata;
    return std::tie(x.creation_timestamp, x.namespace_, x.name) <
           std::tie(y.creation_timestamp, y.namespace_, y.name);
  });
  struct Queued {
    int32_t priority;
    std::string_view created;
    int batch;      // the owner's slow-start batch: pods 0, 1-2, 3-6, 7-14, ...
    uint64_t turn;  // where the owner's batch falls among the others' (pods without one: 0)
    size_t rank;    // among its owner's pods created in the same second
    const api::Pod* pod;
    bool tried;
    TimePoint queued_at;  // its creation (whole seconds), or its last failure
  };
  std::vector<Queued> queue;
  queue.reserve(pending.size());
  std::map<std::pair<std::string_view, std::string_view>, size_t> created_before;  // per owner
  for (const auto& [pod, failed] : pending) {
    if (!queue.empty() && pod->metadata.creation_timestamp != queue.back().created) {
      created_before.clear();
    }
    const api::OwnerReference* owner = api::ControllerOf(pod->metadata);
    const std::string_view owner_name = owner != nullptr ? owner->name : pod->metadata.name;
    const size_t rank = created_before[{pod->metadata.namespace_, owner_name}]++;
    const int batch = std::bit_width(rank + 1) - 1;
    uint64_t turn = 0;
    if (owner != nullptr) {
      std::array<char, 8> digits{};  // the batch as text, without a string per pod
      const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), batch).ptr;
      turn = Fnv1a64(owner->uid, Fnv1a64(std::string_view(digits.data(), end - digits.data())));
    }
    queue.push_back({pod->spec.priority.value_or(0), pod->metadata.creation_timestamp, batch, turn,
                     rank, pod, failed != nullptr,
                     failed != nullptr
                         ? failed->last
                         : ParseTime(pod->metadata.creation_timestamp).value_or(TimePoint())});
  }
  std::stable_sort(queue.begin(), queue.end(), [](const Queued& a, const Queued& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return std::tie(a.queued_at, a.tried, a.created, a.batch, a.turn, a.rank) <
           std::tie(b.queued_at, b.tried, b.created, b.batch, b.turn, b.rank);
  });
  input.pods.reserve(queue.size());
  for (const Queued& queued : queue) input.pods.push_back(queued.pod);
  input.placement = provisioning::Placement::kKubeScheduler;
  const provisioning::SchedulerResult result = provisioning::Schedule(input);
  // Each failed pod's turn in the sweep, asked only when some pod failed.
  std::unordered_map<const api::Pod*, int64_t> turn_in_sweep;
  if (!result.unschedulable.empty()) {
    turn_in_sweep.reserve(input.pods.size());
    for (const api::Pod* pod : input.pods) {
      turn_in_sweep.emplace(pod, static_cast<int64_t>(turn_in_sweep.size()));
    }
  }

  // The pods that fit nowhere, in queue order, may preempt: only pods of a priority above the
  // lowest of the bound ones can, and only so many a pass (the others wait for the next, as
  // kube-scheduler takes one pod at a time). The pods this pass places hold their room.
  std::map<const api::Pod*, std::string> nominated;  // preemptor → its node
  if (std::any_of(result.unschedulable.begin(), result.unschedulable.end(),
                  [&](const provisioning::UnschedulablePod& unschedulable) {
                    return unschedulable.pod->spec.priority.value_or(0) > lowest;
                  })) {
    for (const provisioning::ExistingPlacement& placement : result.existing) {
      std::vector<const api::Pod*>& placed = input.existing_nodes[index.at(placement.node)].pods;
      placed.insert(placed.end(), placement.pods.begin(), placement.pods.end());
    }
    size_t tries = 0;
    for (const provisioning::UnschedulablePod& unschedulable : result.unschedulable) {
      const api::Pod& pod = *unschedulable.pod;
      if (pod.spec.priority.value_or(0) <= lowest || tries == kMaxPreemptionTries) continue;
      ++tries;
      std::optional<Preemption> found = FindPreemption(
          pod, input, [&](const auto& victims) { return BudgetViolations(victims); });
      if (!found) continue;
      provisioning::ExistingNode& node = input.existing_nodes[index.at(found->node)];
      std::string victims;
      for (const api::Pod* victim : found->victims) {
        const Status deleted = client_.Delete(kube::resources::kPods, victim->metadata.namespace_,
                                              victim->metadata.name, {});
        if (!deleted.ok() && deleted.error().status != 404) return deleted.error();
        std::erase(node.pods, victim);
        victims +=
            fmt::format("{}{}", victims.empty() ? "" : ", ", api::NamespacedName(victim->metadata));
      }
      node.pods.push_back(&pod);  // its room, for the rest of this pass
      if (note_) {
        note_(api::NamespacedName(pod.metadata),
              fmt::format("preempted {} on {} (priority {} over {})", victims, found->node,
                          pod.spec.priority.value_or(0),
                          found->victims.front()->spec.priority.value_or(0)));
      }
      nominated.emplace(&pod, found->node);
    }
  }

  size_t bound = 0;
  for (const provisioning::ExistingPlacement& placement : result.existing) {
    for (const api::Pod* pod : placement.pods) {
      RETURN_IF_ERROR(start(*pod, placement.node));
      ++bound;
    }
  }
  // Pods placed on planned NodeClaims cannot happen (no NodePools given); the rest wait.
  for (const provisioning::UnschedulablePod& unschedulable : result.unschedulable) {
    const api::Pod& pod = *unschedulable.pod;
    std::string key = api::NamespacedName(pod.metadata);
    Failures& failed = failures_[key];
    ++failed.count;
    failed.last = now_time + kSweepStep * turn_in_sweep.at(&pod);
    parked_.insert(std::move(key));
    if (pod.spec.affinity && pod.spec.affinity->pod_affinity) parked_want_affinity_ = true;
    // A nomination it no longer needs, or could not make good, is cleared, as kube-scheduler does.
    const auto nomination = nominated.find(&pod);
    const std::string node = nomination != nominated.end() ? nomination->second : "";
    if (api::MarkedUnschedulable(pod) && pod.status.nominated_node_name == node) continue;
    const Object status = {
        {"status",
         {{"conditions", Object::array({{{"type", "PodScheduled"},
                                         {"status", "False"},
                                         {"reason", "Unschedulable"},
                                         {"message", fmt::format("0/{} nodes are available: {}",
                                                                 input.existing_nodes.size(),
                                                                 unschedulable.reason)},
                                         {"lastTransitionTime", now}}})},
          {"nominatedNodeName", node.empty() ? Object() : Object(node)}}}};
    ASSIGN_OR_RETURN(Object marked, client_.Patch(kube::resources::kPods, pod.metadata.namespace_,
                                                  pod.metadata.name, kube::PatchType::kMerge,
                                                  status, kube::Subresource::kStatus));
  }
  return bound;
}

}  // namespace karpenter::simulate
