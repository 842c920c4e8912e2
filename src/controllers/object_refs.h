#pragma once
// The smallest object an Event needs to name what it is about (kind, name, namespace, uid), built
// from a decoded object when the full JSON is not at hand.

#include "api/object_meta.h"
#include "api/pod.h"
#include "kube/object.h"

namespace karpenter::controllers {

kube::Object ObjectReference(std::string_view api_version, std::string_view kind,
                             const api::ObjectMeta& meta);
inline kube::Object PodReference(const api::Pod& pod) {
  return ObjectReference("v1", "Pod", pod.metadata);
}

}  // namespace karpenter::controllers
