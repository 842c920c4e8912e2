#pragma once
// Provider-neutral catalogs of instance types, by name or path (aws/catalog/load_catalog.h adds
// the embedded EC2 catalog, "aws"):
//
// - "fake400" (or "fake<N>", 1 ≤ N ≤ 100000): the upstream benchmark's synthetic catalog.
// - anything else: a JSON file of instance types:
//
//     {"instanceTypes": [{
//        "name": "small-a",                                   required, unique
//        "labels": {"kubernetes.io/arch": "amd64"},            optional; string values
//        "capacity": {"cpu": "2", "memory": "4Gi", "pods": 110},  cpu and memory required;
//                                                               pods defaults to 110
//        "overhead": {"kubeReserved": {"cpu": "100m"},          optional, each part optional
//                     "systemReserved": {}, "evictionThreshold": {"memory": "100Mi"}},
//        "offerings": [{"zone": "zone-a", "capacityType": "on-demand",   required, at least one;
//                       "price": 0.1, "available": true}],               available defaults true
//        "exotic": false                                        optional
//      }]}
//
//   A top-level array of instance types is accepted too. Quantities are Kubernetes quantity
//   strings or plain numbers. capacityType is on-demand, spot or reserved. Every label becomes an
//   `In [value]` requirement; node.kubernetes.io/instance-type is the name; the zone and
//   capacity-type requirements are the values of the available offerings (labels may not set
//   them). Unknown fields are errors. Errors name the file, the instance type and the field.

#include <string_view>
#include <vector>

#include "cloud/instance_type.h"
#include "common/result.h"

namespace karpenter::cloud {

Result<std::vector<InstanceType>> LoadCatalog(std::string_view name_or_path);

// Parses the JSON format above; `source` names the text in errors.
Result<std::vector<InstanceType>> ParseCatalogJson(std::string_view text, std::string_view source);

}  // namespace karpenter::cloud
