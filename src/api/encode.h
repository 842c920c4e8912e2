#pragma once
// The JSON the API server expects for the parts of objects the controller writes: requirements,
// taints, resource lists, labels, conditions, EC2NodeClass status. The inverse of decoding for
// these fields.

#include <vector>

#include "api/condition.h"
#include "api/ec2nodeclass.h"
#include "api/node_selector.h"
#include "api/object_meta.h"
#include "api/resource_list.h"
#include "api/taint.h"
#include "common/json.h"

namespace karpenter::api {

Json Encode(const NodeSelectorRequirement& requirement);
Json Encode(const std::vector<NodeSelectorRequirement>& requirements);
Json Encode(const Taint& taint);
Json Encode(const std::vector<Taint>& taints);
// {"cpu": "2", "memory": "4Gi", …}: quantities in canonical Kubernetes form.
Json Encode(const ResourceList& resources);
Json Encode(const Labels& labels);
Json Encode(const Condition& condition);
// {"subnets": [...], "securityGroups": [...], "amis": [...], "instanceProfile", "conditions"}.
Json Encode(const EC2NodeClass::Status& status);

}  // namespace karpenter::api
