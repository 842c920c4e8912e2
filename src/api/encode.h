#pragma once
// The JSON the API server expects for the parts of objects the controller writes: requirements,
// taints, resource lists, labels, conditions, EC2NodeClass status. The inverse of decoding for
// these fields.

#include <nlohmann/json.hpp>
#include <vector>

#include "api/condition.h"
#include "api/ec2nodeclass.h"
#include "api/node_selector.h"
#include "api/object_meta.h"
#include "api/resource_list.h"
#include "api/taint.h"

namespace karpenter::api {

nlohmann::json Encode(const NodeSelectorRequirement& requirement);
nlohmann::json Encode(const std::vector<NodeSelectorRequirement>& requirements);
nlohmann::json Encode(const Taint& taint);
nlohmann::json Encode(const std::vector<Taint>& taints);
// {"cpu": "2", "memory": "4Gi", …}: quantities in canonical Kubernetes form.
nlohmann::json Encode(const ResourceList& resources);
nlohmann::json Encode(const Labels& labels);
nlohmann::json Encode(const Condition& condition);
// {"subnets": [...], "securityGroups": [...], "amis": [...], "instanceProfile", "conditions"}.
nlohmann::json Encode(const EC2NodeClass::Status& status);

}  // namespace karpenter::api
