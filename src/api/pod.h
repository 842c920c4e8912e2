#pragma once
// core/v1 Pod, reduced to what scheduling and disruption read.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/label_selector.h"
#include "api/node_selector.h"
#include "api/object_meta.h"
#include "api/resource_list.h"
#include "api/taint.h"

namespace karpenter::api {

struct ContainerPort {
  int32_t container_port = 0;
  int32_t host_port = 0;  // 0: no host port
  std::string protocol = "TCP";
  std::string host_ip;
};

struct Container {
  std::string name;
  ResourceList requests;
  ResourceList limits;
  std::vector<ContainerPort> ports;
  bool restart_always = false;  // init containers only: a sidecar (restartPolicy: Always)
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::optional<LabelSelector> namespace_selector;
  std::string topology_key;
  std::vector<std::string> match_label_keys;
};

struct WeightedPodAffinityTerm {
  int weight = 0;
  PodAffinityTerm term;
};

struct NodeAffinity {
  // requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms; nullopt when absent.
  std::optional<std::vector<NodeSelectorTerm>> required;
  std::vector<PreferredSchedulingTerm> preferred;
};

struct PodAffinity {
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;
};

enum class UnsatisfiableConstraintAction { kDoNotSchedule, kScheduleAnyway };
enum class NodeInclusionPolicy { kHonor, kIgnore };

struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  UnsatisfiableConstraintAction when_unsatisfiable = UnsatisfiableConstraintAction::kDoNotSchedule;
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  NodeInclusionPolicy node_affinity_policy = NodeInclusionPolicy::kHonor;
  NodeInclusionPolicy node_taints_policy = NodeInclusionPolicy::kIgnore;
  std::vector<std::string> match_label_keys;
};

struct Volume {
  std::string name;
  std::string persistent_volume_claim;  // claimName, when the volume is a PVC
  bool ephemeral = false;               // a generic ephemeral volume (a PVC named <pod>-<volume>)
  std::string ephemeral_storage_class;  // its volumeClaimTemplate's storageClassName
};

struct PodCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string last_transition_time;
};

struct PodSpec {
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  ResourceList overhead;
  Labels node_selector;
  std::optional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::optional<int32_t> priority;
  std::string priority_class_name;
  std::string preemption_policy;  // PreemptLowerPriority (also when empty) or Never
  std::string node_name;
  std::string scheduler_name;
  std::vector<Volume> volumes;
  std::optional<int64_t> termination_grace_period_seconds;
};

struct PodStatus {
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  std::string nominated_node_name;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
};

// The resources the scheduler reserves for the pod: max(sum of containers + sidecars, each init
// container + the sidecars started before it) + overhead.
ResourceList EffectiveRequests(const PodSpec& spec);
// What the pod takes of a node when scheduled there: its effective requests and one of the node's
// pod slots (kube-scheduler counts `pods` against allocatable like any resource).
ResourceList SchedulingRequests(const PodSpec& spec);

// The pod's owner with controller=true, if any.
const OwnerReference* ControllerOf(const ObjectMeta& meta);

// Whether the pod has finished (phase Succeeded or Failed): it holds no resources any more.
inline bool IsTerminal(const Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

// Whether the kube-scheduler marked the pod PodScheduled=False with reason Unschedulable (what
// makes Karpenter provision for it).
bool MarkedUnschedulable(const Pod& pod);

// Whether a DaemonSet controls the pod (its controller places it; nothing provisions for it).
bool IsDaemonSetPod(const Pod& pod);

// The pod's controller.kubernetes.io/pod-deletion-cost: 0 when absent or not a whole int32, as
// the ReplicaSet controller reads it.
int32_t PodDeletionCost(const Pod& pod);

// The annotation that marks the kubelet's copy of a static pod: the API can neither evict nor move
// what the kubelet runs from its manifests.
inline constexpr std::string_view kAnnotationMirrorPod = "kubernetes.io/config.mirror";
bool IsMirrorPod(const Pod& pod);

// Whether the bound pod would need a place on another node if its node went: not finished, not
// already terminating, neither a DaemonSet's nor a mirror pod.
bool IsReschedulable(const Pod& pod);

}  // namespace karpenter::api
