#include "aws/iam/policy_statement.h"

#include <utility>

namespace karpenter::aws::iam {

nlohmann::ordered_json AllowStatement(std::string_view sid, const std::vector<std::string>& actions,
                                      const std::vector<std::string>& resources,
                                      nlohmann::ordered_json condition) {
  nlohmann::ordered_json statement = {{"Sid", sid}, {"Effect", "Allow"}};
  statement["Action"] = actions;
  if (resources.size() == 1) {
    statement["Resource"] = resources.front();
  } else {
    statement["Resource"] = resources;
  }
  if (!condition.is_null()) statement["Condition"] = std::move(condition);
  return statement;
}

}  // namespace karpenter::aws::iam
