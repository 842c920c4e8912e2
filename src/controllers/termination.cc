#include "controllers/termination.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "controllers/node_taints.h"

namespace karpenter::controllers {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::string_view kCriticalPriorityClasses[] = {"system-cluster-critical",
                                                         "system-node-critical"};
// What the API server sets when a pod names no terminationGracePeriodSeconds.
constexpr seconds kDefaultPodGracePeriod(30);
// A pod still terminating this long after its deletionTimestamp has a kubelet that no longer
// answers: it does not hold the Node.
constexpr seconds kStuckTerminating(60);
constexpr milliseconds kFirstRetry(1000);
constexpr milliseconds kMaxRetry(10000);
// While pods are on their way out: how soon to look again.
constexpr milliseconds kPoll(1000);
// The longest wait between steps (pod changes do not bring the NodeClaim back by themselves).
constexpr milliseconds kMaxWait(10000);

// The pod as the drain sees it. One the decoder rejects (an object no schema checked) is drained
// as an ordinary pod under its name, so that it neither blocks the Node nor escapes the drain.
api::Pod PodOf(const kube::Object& object) {
  if (std::optional<api::Pod> pod = DecodePod(object)) return std::move(*pod);
  api::Pod pod;
  pod.metadata.name = kube::Name(object);
  pod.metadata.namespace_ = kube::Namespace(object);
  pod.metadata.uid = kube::Uid(object);
  pod.metadata.deletion_timestamp = kube::DeletionTimestamp(object);
  pod.status.phase = kube::StringAt(object, {"status", "phase"});
  return pod;
}

bool Terminating(const api::Pod& pod) { return !pod.metadata.deletion_timestamp.empty(); }

// A pod the drain does not take off the Node: a mirror pod (the kubelet's own), or one that
// tolerates karpenter.sh/disrupted (it would be scheduled right back).
bool LeftInPlace(const api::Pod& pod) {
  if (api::IsMirrorPod(pod)) return true;
  const api::Taint disrupted = DisruptedTaint();
  return std::any_of(pod.spec.tolerations.begin(), pod.spec.tolerations.end(),
                     [&](const api::Toleration& t) { return t.Tolerates(disrupted); });
}

// Whether the Node has to wait for `pod` before it goes.
bool HoldsNode(const api::Pod& pod, TimePoint now) {
  if (api::IsTerminal(pod) || LeftInPlace(pod)) return false;
  if (Terminating(pod)) {
    const std::optional<TimePoint> deleted = ParseTime(pod.metadata.deletion_timestamp);
    return !deleted || now - *deleted <= kStuckTerminating;
  }
  return true;
}

bool IsCritical(const api::Pod& pod) {
  return std::find(std::begin(kCriticalPriorityClasses), std::end(kCriticalPriorityClasses),
                   pod.spec.priority_class_name) != std::end(kCriticalPriorityClasses);
}

// 0: ordinary pods, 1: DaemonSet pods, 2: critical pods, 3: critical DaemonSet pods.
size_t Tier(const api::Pod& pod) {
  return (IsCritical(pod) ? 2 : 0) + (api::IsDaemonSetPod(pod) ? 1 : 0);
}

seconds GracePeriod(const api::Pod& pod) {
  return pod.spec.termination_grace_period_seconds
             ? seconds(*pod.spec.termination_grace_period_seconds)
             : kDefaultPodGracePeriod;
}

// When the NodeClaim stops waiting for its drain: its deletion plus its terminationGracePeriod,
// or the termination timestamp annotation (node repair sets it to the moment it repairs),
// whichever comes first; nullopt with neither.
std::optional<TimePoint> Deadline(const api::NodeClaim& claim) {
  std::optional<TimePoint> deadline;
  const auto annotation =
      claim.metadata.annotations.find(api::kAnnotationNodeClaimTerminationTimestamp);
  if (annotation != claim.metadata.annotations.end()) deadline = ParseTime(annotation->second);
  const std::optional<Duration>& period = claim.spec.termination_grace_period;
  const std::optional<TimePoint> deleted = ParseTime(claim.metadata.deletion_timestamp);
  if (period && !period->never() && deleted) {
    const TimePoint end = *deleted + period->value();
    deadline = deadline ? std::min(*deadline, end) : end;
  }
  return deadline;
}

struct Holder {
  api::Pod pod;
  bool going = false;  // terminating, or deleted this step: waited for, not evicted
};

}  // namespace

