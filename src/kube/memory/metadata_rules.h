#pragma once
// The rules on metadata that the API server applies to objects of every kind: which bodies it
// decodes, which labels, annotations and finalizers it accepts, and what an update cannot change.

#include <string>
#include <vector>

#include "common/result.h"
#include "kube/object.h"
#include "kube/resource.h"

namespace karpenter::kube::memory {

// The body as the server decodes it (400 BadRequest when it cannot): a JSON object whose
// metadata fields have the right types, with apiVersion and kind filled in and no namespace on a
// cluster-scoped kind.
Result<Object> DecodeBody(const Resource& resource, Object body);

// The syntax of labels, annotation keys and finalizers of a decoded object (422 Invalid).
Status ValidateMetadata(const Resource& resource, const Object& object);

// Gives `next`, an update of `stored`, the metadata the server keeps whatever the body says
// (uid, creationTimestamp, resourceVersion, generation, a deletion under way), and refuses with
// 422 what the body may not do: start a deletion of its own, or add a finalizer to an object
// being deleted.
Status KeepSystemMetadata(const Resource& resource, const Object& stored, Object& next);

// metadata.finalizers; empty when absent.
std::vector<std::string> Finalizers(const Object& object);

}  // namespace karpenter::kube::memory
