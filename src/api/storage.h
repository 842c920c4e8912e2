#pragma once
// Storage objects whose topology constrains where pods may run: PersistentVolume,
// PersistentVolumeClaim and StorageClass.

#include <optional>
#include <string>
#include <vector>

#include "api/node_selector.h"
#include "api/object_meta.h"
#include "api/resource_list.h"

namespace karpenter::api {

struct PersistentVolumeClaim {
  ObjectMeta metadata;
  std::optional<std::string> storage_class_name;  // nullopt: the default class
  std::string volume_name;                        // the bound PV, if any
  ResourceList requests;
};

struct PersistentVolume {
  ObjectMeta metadata;
  std::string storage_class_name;
  std::vector<NodeSelectorTerm> node_affinity;  // required terms, ORed; empty: anywhere
  std::string claim_namespace;
  std::string claim_name;
};

struct StorageClass {
  ObjectMeta metadata;
  std::string provisioner;
  std::string volume_binding_mode = "Immediate";     // or WaitForFirstConsumer
  std::vector<NodeSelectorTerm> allowed_topologies;  // matchLabelExpressions as In requirements
  bool is_default = false;  // storageclass.kubernetes.io/is-default-class: "true"
};

}  // namespace karpenter::api