NodeDrainer::NodeDrainer(ClusterCache& cluster, kube::Client& client, kube::EventRecorder& events,
                         Metrics& metrics, const Clock& clock, Logger logger)
    : cluster_(cluster),
      client_(client),
      events_(events),
      metrics_(metrics),
      clock_(clock),
      logger_(std::move(logger)) {}

DrainOutcome NodeDrainer::Drain(const kube::Object& node, const api::NodeClaim& claim) {
  // The deadlines come from written times (wall clock); the eviction backoffs are our own timers
  // (monotonic clock). The wake-up is a delay from now, which both can give.
  const TimePoint now = clock_.Now();
  const MonoTime mono = clock_.Monotonic();
  const std::string node_name(kube::Name(node));
  const std::optional<TimePoint> deadline = Deadline(claim);
  const bool expired = deadline && now >= *deadline;
  milliseconds wake = kMaxWait;
  auto wake_at = [&](TimePoint at) {
    wake = std::min(wake, std::chrono::ceil<milliseconds>(at - now));
  };
  auto wake_after = [&](MonoTime at) {
    wake = std::min(wake, std::chrono::ceil<milliseconds>(at - mono));
  };
  if (deadline && !expired) wake_at(*deadline);
  const api::Condition* disruption =
      api::FindCondition(claim.status.conditions, api::kConditionDisruptionReason);
  // Both arms string_views: with `disruption->reason : ""` the conditional makes a temporary
  // std::string, and the view would outlive it (AddressSanitizer's stack-use-after-scope).
  const std::string_view reason =
      disruption != nullptr ? std::string_view{disruption->reason} : std::string_view{};

  std::array<std::vector<Holder>, 4> tiers;
  for (const kube::Object& object : cluster_.pods().ByIndex(kIndexPodsByNode, node_name)) {
    Holder holder{.pod = PodOf(object), .going = false};
    const api::Pod& pod = holder.pod;
    if (!HoldsNode(pod, now)) continue;
    if (expired) {
      Delete(node, pod, reason, 0, "the NodeClaim's termination deadline has passed");
      continue;
    }
    holder.going = Terminating(pod);
    // A pod that needs longer to stop than the deadline leaves goes now, budget or not.
    if (deadline && !holder.going) {
      const TimePoint force_at = *deadline - GracePeriod(pod);
      if (now >= force_at) {
        const int64_t left =
            std::max<int64_t>(0, std::chrono::duration_cast<seconds>(*deadline - now).count());
        Delete(node, pod, reason, left,
               fmt::format("the NodeClaim's terminationGracePeriod expires in {}s", left));
        holder.going = true;
      } else {
        wake_at(force_at);
      }
    }
    tiers[Tier(pod)].push_back(std::move(holder));
  }
  if (expired) {
    logger_.Warn(
        "termination deadline passed (terminationGracePeriod or node repair); deleted the "
        "pods left",
        {logkey::Node(node_name), logkey::NodeClaim(claim.metadata.name)});
    Forget(node_name);
    return {.drained = true, .requeue = milliseconds(0)};
  }

  PodBackoffs& backoffs = backoffs_[node_name];
  for (const std::vector<Holder>& tier : tiers) {
    if (tier.empty()) continue;
    bool in_flight = false;
    for (const auto& [pod, going] : tier) {
      if (going) {
        in_flight = true;
        continue;
      }
      if (api::DoNotDisrupt(pod.metadata)) continue;  // until the deadline forces it
      const auto backoff = backoffs.find(pod.metadata.uid);
      if (backoff != backoffs.end() && mono < backoff->second.next_attempt) {
        wake_after(backoff->second.next_attempt);
      } else if (Evict(node, pod, reason, backoffs, mono)) {
        in_flight = true;
      } else {
        wake_after(backoffs[pod.metadata.uid].next_attempt);
      }
    }
    if (in_flight) wake = std::min<milliseconds>(wake, kPoll);
    return {.drained = false, .requeue = wake};
  }
  Forget(node_name);
  return {.drained = true, .requeue = milliseconds(0)};
}

void NodeDrainer::Forget(std::string_view node_name) {
  if (const auto it = backoffs_.find(node_name); it != backoffs_.end()) backoffs_.erase(it);
}

