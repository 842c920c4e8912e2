#pragma once
// metav1.Condition as Karpenter's status blocks carry it.

#include <cstdint>
#include <string>

namespace karpenter::api {

struct Condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  int64_t observed_generation = 0;
};

}  // namespace karpenter::api
