#include "kube/object.h"

#include <algorithm>

namespace karpenter::kube {
namespace {

const Object* Member(const Object& object, std::string_view name) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

std::string_view StringOf(const Object* value) {
  if (value == nullptr || !value->is_string()) return {};
  return value->get_ref<const std::string&>();
}

const Object* Metadata(const Object& object) { return Member(object, "metadata"); }

std::string_view MetadataString(const Object& object, std::string_view field) {
  const Object* meta = Metadata(object);
  return meta == nullptr ? std::string_view() : StringOf(Member(*meta, field));
}

std::string_view MapEntry(const Object& object, std::string_view map, std::string_view key) {
  const Object* meta = Metadata(object);
  if (meta == nullptr) return {};
  const Object* entries = Member(*meta, map);
  return entries == nullptr ? std::string_view() : StringOf(Member(*entries, key));
}

}  // namespace

std::string_view Name(const Object& object) { return MetadataString(object, "name"); }
std::string_view Namespace(const Object& object) { return MetadataString(object, "namespace"); }
std::string_view Uid(const Object& object) { return MetadataString(object, "uid"); }
std::string_view ResourceVersion(const Object& object) {
  return MetadataString(object, "resourceVersion");
}
std::string_view DeletionTimestamp(const Object& object) {
  return MetadataString(object, "deletionTimestamp");
}

int64_t Generation(const Object& object) {
  const Object* meta = Metadata(object);
  const Object* generation = meta == nullptr ? nullptr : Member(*meta, "generation");
  return generation != nullptr && generation->is_number_integer() ? generation->get<int64_t>() : 0;
}

std::string_view Label(const Object& object, std::string_view key) {
  return MapEntry(object, "labels", key);
}

std::string_view Annotation(const Object& object, std::string_view key) {
  return MapEntry(object, "annotations", key);
}

bool HasFinalizer(const Object& object, std::string_view finalizer) {
  const Object* meta = Metadata(object);
  const Object* finalizers = meta == nullptr ? nullptr : Member(*meta, "finalizers");
  if (finalizers == nullptr || !finalizers->is_array()) return false;
  return std::any_of(finalizers->begin(), finalizers->end(),
                     [&](const Object& f) { return StringOf(&f) == finalizer; });
}

Object FinalizersWithout(const Object& object, std::string_view finalizer) {
  Object out = Object::array();
  const Object* meta = Metadata(object);
  const Object* finalizers = meta == nullptr ? nullptr : Member(*meta, "finalizers");
  if (finalizers == nullptr || !finalizers->is_array()) return out;
  for (const Object& f : *finalizers) {
    if (StringOf(&f) != finalizer) out.push_back(f);
  }
  return out;
}

const Object* ControllerOwner(const Object& object) {
  const Object* meta = Metadata(object);
  const Object* owners = meta == nullptr ? nullptr : Member(*meta, "ownerReferences");
  if (owners == nullptr || !owners->is_array()) return nullptr;
  for (const Object& owner : *owners) {
    if (owner.is_object() && owner.value("controller", false)) return &owner;
  }
  return nullptr;
}

std::string_view ControllerKind(const Object& object) {
  const Object* owner = ControllerOwner(object);
  return owner == nullptr ? std::string_view() : StringOf(Member(*owner, "kind"));
}

const Object* Find(const Object& object, std::initializer_list<std::string_view> path) {
  const Object* at = &object;
  for (std::string_view step : path) {
    at = Member(*at, step);
    if (at == nullptr) return nullptr;
  }
  return at;
}

std::string_view StringAt(const Object& object, std::initializer_list<std::string_view> path) {
  return StringOf(Find(object, path));
}

bool ConditionTrue(const Object& object, std::string_view type) {
  const Object* conditions = Find(object, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return false;
  return std::any_of(conditions->begin(), conditions->end(), [&](const Object& condition) {
    return condition.is_object() && StringAt(condition, {"type"}) == type &&
           StringAt(condition, {"status"}) == "True";
  });
}

std::string Key(std::string_view namespace_, std::string_view name) {
  if (namespace_.empty()) return std::string(name);
  std::string out;
  out.reserve(namespace_.size() + 1 + name.size());
  out.append(namespace_).append("/").append(name);
  return out;
}

std::string Key(const Object& object) { return Key(Namespace(object), Name(object)); }

}  // namespace karpenter::kube
