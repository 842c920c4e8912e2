#pragma once
// Node taints and pod tolerations with the Kubernetes matching rule.

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace karpenter::api {

enum class TaintEffect { kNoSchedule, kPreferNoSchedule, kNoExecute };

// The effects by the names the Kubernetes API gives them.
inline constexpr std::pair<std::string_view, TaintEffect> kTaintEffectNames[] = {
    {"NoSchedule", TaintEffect::kNoSchedule},
    {"PreferNoSchedule", TaintEffect::kPreferNoSchedule},
    {"NoExecute", TaintEffect::kNoExecute},
};
std::string_view ToString(TaintEffect effect);
std::optional<TaintEffect> ParseTaintEffect(std::string_view name);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  bool operator==(const Taint&) const = default;
  auto operator<=>(const Taint&) const = default;  // by key, value, effect
};

enum class TolerationOperator { kEqual, kExists };

struct Toleration {
  std::string key;  // empty with kExists tolerates every key
  TolerationOperator op = TolerationOperator::kEqual;
  std::string value;
  std::optional<TaintEffect> effect;  // nullopt tolerates every effect
  std::optional<int64_t> toleration_seconds;

  bool Tolerates(const Taint& taint) const;
};

// True when every NoSchedule/NoExecute taint is tolerated (PreferNoSchedule never blocks).
bool ToleratesAll(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints);

}  // namespace karpenter::api
