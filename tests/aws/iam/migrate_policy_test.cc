// The policy of `karpenter migrate`: exactly the reads plan makes and the writes apply and rollback
// make, scoped to the cluster, its roles and the discovery tag where IAM can scope them. (That it
// suffices is shown under enforcement by MigratePlanIamTest and MigrateApplyIamTest.)

#include "aws/iam/migrate_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace karpenter::aws::iam {
namespace {

using Json = nlohmann::ordered_json;

PolicyInputs Inputs() {
  PolicyInputs inputs;
  inputs.partition = "aws-cn";
  inputs.region = "cn-north-1";
  inputs.account = "111122223333";
  inputs.cluster_name = "prod";
  return inputs;
}

std::map<std::string, Json> BySid(const Json& policy) {
  std::map<std::string, Json> out;
  for (const Json& statement : policy["Statement"]) out[statement["Sid"]] = statement;
  return out;
}

TEST(MigratePolicyTest, GrantsTheCallsOfMigrateAndNothingElse) {
  const Json policy = MigratePolicy(Inputs());
  std::set<std::string> actions;
  for (const Json& statement : policy["Statement"]) {
    EXPECT_EQ(statement["Effect"], "Allow");
    for (const Json& action : statement["Action"]) actions.insert(action.get<std::string>());
  }
  EXPECT_EQ(actions,
            (std::set<std::string>{"eks:DescribeCluster",   "eks:ListAccessEntries",
                                   "eks:ListNodegroups",    "eks:DescribeNodegroup",
                                   "iam:GetRole",           "ssm:GetParameter",
                                   "ec2:DescribeImages",    "ec2:DescribeSecurityGroups",
                                   "ec2:DescribeSubnets",   "ec2:CreateTags",
                                   "ec2:DeleteTags",        "eks:CreateAccessEntry",
                                   "eks:DeleteAccessEntry", "eks:UpdateNodegroupConfig",
                                   "iam:CreateRole",        "iam:TagRole",
                                   "iam:AttachRolePolicy",  "iam:DetachRolePolicy",
                                   "iam:PutRolePolicy",     "iam:DeleteRolePolicy",
                                   "iam:DeleteRole",        "iam:ListAttachedRolePolicies",
                                   "iam:ListRolePolicies",  "sqs:GetQueueUrl",
                                   "events:DescribeRule",   "events:ListRuleNamesByTarget"}));
}

TEST(MigratePolicyTest, WritesOnlyTheDiscoveryTagTheNodeRoleAndTheClustersNodeGroups) {
  const std::map<std::string, Json> statements = BySid(MigratePolicy(Inputs()));
  const Json network = {"arn:aws-cn:ec2:cn-north-1:111122223333:subnet/*",
                        "arn:aws-cn:ec2:cn-north-1:111122223333:security-group/*"};
  const Json& tag = statements.at("MigrateTagNetwork");
  EXPECT_EQ(tag["Resource"], network);
  EXPECT_EQ(tag["Condition"]["StringEquals"]["aws:RequestTag/karpenter.sh/discovery"], "prod");
  EXPECT_EQ(tag["Condition"]["ForAllValues:StringEquals"]["aws:TagKeys"],
            Json({"karpenter.sh/discovery"}));
  // Rollback removes the tag only where it names this cluster.
  const Json& untag = statements.at("MigrateUntagNetwork");
  EXPECT_EQ(untag["Resource"], network);
  EXPECT_EQ(untag["Condition"]["StringEquals"]["aws:ResourceTag/karpenter.sh/discovery"], "prod");
  const Json& admit = statements.at("MigrateAdmitNodeRole");
  EXPECT_EQ(admit["Resource"], "arn:aws-cn:eks:cn-north-1:111122223333:cluster/prod");
  EXPECT_EQ(admit["Condition"]["StringEquals"]["eks:principalArn"],
            "arn:aws-cn:iam::111122223333:role/KarpenterNodeRole-prod");
  EXPECT_EQ(admit["Condition"]["StringEquals"]["eks:accessEntryType"], "EC2_LINUX");
  EXPECT_EQ(statements.at("MigrateRemoveNodeRole")["Resource"],
            "arn:aws-cn:eks:cn-north-1:111122223333:access-entry/prod/role/111122223333/"
            "KarpenterNodeRole-prod/*");
  EXPECT_EQ(statements.at("MigrateResizeNodeGroups")["Resource"],
            "arn:aws-cn:eks:cn-north-1:111122223333:nodegroup/prod/*");
  // The roles: only the two of step 2, created with the migration's tag; the node role gets the
  // four AWS policies of the guide and no other.
  const Json roles = {"arn:aws-cn:iam::111122223333:role/KarpenterNodeRole-prod",
                      "arn:aws-cn:iam::111122223333:role/KarpenterControllerRole-prod"};
  const Json& create = statements.at("MigrateCreateRoles");
  EXPECT_EQ(create["Resource"], roles);
  EXPECT_EQ(create["Condition"]["StringEquals"]["aws:RequestTag/app.kubernetes.io/managed-by"],
            "karpenter-migrate");
  const Json& attach = statements.at("MigrateNodeRolePolicies");
  EXPECT_EQ(attach["Resource"], roles[0]);
  ASSERT_EQ(attach["Condition"]["ArnEquals"]["iam:PolicyARN"].size(), 4);
  for (const Json& policy : attach["Condition"]["ArnEquals"]["iam:PolicyARN"]) {
    EXPECT_TRUE(policy.get<std::string>().starts_with("arn:aws-cn:iam::aws:policy/")) << policy;
  }
  EXPECT_EQ(statements.at("MigrateControllerRolePolicy")["Resource"], roles[1]);
  EXPECT_EQ(statements.at("MigrateRemoveRoles")["Resource"], roles);
}

TEST(MigratePolicyTest, ScopesToTheClusterItsRolesAndThePartition) {
  const std::map<std::string, Json> statements = BySid(MigratePolicy(Inputs()));
  EXPECT_EQ(statements.at("MigrateReadCluster")["Resource"],
            "arn:aws-cn:eks:cn-north-1:111122223333:cluster/prod");
  EXPECT_EQ(statements.at("MigrateReadNodeGroups")["Resource"],
            "arn:aws-cn:eks:cn-north-1:111122223333:nodegroup/prod/*");
  EXPECT_EQ(statements.at("MigrateReadRoles")["Resource"],
            Json({"arn:aws-cn:iam::111122223333:role/KarpenterNodeRole-prod",
                  "arn:aws-cn:iam::111122223333:role/KarpenterControllerRole-prod"}));
  EXPECT_EQ(statements.at("MigrateReadAmiRelease")["Resource"],
            "arn:aws-cn:ssm:cn-north-1::parameter/aws/service/eks/optimized-ami/*");
  EXPECT_EQ(statements.at("MigrateReadNetwork")["Condition"]["StringEquals"]["aws:RequestedRegion"],
            "cn-north-1");
  PolicyInputs named = Inputs();
  named.node_role = "my-nodes";
  EXPECT_EQ(BySid(MigratePolicy(named)).at("MigrateReadRoles")["Resource"][0],
            "arn:aws-cn:iam::111122223333:role/my-nodes");
}

}  // namespace
}  // namespace karpenter::aws::iam
