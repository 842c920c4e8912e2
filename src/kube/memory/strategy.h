#pragma once
// What the API server does with each kind on writes, beyond the rules all kinds share (its
// per-kind "strategies"): which kinds keep metadata.generation, which refuse updates without a
// resourceVersion, what a create sets, and which names are valid. Kinds not named here are
// treated like custom resources.

#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "kube/object.h"
#include "kube/resource.h"

namespace karpenter::kube::memory {

// Whether an update may omit metadata.resourceVersion. PodDisruptionBudgets, Leases and custom
// resources refuse it (422), most built-in kinds take it as "whatever is stored".
bool AllowsUnconditionalUpdate(const Resource& resource);

// Sets, on an object about to be created (its name known), what the server sets: status (a
// create cannot set the status of kinds with a status subresource, except Nodes; Pods start
// Pending, PersistentVolumes Pending), metadata.generation 1 for kinds that keep one (not
// Namespaces, Nodes, Events, Leases, PersistentVolume(Claim)s, StorageClasses), and a Namespace's
// defaults (label kubernetes.io/metadata.name, spec.finalizers ["kubernetes"], phase Active).
void PrepareForCreate(const Resource& resource, Object& object, TimePoint now);

// Whether an update from `before` to `after` bumps metadata.generation: for kinds that keep one,
// a change anywhere outside metadata and status (outside metadata when the kind has no status
// subresource).
bool ChangesGeneration(const Resource& resource, const Object& before, const Object& after);

// Why `name` cannot name an object of `resource` (Namespaces need an RFC 1123 label, other kinds
// a subdomain); nullopt when it can.
std::optional<std::string> NameError(const Resource& resource, std::string_view name);

}  // namespace karpenter::kube::memory
