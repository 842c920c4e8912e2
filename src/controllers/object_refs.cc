#include "controllers/object_refs.h"

#include <string>

namespace karpenter::controllers {

kube::Object ObjectReference(std::string_view api_version, std::string_view kind,
                             const api::ObjectMeta& meta) {
  kube::Object metadata = {{"name", meta.name}, {"uid", meta.uid}};
  if (!meta.namespace_.empty()) metadata["namespace"] = meta.namespace_;
  return {{"apiVersion", std::string(api_version)},
          {"kind", std::string(kind)},
          {"metadata", std::move(metadata)}};
}

}  // namespace karpenter::controllers
