#include "controllers/owner_references.h"

#include <fmt/format.h>

#include <string>
#include <utility>

namespace karpenter::controllers {

kube::Object BlockingOwnerReference(std::string_view kind, std::string_view name,
                                    std::string_view uid) {
  return {{"apiVersion", "karpenter.sh/v1"},
          {"kind", kind},
          {"name", name},
          {"uid", uid},
          {"blockOwnerDeletion", true}};
}

Error ExplainOwnerReferenceDenial(Error error, std::string_view owner_plural) {
  if (error.status != 403 || error.message.find("blockOwnerDeletion") == std::string::npos) {
    return error;
  }
  error.message += fmt::format(
      " (the controller's ServiceAccount lacks the verb update on the resource {}/finalizers in "
      "API group karpenter.sh, which charts/karpenter grants)",
      owner_plural);
  return error;
}

}  // namespace karpenter::controllers
