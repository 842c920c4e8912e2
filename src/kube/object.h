#pragma once
// Objects travel through the client as JSON, exactly as the API server sends them, so nothing the
// controller does not model is lost on a read-modify-write. These accessors read the metadata
// every object carries; they return empty values when a field is absent.

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "common/json.h"

namespace karpenter::kube {

using Object = Json;
// A state of an object as a list or watch delivers it: immutable, so the in-memory API server,
// its watches and every informer hold one copy of it (a 50,000-pod snapshot is not kept three
// times over).
using SharedObject = std::shared_ptr<const Object>;

std::string_view Name(const Object& object);
std::string_view Namespace(const Object& object);
std::string_view Uid(const Object& object);
std::string_view ResourceVersion(const Object& object);
std::string_view DeletionTimestamp(const Object& object);
int64_t Generation(const Object& object);
// The label or annotation `key`, empty when absent.
std::string_view Label(const Object& object, std::string_view key);
std::string_view Annotation(const Object& object, std::string_view key);
bool HasFinalizer(const Object& object, std::string_view finalizer);
// metadata.finalizers without `finalizer` (an empty array when there are none).
Object FinalizersWithout(const Object& object, std::string_view finalizer);
// The object's controller owner reference (the one with controller: true); null when none.
const Object* ControllerOwner(const Object& object);
// The kind of the object's controller owner reference ("ReplicaSet", "DaemonSet"); empty when
// none.
std::string_view ControllerKind(const Object& object);

// The member at `path` ({"spec", "providerID"}), or nullptr when any step is missing or not an
// object. Reading never throws, whatever shape an object no schema checked has.
const Object* Find(const Object& object, std::initializer_list<std::string_view> path);
// The string at `path`; empty when absent or not a string.
std::string_view StringAt(const Object& object, std::initializer_list<std::string_view> path);
// Whether status.conditions has `type` with status "True" (pods, nodes, Karpenter's objects).
bool ConditionTrue(const Object& object, std::string_view type);

// "namespace/name", or "name" for cluster-scoped objects: the key of caches and work queues.
std::string Key(const Object& object);
std::string Key(std::string_view namespace_, std::string_view name);

}  // namespace karpenter::kube
