#include "kube/memory/metadata_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "kube/memory/api_errors.h"
#include "kube/selector.h"

namespace karpenter::kube::memory {
namespace {

// Sets `to`'s `field` to `from`'s, or removes it when `from` has none.
void CopyField(const Object& from, Object& to, const char* field) {
  if (from.contains(field)) {
    to[field] = from.at(field);
  } else {
    to.erase(field);
  }
}

}  // namespace

std::vector<std::string> Finalizers(const Object& object) {
  const Object::json_pointer pointer("/metadata/finalizers");
  std::vector<std::string> finalizers;
  if (!object.contains(pointer) || !object.at(pointer).is_array()) return finalizers;
  for (const Object& finalizer : object.at(pointer)) {
    if (finalizer.is_string()) finalizers.push_back(finalizer.get<std::string>());
  }
  return finalizers;
}

Result<Object> DecodeBody(const Resource& resource, Object body) {
  if (!body.is_object()) {
    return BadRequest(fmt::format("a {} must be a JSON object", resource.kind));
  }
  Object object = std::move(body);
  Object& metadata = object["metadata"];
  if (metadata.is_null()) metadata = Object::object();
  if (!metadata.is_object()) return BadRequest("metadata must be a JSON object");
  for (const char* field : {"name", "namespace", "generateName", "uid", "resourceVersion"}) {
    if (metadata.contains(field) && !metadata[field].is_string()) {
      return BadRequest(fmt::format("metadata.{} must be a string", field));
    }
  }
  for (const char* field : {"labels", "annotations"}) {
    if (!metadata.contains(field) || metadata[field].is_null()) continue;
    const Object& map = metadata[field];
    if (!map.is_object() || std::any_of(map.begin(), map.end(),
                                        [](const Object& value) { return !value.is_string(); })) {
      return BadRequest(fmt::format("metadata.{} must map strings to strings", field));
    }
  }
  if (metadata.contains("finalizers") && !metadata["finalizers"].is_null()) {
    const Object& finalizers = metadata["finalizers"];
    if (!finalizers.is_array() ||
        std::any_of(finalizers.begin(), finalizers.end(),
                    [](const Object& finalizer) { return !finalizer.is_string(); })) {
      return BadRequest("metadata.finalizers must be a list of strings");
    }
  }
  if (!resource.namespaced) metadata.erase("namespace");
  // After the last use of `metadata`: adding members may move it (common/json.h).
  object["apiVersion"] = resource.ApiVersion();
  object["kind"] = resource.kind;
  return object;
}

Status ValidateMetadata(const Resource& resource, const Object& object) {
  const Object& metadata = object.at("metadata");
  const std::string_view name = Name(object);
  if (const auto labels = metadata.find("labels");
      labels != metadata.end() && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      if (auto error = LabelKeyError(key)) {
        return Invalid(resource, name, InvalidValue("metadata.labels", key, *error));
      }
      if (auto error = LabelValueError(value.get<std::string>())) {
        return Invalid(resource, name, InvalidValue("metadata.labels", value, *error));
      }
    }
  }
  if (const auto annotations = metadata.find("annotations");
      annotations != metadata.end() && annotations->is_object()) {
    for (const auto& [key, value] : annotations->items()) {
      // The server checks annotation keys in lower case.
      std::string lower = key;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (auto error = LabelKeyError(lower)) {
        return Invalid(resource, name, InvalidValue("metadata.annotations", key, *error));
      }
    }
  }
  for (const std::string& finalizer : Finalizers(object)) {
    if (auto error = LabelKeyError(finalizer)) {
      return Invalid(resource, name, InvalidValue("metadata.finalizers", finalizer, *error));
    }
  }
  return {};
}

Status KeepSystemMetadata(const Resource& resource, const Object& stored, Object& next) {
  const Object& old = stored.at("metadata");
  Object& metadata = next["metadata"];
  for (const char* field : {"uid", "creationTimestamp", "resourceVersion", "generation"}) {
    CopyField(old, metadata, field);
  }
  // An update can neither remove nor change a deletion under way.
  if (old.contains("deletionTimestamp")) {
    metadata["deletionTimestamp"] = old["deletionTimestamp"];
    if (!metadata.contains("deletionGracePeriodSeconds")) {
      CopyField(old, metadata, "deletionGracePeriodSeconds");
    }
  }
  for (const char* field : {"deletionTimestamp", "deletionGracePeriodSeconds"}) {
    if (metadata.value(field, Object()) != old.value(field, Object())) {
      return Invalid(resource, Name(next),
                     InvalidValue(fmt::format("metadata.{}", field),
                                  metadata.value(field, Object()), "field is immutable"));
    }
  }
  if (!old.contains("deletionTimestamp")) return {};
  const std::vector<std::string> before = Finalizers(stored);
  Object added = Object::array();
  for (const std::string& finalizer : Finalizers(next)) {
    if (std::find(before.begin(), before.end(), finalizer) == before.end()) {
      added.push_back(finalizer);
    }
  }
  if (added.empty()) return {};
  return Invalid(resource, Name(next),
                 ForbiddenField("metadata.finalizers",
                                fmt::format("no new finalizers can be added if the object is "
                                            "being deleted, found new finalizers {}",
                                            added.dump())));
}

}  // namespace karpenter::kube::memory
