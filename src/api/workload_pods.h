#pragma once
// The pods a workload controller would create, named the way Kubernetes names them:
// Deployment `<name>-<pod-template-hash>-<suffix>`, ReplicaSet and Job `<name>-<suffix>`,
// StatefulSet `<name>-<ordinal>`. Names and hashes are deterministic (derived from the workload).

#include <vector>

#include "api/pod.h"
#include "api/workloads.h"

namespace karpenter::api {

// DaemonSets expand to no pods (their pods follow nodes); use their template as overhead instead.
std::vector<Pod> ExpandWorkload(const Workload& workload);

}  // namespace karpenter::api
