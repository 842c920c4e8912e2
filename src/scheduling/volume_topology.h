#pragma once
// Where a pod's volumes let it run: a bound PersistentVolume's node affinity, or for an unbound
// claim of a WaitForFirstConsumer StorageClass, the class's allowedTopologies.

#include <vector>

#include "api/pod.h"
#include "api/storage.h"
#include "scheduling/requirements.h"

namespace karpenter::scheduling {

struct StorageState {
  std::vector<const api::PersistentVolumeClaim*> claims;
  std::vector<const api::PersistentVolume*> volumes;
  std::vector<const api::StorageClass*> classes;
};

// The requirements every volume of the pod adds (the first term when a PV or class lists several).
Requirements VolumeRequirements(const api::Pod& pod, const StorageState& storage);

}  // namespace karpenter::scheduling
