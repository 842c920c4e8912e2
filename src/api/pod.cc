#include "api/pod.h"

#include <charconv>
#include <system_error>

#include "api/labels.h"

namespace karpenter::api {

// Regular containers and sidecars (init containers with restartPolicy Always) run together for the
// pod's life. Each ordinary init container runs alone, alongside the sidecars started before it; a
// sidecar's own start needs itself plus the sidecars before it. The pod reserves the largest of
// these, resource by resource, plus the runtime overhead.
ResourceList EffectiveRequests(const PodSpec& spec) {
  ResourceList running;
  for (const Container& container : spec.containers) running += container.requests;

  ResourceList sidecars;  // the sidecars started so far
  ResourceList init_peak;
  for (const Container& container : spec.init_containers) {
    if (container.restart_always) {
      sidecars += container.requests;
      running += container.requests;
      init_peak.MaxWith(sidecars);
    } else {
      init_peak.MaxWith(container.requests + sidecars);
    }
  }
  running.MaxWith(init_peak);
  running += spec.overhead;
  return running;
}

ResourceList SchedulingRequests(const PodSpec& spec) {
  ResourceList requests = EffectiveRequests(spec);
  requests.Set(kResourcePods, requests.pods() + Quantity::FromUnits(1));
  return requests;
}

const OwnerReference* ControllerOf(const ObjectMeta& meta) {
  for (const OwnerReference& owner : meta.owner_references) {
    if (owner.controller) return &owner;
  }
  return nullptr;
}

bool MarkedUnschedulable(const Pod& pod) {
  for (const PodCondition& condition : pod.status.conditions) {
    if (condition.type == "PodScheduled") {
      return condition.status == "False" && condition.reason == "Unschedulable";
    }
  }
  return false;
}

int32_t PodDeletionCost(const Pod& pod) {
  const std::string_view text = LabelValue(pod.metadata.annotations, kAnnotationPodDeletionCost);
  int32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size() ? value : 0;
}

bool IsDaemonSetPod(const Pod& pod) {
  const OwnerReference* owner = ControllerOf(pod.metadata);
  return owner != nullptr && owner->kind == "DaemonSet";
}

bool IsMirrorPod(const Pod& pod) { return pod.metadata.annotations.contains(kAnnotationMirrorPod); }

bool IsReschedulable(const Pod& pod) {
  return !IsTerminal(pod) && pod.metadata.deletion_timestamp.empty() && !IsDaemonSetPod(pod) &&
         !IsMirrorPod(pod);
}

}  // namespace karpenter::api
