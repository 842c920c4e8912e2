#pragma once
// Node taints and pod tolerations with the Kubernetes matching rule.

#include <optional>
#include <string>
#include <vector>

namespace karpenter::api {

enum class TaintEffect { kNoSchedule, kPreferNoSchedule, kNoExecute };

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  bool operator==(const Taint&) const = default;
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
