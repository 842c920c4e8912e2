#include "controllers/nodeclass_hash.h"

#include "common/hash.h"

namespace karpenter::controllers {

std::string NodeClassHash(const kube::Object& node_class) {
  kube::Object hashed = kube::Object::object();
  if (const auto spec = node_class.find("spec"); spec != node_class.end() && spec->is_object()) {
    hashed = *spec;
    for (const char* field :
         {"subnetSelectorTerms", "securityGroupSelectorTerms", "amiSelectorTerms"}) {
      hashed.erase(field);
    }
  }
  return std::to_string(Fnv1a64(hashed.dump()));
}

}  // namespace karpenter::controllers
