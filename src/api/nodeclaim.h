#pragma once
// karpenter.sh/v1 NodeClaim: one requested machine.

#include <optional>
#include <string>
#include <vector>

#include "api/condition.h"
#include "api/node_selector.h"
#include "api/object_meta.h"
#include "api/resource_list.h"
#include "api/taint.h"
#include "common/duration.h"

namespace karpenter::api {

struct NodeClassReference {
  std::string group;
  std::string kind;
  std::string name;
  bool operator==(const NodeClassReference&) const = default;
};

struct NodeClaimSpec {
  std::vector<NodeSelectorRequirement> requirements;
  ResourceList resource_requests;
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;
  std::optional<Duration> expire_after;
  std::optional<Duration> termination_grace_period;
  NodeClassReference node_class_ref;
};

struct NodeClaim {
  ObjectMeta metadata;
  NodeClaimSpec spec;
  struct Status {
    std::string provider_id;
    std::string image_id;
    std::string node_name;
    ResourceList capacity;
    ResourceList allocatable;
    std::string last_pod_event_time;
    std::vector<Condition> conditions;
  } status;
};

}  // namespace karpenter::api