bool NodeDrainer::Evict(const kube::Object& node, const api::Pod& pod, std::string_view reason,
                        PodBackoffs& backoffs, MonoTime now) {
  const std::string key = api::NamespacedName(pod.metadata);
  const Status evicted = client_.Evict(pod.metadata.namespace_, pod.metadata.name,
                                       {.precondition_uid = pod.metadata.uid,
                                        .precondition_resource_version = "",
                                        .grace_period_seconds = std::nullopt});
  metrics_.EvictionRequested(evicted.ok() ? 200 : evicted.error().status);
  // 404: gone already; 409: a new pod of the same name, not the one that was here.
  if (evicted.ok() || evicted.error().status == 404 || evicted.error().status == 409) {
    if (const auto it = backoffs.find(pod.metadata.uid); it != backoffs.end()) backoffs.erase(it);
    if (evicted.ok()) {
      metrics_.PodDrained(reason);
      logger_.Info("evicted pod", {logkey::Node(kube::Name(node)),
                                   logkey::Pod(pod.metadata.namespace_, pod.metadata.name)});
      events_.Record(node, kube::EventType::kNormal, "Evicted", "Evicted pod " + key);
    }
    return true;
  }
  Backoff& backoff = backoffs[pod.metadata.uid];
  backoff.delay =
      backoff.delay == milliseconds(0) ? kFirstRetry : std::min(backoff.delay * 2, kMaxRetry);
  backoff.next_attempt = now + backoff.delay;
  // 429 is a budget saying "not now": expected while draining, so the Event says it, not an error.
  if (evicted.error().status != 429) {
    logger_.Error("evicting pod failed", {logkey::Node(kube::Name(node)),
                                          logkey::Pod(pod.metadata.namespace_, pod.metadata.name),
                                          logkey::Err(evicted.error())});
  }
  events_.Record(node, kube::EventType::kWarning, "FailedDraining",
                 fmt::format("Cannot evict pod {}: {}", key, evicted.error().message));
  return false;
}

void NodeDrainer::Delete(const kube::Object& node, const api::Pod& pod, std::string_view reason,
                         int64_t grace, std::string_view why) {
  const Status deleted =
      client_.Delete(kube::resources::kPods, pod.metadata.namespace_, pod.metadata.name,
                     {.precondition_uid = pod.metadata.uid,
                      .precondition_resource_version = "",
                      .grace_period_seconds = grace});
  if (!deleted.ok()) {
    if (deleted.error().status != 404 && deleted.error().status != 409) {
      logger_.Error("deleting pod failed", {logkey::Node(kube::Name(node)),
                                            logkey::Pod(pod.metadata.namespace_, pod.metadata.name),
                                            logkey::Err(deleted.error())});
    }
    return;
  }
  metrics_.PodDrained(reason);
  logger_.Info("deleted pod", {logkey::Node(kube::Name(node)),
                               logkey::Pod(pod.metadata.namespace_, pod.metadata.name),
                               {"grace-period-seconds", grace},
                               {"reason", std::string(why)}});
  events_.Record(node, kube::EventType::kNormal, "Deleted",
                 fmt::format("Deleted pod {}: {}", api::NamespacedName(pod.metadata), why));
}

std::vector<std::string> NodeDrainer::AttachedVolumes(const kube::Object& node,
                                                      const api::NodeClaim& claim) const {
  if (const std::optional<TimePoint> deadline = Deadline(claim);
      deadline && clock_.Now() >= *deadline) {
    return {};
  }
  const std::string_view node_name = kube::Name(node);
  // The PersistentVolumes of the pods that stay: their attachments go only with the instance.
  std::set<std::string, std::less<>> staying;
  for (const kube::Object& object : cluster_.pods().ByIndex(kIndexPodsByNode, node_name)) {
    const api::Pod pod = PodOf(object);
    if (!LeftInPlace(pod)) continue;
    for (const api::Volume& volume : pod.spec.volumes) {
      const std::string claim_name =
          volume.ephemeral ? pod.metadata.name + "-" + volume.name : volume.persistent_volume_claim;
      if (claim_name.empty()) continue;
      const std::optional<kube::Object> bound =
          cluster_.volume_claims().Get(kube::Key(pod.metadata.namespace_, claim_name));
      if (!bound) continue;
      if (const std::string_view name = kube::StringAt(*bound, {"spec", "volumeName"});
          !name.empty()) {
        staying.emplace(name);
      }
    }
  }
  std::vector<std::string> attached;
  for (const kube::Object& attachment :
       cluster_.volume_attachments().ByIndex(kIndexVolumeAttachmentsByNode, node_name)) {
    const std::string_view volume =
        kube::StringAt(attachment, {"spec", "source", "persistentVolumeName"});
    if (volume.empty() || staying.contains(volume)) continue;
    attached.emplace_back(kube::Name(attachment));
  }
  std::sort(attached.begin(), attached.end());
  return attached;
}

}  // namespace karpenter::controllers
