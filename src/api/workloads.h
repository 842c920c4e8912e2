#pragma once
// Workload controllers whose pods Karpenter plans for: Deployment, ReplicaSet, StatefulSet, Job,
// DaemonSet, and the PodDisruptionBudget that guards them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/label_selector.h"
#include "api/object_meta.h"
#include "api/pod.h"
#include "api/storage.h"

namespace karpenter::api {

struct PodTemplate {
  ObjectMeta metadata;
  PodSpec spec;
};

// A core v1 PodTemplate object: a pod template kept on its own (what a CapacityBuffer copies).
struct PodTemplateObject {
  ObjectMeta metadata;
  PodTemplate template_;
};

// Plans and simulations model every pod: a workload of more replicas (Kubernetes allows up to
// 2^31-1) is refused with a message rather than exhausting memory.
inline constexpr int32_t kMaxModelledReplicas = 100000;
// And at most this many pods in all (a large production cluster has tens of thousands).
inline constexpr int64_t kMaxModelledPods = 300000;

enum class WorkloadKind { kDeployment, kReplicaSet, kStatefulSet, kJob, kDaemonSet };

struct Workload {
  WorkloadKind kind = WorkloadKind::kDeployment;
  ObjectMeta metadata;
  int32_t replicas = 1;  // Jobs: parallelism; DaemonSets: unused
  std::optional<LabelSelector> selector;
  PodTemplate template_;
  std::vector<PersistentVolumeClaim> volume_claim_templates;  // StatefulSets
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
  std::string min_available;    // int or percent; empty when unset
  std::string max_unavailable;  // int or percent; empty when unset
};

}  // namespace karpenter::api
