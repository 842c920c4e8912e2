#include "kube/memory/strategy.h"

#include <algorithm>

#include "kube/selector.h"

namespace karpenter::kube::memory {
namespace {

bool IsCustomResource(const Resource& resource) {
  return resource.group == "karpenter.sh" || resource.group == "karpenter.k8s.aws";
}

bool TracksGeneration(const Resource& resource) {
  namespace r = resources;
  return !(resource == r::kNamespaces || resource == r::kNodes || resource == r::kEvents ||
           resource == r::kLeases || resource == r::kPersistentVolumes ||
           resource == r::kPersistentVolumeClaims || resource == r::kStorageClasses);
}

// The object without the parts that do not count as its specification.
Object Specification(const Resource& resource, Object object) {
  object.erase("metadata");
  if (HasStatusSubresource(resource)) object.erase("status");
  return object;
}

}  // namespace

bool AllowsUnconditionalUpdate(const Resource& resource) {
  return !(resource == resources::kPodDisruptionBudgets || resource == resources::kLeases ||
           resource == resources::kCustomResourceDefinitions || IsCustomResource(resource));
}

void PrepareForCreate(const Resource& resource, Object& object, TimePoint now) {
  Object& metadata = object["metadata"];
  if (TracksGeneration(resource)) {
    metadata["generation"] = 1;
  } else {
    metadata.erase("generation");
  }
  if (resource == resources::kNamespaces) {
    Object name = metadata["name"];  // a copy: adding "labels" may move metadata's members
    metadata["labels"]["kubernetes.io/metadata.name"] = std::move(name);
    Object& finalizers = object["spec"]["finalizers"];
    if (!finalizers.is_array()) finalizers = Object::array();
    if (std::find(finalizers.begin(), finalizers.end(), "kubernetes") == finalizers.end()) {
      finalizers.push_back("kubernetes");
    }
    object["status"] = {{"phase", "Active"}};
    return;
  }
  if (!HasStatusSubresource(resource) || resource == resources::kNodes) return;
  if (resource == resources::kPods) {
    object["status"] = {{"phase", "Pending"}};
  } else if (resource == resources::kPersistentVolumes) {
    object["status"] = {{"phase", "Pending"}, {"lastPhaseTransitionTime", FormatTime(now)}};
  } else {
    object.erase("status");
  }
}

bool ChangesGeneration(const Resource& resource, const Object& before, const Object& after) {
  return TracksGeneration(resource) &&
         Specification(resource, before) != Specification(resource, after);
}

std::optional<std::string> NameError(const Resource& resource, std::string_view name) {
  return resource == resources::kNamespaces ? DnsLabelError(name) : DnsSubdomainError(name);
}

}  // namespace karpenter::kube::memory
