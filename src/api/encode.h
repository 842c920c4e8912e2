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

karpenter::Json Encode(const NodeSelectorRequirement& requirement);
karpenter::Json Encode(const std::vector<NodeSelectorRequirement>& requirements);
karpenter::Json Encode(const Taint& taint);
karpenter::Json Encode(const std::vector<Taint>& taints);
// {"cpu": "2", "memory": "4Gi", …}: quantities in canonical Kubernetes form.
karpenter::Json Encode(const ResourceList& resources);
karpenter::Json Encode(const Labels& labels);
karpenter::Json Encode(const Condition& condition);
// {"subnets": [...], "securityGroups": [...], "amis": [...], "instanceProfile", "conditions"}.
karpenter::Json Encode(const EC2NodeClass::Status& status);

}  // namespace karpenter::api
