#pragma once
// Objects travel through the client as JSON, exactly as the API server sends them, so nothing the
// controller does not model is lost on a read-modify-write. These accessors read the metadata
// every object carries; they return empty values when a field is absent.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace karpenter::kube {

using Object = nlohmann::json;

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

// "namespace/name", or "name" for cluster-scoped objects: the key of caches and work queues.
std::string Key(const Object& object);
std::string Key(std::string_view namespace_, std::string_view name);

}  // namespace karpenter::kube
