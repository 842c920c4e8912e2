#include "kube/resource.h"

namespace karpenter::kube {

std::string Resource::ApiVersion() const {
  if (group.empty()) return std::string(version);
  std::string out;
  out.reserve(group.size() + 1 + version.size());
  out.append(group).append("/").append(version);
  return out;
}

bool HasStatusSubresource(const Resource& resource) {
  return !(resource == resources::kNamespaces || resource == resources::kEvents ||
           resource == resources::kStorageClasses || resource == resources::kLeases ||
           resource == resources::kPodTemplates);
}

}  // namespace karpenter::kube
