#include "api/object_meta.h"

#include <string>

#include "api/labels.h"

namespace karpenter::api {

std::string NamespacedName(const ObjectMeta& meta) {
  if (meta.namespace_.empty()) return meta.name;
  std::string out;
  out.reserve(meta.namespace_.size() + 1 + meta.name.size());
  out.append(meta.namespace_).append("/").append(meta.name);
  return out;
}

std::string_view LabelValue(const Labels& labels, std::string_view key) {
  const auto found = labels.find(key);
  return found == labels.end() ? std::string_view() : std::string_view{found->second};
}

bool DoNotDisrupt(const ObjectMeta& meta) {
  return LabelValue(meta.annotations, kAnnotationDoNotDisrupt) == "true";
}

}  // namespace karpenter::api
