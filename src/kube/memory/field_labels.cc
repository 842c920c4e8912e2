#include "kube/memory/field_labels.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>

#include "kube/memory/api_errors.h"

namespace karpenter::kube::memory {
namespace {

struct FieldLabel {
  std::string_view path;
  std::string_view absent;  // the text of the field when the object lacks it
};

constexpr FieldLabel kPodFields[] = {
    {"metadata.name", ""},         {"metadata.namespace", ""},
    {"spec.nodeName", ""},         {"spec.restartPolicy", ""},
    {"spec.schedulerName", ""},    {"spec.serviceAccountName", ""},
    {"spec.hostNetwork", "false"}, {"status.phase", ""},
    {"status.podIP", ""},          {"status.nominatedNodeName", ""},
};
constexpr FieldLabel kNodeFields[] = {{"metadata.name", ""}, {"spec.unschedulable", "false"}};
constexpr FieldLabel kNamespaceFields[] = {{"metadata.name", ""}, {"status.phase", ""}};
constexpr FieldLabel kEventFields[] = {
    {"metadata.name", ""},
    {"metadata.namespace", ""},
    {"involvedObject.kind", ""},
    {"involvedObject.namespace", ""},
    {"involvedObject.name", ""},
    {"involvedObject.uid", ""},
    {"involvedObject.apiVersion", ""},
    {"involvedObject.resourceVersion", ""},
    {"involvedObject.fieldPath", ""},
    {"reason", ""},
    {"reportingComponent", ""},
    {"type", ""},
};
constexpr FieldLabel kMetadataFields[] = {{"metadata.name", ""}, {"metadata.namespace", ""}};

// Kinds with their own conversion; the others accept only metadata.name and metadata.namespace.
std::span<const FieldLabel> OwnFieldLabels(const Resource& resource) {
  if (resource == resources::kPods) return kPodFields;
  if (resource == resources::kNodes) return kNodeFields;
  if (resource == resources::kNamespaces) return kNamespaceFields;
  if (resource == resources::kEvents) return kEventFields;
  return {};
}

std::span<const FieldLabel> FieldLabels(const Resource& resource) {
  const std::span<const FieldLabel> own = OwnFieldLabels(resource);
  return own.empty() ? std::span<const FieldLabel>(kMetadataFields) : own;
}

Object::json_pointer Pointer(std::string_view path) {
  std::string pointer(path);
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  pointer.insert(pointer.begin(), '/');
  return Object::json_pointer(pointer);
}

}  // namespace

Status CheckFieldLabels(const Resource& resource, const FieldSelector& selector) {
  const std::span<const FieldLabel> labels = FieldLabels(resource);
  for (const FieldRequirement& requirement : selector.requirements()) {
    const bool known = std::any_of(labels.begin(), labels.end(), [&](const FieldLabel& label) {
      return label.path == requirement.path;
    });
    if (known) continue;
    if (OwnFieldLabels(resource).empty()) {
      return BadRequest(fmt::format(
          "\"{}\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
          requirement.path));
    }
    return BadRequest(fmt::format("field label not supported: {}", requirement.path));
  }
  return {};
}

Object SelectableFields(const Resource& resource, const Object& object) {
  Object fields = Object::object();
  for (const FieldLabel& label : FieldLabels(resource)) {
    const Object::json_pointer pointer = Pointer(label.path);
    const Object* value = object.contains(pointer) ? &object.at(pointer) : nullptr;
    if (value == nullptr || value->is_null()) {
      fields[pointer] = label.absent;
    } else if (value->is_string()) {
      fields[pointer] = *value;
    } else {
      fields[pointer] = value->dump();
    }
  }
  return fields;
}

}  // namespace karpenter::kube::memory
