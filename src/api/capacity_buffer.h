#pragma once
// autoscaling.x-k8s.io/v1beta1 CapacityBuffer (the CapacityBuffer gate): spare room kept ready for
// pods that must start without waiting for a node — a number of copies of a pod (from a
// PodTemplate, or a share of a Deployment, StatefulSet or ReplicaSet, using its pod template),
// capped by a resource budget, that provisioning plans for as if they were pending and
// consolidation keeps room for (docs/upstream-reference.md §19).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/condition.h"
#include "api/object_meta.h"
#include "api/resource_list.h"

namespace karpenter::api {

// The only strategy Karpenter implements (and the default): the buffer is capacity that exists.
inline constexpr std::string_view kActiveCapacityStrategy = "buffer.x-k8s.io/active-capacity";

struct ScalableReference {
  std::string api_group;  // "" or "apps"
  std::string kind;       // Deployment, StatefulSet or ReplicaSet
  std::string name;
};

struct CapacityBuffer {
  ObjectMeta metadata;
  struct Spec {
    std::string provisioning_strategy{kActiveCapacityStrategy};
    std::optional<std::string> pod_template_ref;  // a PodTemplate's name, same namespace
    std::optional<ScalableReference> scalable_ref;
    std::optional<int32_t> replicas;
    std::optional<int32_t> percentage;  // of the scalable workload's replicas
    ResourceList limits;
    // The resources spec.limits names, zero-valued ones included (`cpu: 0` allows no copy).
    std::vector<std::string> limited_resources;
  } spec;
};

// How many copies of the pod the buffer asks for (upstream's rule since v1.14): the larger of
// spec.replicas and spec.percentage of `workload_replicas` (rounded up, at least 1 when both are
// above 0; only with a scalableRef), capped by how many copies of `pod_requests` fit spec.limits
// (per resource both name, the fewest); the cap alone when neither count is set; 0 when nothing is.
int32_t BufferReplicas(const CapacityBuffer::Spec& spec, std::optional<int32_t> workload_replicas,
                       const ResourceList& pod_requests);

}  // namespace karpenter::api
