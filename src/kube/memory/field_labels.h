#pragma once
// The fields a field selector may name, per kind, as the API server supports them (its "field
// label conversions"): metadata.name and metadata.namespace for most kinds, more for Pods, Nodes,
// Namespaces and Events. The server refuses any other field with 400 BadRequest.

#include "common/result.h"
#include "kube/object.h"
#include "kube/resource.h"
#include "kube/selector.h"

namespace karpenter::kube::memory {

// 400 BadRequest naming the first field of `selector` that objects of `resource` cannot be
// selected by.
Status CheckFieldLabels(const Resource& resource, const FieldSelector& selector);

// The object reduced to its selectable fields, each as text the way the server reads it (an
// absent boolean reads "false"), for FieldSelector::Matches.
Object SelectableFields(const Resource& resource, const Object& object);

}  // namespace karpenter::kube::memory
