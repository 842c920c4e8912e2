#include "controllers/nodepool_hash.h"

#include <string>

#include "common/hash.h"

namespace karpenter::controllers {

std::string NodePoolHash(const kube::Object& node_pool) {
  kube::Object hashed = kube::Object::object();
  const kube::Object* template_ = nullptr;
  if (const auto spec = node_pool.find("spec"); spec != node_pool.end() && spec->is_object()) {
    if (const auto it = spec->find("template"); it != spec->end() && it->is_object()) {
      template_ = &*it;
    }
  }
  if (template_ != nullptr) {
    hashed = *template_;
    if (auto spec = hashed.find("spec"); spec != hashed.end() && spec->is_object()) {
      // Requirements are checked directly; expireAfter and terminationGracePeriod apply to
      // existing NodeClaims without replacing them.
      for (const char* field : {"requirements", "expireAfter", "terminationGracePeriod"}) {
        spec->erase(field);
      }
    }
  }
  // Json keeps object keys sorted, so dump() is canonical.
  return std::to_string(Fnv1a64(hashed.dump()));
}

}  // namespace karpenter::controllers
