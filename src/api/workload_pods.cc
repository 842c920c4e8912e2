#include "api/workload_pods.h"

#include <cstdint>
#include <string>

#include "common/hash.h"

namespace karpenter::api {
namespace {

// Kubernetes' alphabet for generated names: no vowels, no confusable characters.
constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";

std::string Encode(uint64_t value, size_t length) {
  std::string out;
  out.reserve(length);
  for (size_t i = 0; i < length; ++i) {
    out += kAlphabet[value % kAlphabet.size()];
    value /= kAlphabet.size();
    if (value == 0) value = Fnv1a64(out);
  }
  return out;
}

std::string_view KindName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kDeployment:
      return "Deployment";
    case WorkloadKind::kReplicaSet:
      return "ReplicaSet";
    case WorkloadKind::kStatefulSet:
      return "StatefulSet";
    case WorkloadKind::kJob:
      return "Job";
    case WorkloadKind::kDaemonSet:
      return "DaemonSet";
  }
  return "";
}

}  // namespace

std::string PodTemplateHash(std::string_view namespace_, std::string_view name) {
  return Encode(Fnv1a64("template", Fnv1a64(name, Fnv1a64(namespace_))), 10);
}

std::vector<Pod> ExpandWorkload(const Workload& workload) {
  std::vector<Pod> pods;
  if (workload.kind == WorkloadKind::kDaemonSet || workload.replicas <= 0) return pods;
  const std::string& name = workload.metadata.name;
  const uint64_t seed = Fnv1a64(name, Fnv1a64(workload.metadata.namespace_));
  std::string prefix = name + '-';
  std::string owner_kind(KindName(workload.kind));
  std::string owner_name = name;
  if (workload.kind == WorkloadKind::kDeployment) {
    std::string hash = PodTemplateHash(workload.metadata.namespace_, name);
    owner_kind = "ReplicaSet";
    owner_name = name + '-' + hash;
    prefix = owner_name + '-';
  }
  pods.reserve(static_cast<size_t>(workload.replicas));
  for (int32_t i = 0; i < workload.replicas; ++i) {
    Pod pod;
    pod.metadata = workload.template_.metadata;
    pod.metadata.namespace_ = workload.metadata.namespace_;
    pod.metadata.name = workload.kind == WorkloadKind::kStatefulSet
                            ? prefix + std::to_string(i)
                            : prefix + Encode(Fnv1a64(std::to_string(i), seed), 5);
    pod.metadata.uid = NamespacedName(pod.metadata);
    pod.metadata.owner_references = {{workload.kind == WorkloadKind::kJob ? "batch/v1" : "apps/v1",
                                      owner_kind, owner_name, workload.metadata.uid, true}};
    pod.spec = workload.template_.spec;
    pod.status.phase = "Pending";
    pods.push_back(std::move(pod));
  }
  return pods;
}

}  // namespace karpenter::api
