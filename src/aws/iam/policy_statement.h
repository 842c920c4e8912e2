#pragma once
// One Allow statement of an IAM policy document, as `karpenter iam` prints them: Sid, Effect,
// Action, Resource (a string when there is one), and Condition when given.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace karpenter::aws::iam {

nlohmann::ordered_json AllowStatement(std::string_view sid, const std::vector<std::string>& actions,
                                      const std::vector<std::string>& resources,
                                      nlohmann::ordered_json condition = nullptr);

}  // namespace karpenter::aws::iam
