#pragma once
// The pods a workload controller would create, named the way Kubernetes names them:
// Deployment `<name>-<pod-template-hash>-<suffix>`, ReplicaSet and Job `<name>-<suffix>`,
// StatefulSet `<name>-<ordinal>`. Names and hashes are deterministic (derived from the workload).

#include <string>
#include <string_view>
#include <vector>

#include "api/pod.h"
#include "api/workloads.h"

namespace karpenter::api {

// The pod-template-hash of a Deployment's current ReplicaSet, derived from the workload's namespace
// and name (so stable for a run, which is all a plan or simulation needs).
std::string PodTemplateHash(std::string_view namespace_, std::string_view name);

// DaemonSets expand to no pods (their pods follow nodes); use their template as overhead instead.
std::vector<Pod> ExpandWorkload(const Workload& workload);

}  // namespace karpenter::api
