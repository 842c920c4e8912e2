#include "api/taint.h"

#include <algorithm>

namespace karpenter::api {

std::string_view ToString(TaintEffect effect) {
  for (const auto& [name, value] : kTaintEffectNames) {
    if (value == effect) return name;
  }
  return "NoSchedule";
}

std::optional<TaintEffect> ParseTaintEffect(std::string_view name) {
  for (const auto& [text, value] : kTaintEffectNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

// The Kubernetes rule: the effect must match unless the toleration names none; the key must match
// unless the toleration names none; then Exists tolerates any value and Equal needs the same value.
// (The API server rejects an empty key with Equal; were one to get through, it matches on value.)
bool Toleration::Tolerates(const Taint& taint) const {
  if (effect.has_value() && *effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  return op == TolerationOperator::kExists || value == taint.value;
}

bool ToleratesAll(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints) {
  return std::all_of(taints.begin(), taints.end(), [&](const Taint& taint) {
    if (taint.effect == TaintEffect::kPreferNoSchedule) return true;
    return std::any_of(tolerations.begin(), tolerations.end(),
                       [&](const Toleration& toleration) { return toleration.Tolerates(taint); });
  });
}

}  // namespace karpenter::api
