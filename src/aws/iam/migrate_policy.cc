#include "aws/iam/migrate_policy.h"

#include <fmt/format.h>

#include "aws/iam/policy_statement.h"

namespace karpenter::aws::iam {

nlohmann::ordered_json MigratePolicy(const PolicyInputs& inputs) {
  const std::string& p = inputs.partition;
  const std::string& r = inputs.region;
  const std::string& a = inputs.account;
  const std::string& c = inputs.cluster_name;
  nlohmann::ordered_json statements = nlohmann::ordered_json::array();
  statements.push_back(AllowStatement(
      "MigrateReadCluster", {"eks:DescribeCluster", "eks:ListAccessEntries", "eks:ListNodegroups"},
      {fmt::format("arn:{}:eks:{}:{}:cluster/{}", p, r, a, c)}));
  statements.push_back(
      AllowStatement("MigrateReadNodeGroups", {"eks:DescribeNodegroup"},
                     {fmt::format("arn:{}:eks:{}:{}:nodegroup/{}/*", p, r, a, c)}));
  statements.push_back(
      AllowStatement("MigrateReadRoles", {"iam:GetRole"},
                     {fmt::format("arn:{}:iam::{}:role/{}", p, a, NodeRoleName(inputs)),
                      fmt::format("arn:{}:iam::{}:role/KarpenterControllerRole-{}", p, a, c)}));
  statements.push_back(AllowStatement(
      "MigrateReadAmiRelease", {"ssm:GetParameter"},
      {fmt::format("arn:{}:ssm:{}::parameter/aws/service/eks/optimized-ami/*", p, r)}));
  statements.push_back(AllowStatement(
      "MigrateReadNetwork",
      {"ec2:DescribeImages", "ec2:DescribeSecurityGroups", "ec2:DescribeSubnets"}, {"*"},
      nlohmann::ordered_json{{"StringEquals", {{"aws:RequestedRegion", r}}}}));
  return {{"Version", "2012-10-17"}, {"Statement", std::move(statements)}};
}

}  // namespace karpenter::aws::iam
