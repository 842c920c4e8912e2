#pragma once
// Workload controllers whose pods Karpenter plans for: Deployment, ReplicaSet, StatefulSet, Job,
// DaemonSet, and the PodDisruptionBudget that guards them.

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
