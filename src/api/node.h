#pragma once
// core/v1 Node, reduced to what Karpenter reads.

#include <string>
#include <vector>

#include "api/object_meta.h"
#include "api/resource_list.h"
#include "api/taint.h"

namespace karpenter::api {

struct NodeCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string last_transition_time;
};

struct Node {
  ObjectMeta metadata;
  struct Spec {
    std::string provider_id;
    std::vector<Taint> taints;
    bool unschedulable = false;
  } spec;
  struct Status {
    ResourceList capacity;
    ResourceList allocatable;
    std::vector<NodeCondition> conditions;
  } status;

  bool Ready() const;
};

}  // namespace karpenter::api
