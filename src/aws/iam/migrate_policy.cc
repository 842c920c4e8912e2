#include "aws/iam/migrate_policy.h"

#include <fmt/format.h>

#include "aws/iam/policy_statement.h"
#include "aws/iam/roles.h"

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
  const std::string tag = "karpenter.sh/discovery";
  const std::vector<std::string> network = {
      fmt::format("arn:{}:ec2:{}:{}:subnet/*", p, r, a),
      fmt::format("arn:{}:ec2:{}:{}:security-group/*", p, r, a)};
  statements.push_back(AllowStatement(
      "MigrateTagNetwork", {"ec2:CreateTags"}, network,
      nlohmann::ordered_json{{"StringEquals", {{"aws:RequestTag/" + tag, c}}},
                             {"ForAllValues:StringEquals", {{"aws:TagKeys", {tag}}}}}));
  statements.push_back(AllowStatement(
      "MigrateUntagNetwork", {"ec2:DeleteTags"}, network,
      nlohmann::ordered_json{{"StringEquals", {{"aws:ResourceTag/" + tag, c}}},
                             {"ForAllValues:StringEquals", {{"aws:TagKeys", {tag}}}}}));
  const std::string node_role = fmt::format("arn:{}:iam::{}:role/{}", p, a, NodeRoleName(inputs));
  statements.push_back(AllowStatement(
      "MigrateAdmitNodeRole", {"eks:CreateAccessEntry"},
      {fmt::format("arn:{}:eks:{}:{}:cluster/{}", p, r, a, c)},
      nlohmann::ordered_json{
          {"StringEquals",
           {{"eks:principalArn", node_role}, {"eks:accessEntryType", "EC2_LINUX"}}}}));
  // access-entry/<cluster>/role/<account>/<role name>/<id EKS gives it>
  statements.push_back(AllowStatement("MigrateRemoveNodeRole", {"eks:DeleteAccessEntry"},
                                      {fmt::format("arn:{}:eks:{}:{}:access-entry/{}/role/{}/{}/*",
                                                   p, r, a, c, a, NodeRoleName(inputs))}));
  statements.push_back(
      AllowStatement("MigrateResizeNodeGroups", {"eks:UpdateNodegroupConfig"},
                     {fmt::format("arn:{}:eks:{}:{}:nodegroup/{}/*", p, r, a, c)}));
  const std::string controller_role =
      fmt::format("arn:{}:iam::{}:role/KarpenterControllerRole-{}", p, a, c);
  statements.push_back(AllowStatement(
      "MigrateCreateRoles", {"iam:CreateRole", "iam:TagRole"}, {node_role, controller_role},
      nlohmann::ordered_json{
          {"StringEquals",
           {{"aws:RequestTag/app.kubernetes.io/managed-by", "karpenter-migrate"}}}}));
  statements.push_back(AllowStatement(
      "MigrateNodeRolePolicies", {"iam:AttachRolePolicy", "iam:DetachRolePolicy"}, {node_role},
      nlohmann::ordered_json{{"ArnEquals", {{"iam:PolicyARN", NodeRoleManagedPolicies(p)}}}}));
  statements.push_back(AllowStatement("MigrateControllerRolePolicy",
                                      {"iam:PutRolePolicy", "iam:DeleteRolePolicy"},
                                      {controller_role}));
  statements.push_back(
      AllowStatement("MigrateRemoveRoles",
                     {"iam:DeleteRole", "iam:ListAttachedRolePolicies", "iam:ListRolePolicies"},
                     {node_role, controller_role}));
  statements.push_back(AllowStatement("MigrateFindInterruptionQueue", {"sqs:GetQueueUrl"},
                                      {fmt::format("arn:{}:sqs:{}:{}:{}", p, r, a, c)}));
  // ListRuleNamesByTarget takes no resource: it is scoped to the region instead.
  statements.push_back(
      AllowStatement("MigrateListInterruptionRules", {"events:ListRuleNamesByTarget"}, {"*"},
                     nlohmann::ordered_json{{"StringEquals", {{"aws:RequestedRegion", r}}}}));
  statements.push_back(AllowStatement("MigrateReadInterruptionRules", {"events:DescribeRule"},
                                      {fmt::format("arn:{}:events:{}:{}:rule/*", p, r, a)}));
  return {{"Version", "2012-10-17"}, {"Statement", std::move(statements)}};
}

}  // namespace karpenter::aws::iam
