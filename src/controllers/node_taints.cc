#include "controllers/node_taints.h"

#include <algorithm>
#include <string>
#include <utility>

#include "api/encode.h"
#include "api/labels.h"

namespace karpenter::controllers {
namespace {

bool Same(const kube::Object& taint, const kube::Object& encoded) {
  return taint.is_object() && kube::StringAt(taint, {"key"}) == kube::StringAt(encoded, {"key"}) &&
         kube::StringAt(taint, {"effect"}) == kube::StringAt(encoded, {"effect"});
}

kube::Object Taints(const kube::Object& node) {
  const kube::Object* taints = kube::Find(node, {"spec", "taints"});
  return taints != nullptr && taints->is_array() ? *taints : kube::Object::array();
}

Status PatchTaints(kube::Client& client, const kube::Object& node, kube::Object taints) {
  ASSIGN_OR_RETURN(
      kube::Object patched,
      client.Patch(kube::resources::kNodes, "", kube::Name(node), kube::PatchType::kMerge,
                   kube::Object{{"metadata",
                                 {{"resourceVersion", std::string(kube::ResourceVersion(node))}}},
                                {"spec", {{"taints", std::move(taints)}}}},
                   kube::Subresource::kNone));
  return {};
}

}  // namespace

api::Taint DisruptedTaint() {
  return {std::string(api::kTaintDisrupted), "", api::TaintEffect::kNoSchedule};
}

bool HasTaint(const kube::Object& node, const api::Taint& taint) {
  const kube::Object encoded = api::Encode(taint);
  const kube::Object taints = Taints(node);
  return std::any_of(taints.begin(), taints.end(),
                     [&](const kube::Object& t) { return Same(t, encoded); });
}

Status AddTaint(kube::Client& client, const kube::Object& node, const api::Taint& taint) {
  if (HasTaint(node, taint)) return {};
  kube::Object taints = Taints(node);
  taints.push_back(api::Encode(taint));
  return PatchTaints(client, node, std::move(taints));
}

Status RemoveTaint(kube::Client& client, const kube::Object& node, const api::Taint& taint) {
  if (!HasTaint(node, taint)) return {};
  const kube::Object encoded = api::Encode(taint);
  kube::Object kept = kube::Object::array();
  for (const kube::Object& t : Taints(node)) {
    if (!Same(t, encoded)) kept.push_back(t);
  }
  return PatchTaints(client, node, std::move(kept));
}

}  // namespace karpenter::controllers
