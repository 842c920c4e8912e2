#pragma once
// metav1.Condition as Karpenter's status blocks carry it.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace karpenter::api {

struct Condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  int64_t observed_generation = 0;
};

// The condition of `type`, or nullptr.
inline const Condition* FindCondition(const std::vector<Condition>& conditions,
                                      std::string_view type) {
  const auto it = std::find_if(conditions.begin(), conditions.end(),
                               [&](const Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

inline bool IsConditionTrue(const std::vector<Condition>& conditions, std::string_view type) {
  const Condition* condition = FindCondition(conditions, type);
  return condition != nullptr && condition->status == "True";
}

}  // namespace karpenter::api
