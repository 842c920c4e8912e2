#pragma once
// The metadata every Kubernetes object carries, reduced to what Karpenter reads.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace karpenter::api {

using Labels = std::map<std::string, std::string, std::less<>>;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::string creation_timestamp;  // RFC 3339, empty when unset
  std::string deletion_timestamp;  // RFC 3339, empty when not being deleted
  Labels labels;
  Labels annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
};

// The value of `key` in `labels`, empty when absent.
std::string_view LabelValue(const Labels& labels, std::string_view key);

// Whether the object asks not to be disrupted (annotation karpenter.sh/do-not-disrupt: "true").
bool DoNotDisrupt(const ObjectMeta& meta);

// "namespace/name", or "name" for cluster-scoped objects.
std::string NamespacedName(const ObjectMeta& meta);

}  // namespace karpenter::api
