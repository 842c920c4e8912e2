#include "aws/iam/cloudformation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/matchers.h"

namespace karpenter::aws::iam {
namespace {

using Json = nlohmann::ordered_json;
using testing::HasSubstr;

// A stack for cluster my-cluster in us-west-2, every flag at its default.
StackInputs Inputs() {
  return StackInputs{.policy = {.partition = "aws",
                                .region = "us-west-2",
                                .account = "111122223333",
                                .cluster_name = "my-cluster",
                                .interruption_queue = "",
                                .node_role = ""},
                     .trust = ControllerTrust::kNone,
                     .oidc_provider = "",
                     .namespace_ = "kube-system",
                     .service_account = "karpenter"};
}

TEST(CloudFormationTest, MakesTheNodeRoleQueueRulesAndPolicy) {
  Result<Json> stack = CloudFormationTemplate(Inputs());
  ASSERT_THAT(stack, IsOk());
  const Json& resources = (*stack)["Resources"];
  const Json& node_role = resources["KarpenterNodeRole"]["Properties"];
  EXPECT_EQ(node_role["RoleName"], "KarpenterNodeRole-my-cluster");
  EXPECT_EQ(node_role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]["Service"],
            "ec2.amazonaws.com");
  EXPECT_EQ(node_role["ManagedPolicyArns"].size(), 4U);
  const Json& queue = resources["KarpenterInterruptionQueue"]["Properties"];
  EXPECT_EQ(queue["QueueName"], "my-cluster");  // the cluster's name by default
  EXPECT_EQ(queue["MessageRetentionPeriod"], 300);
  EXPECT_EQ(queue["SqsManagedSseEnabled"], true);
  for (const char* rule : {"ScheduledChangeRule", "SpotInterruptionRule", "RebalanceRule",
                           "InstanceStateChangeRule", "CapacityReservationInterruptionRule"}) {
    EXPECT_EQ(resources[rule]["Type"], "AWS::Events::Rule") << rule;
  }
  // The policy in the stack reads the queue the stack makes.
  EXPECT_THAT(resources["KarpenterControllerPolicy"].dump(),
              HasSubstr("arn:aws:sqs:us-west-2:111122223333:my-cluster"));
  EXPECT_FALSE(resources.contains("KarpenterControllerRole"));
}

TEST(CloudFormationTest, IrsaTrustsTheServiceAccountOfTheClustersIssuer) {
  StackInputs inputs = Inputs();
  inputs.trust = ControllerTrust::kIrsa;
  inputs.oidc_provider = "https://oidc.eks.us-west-2.amazonaws.com/id/ABC123/";
  Result<Json> stack = CloudFormationTemplate(inputs);
  ASSERT_THAT(stack, IsOk());
  const Json& trust = (*stack)["Resources"]["KarpenterControllerRole"]["Properties"]
                              ["AssumeRolePolicyDocument"]["Statement"][0];
  EXPECT_EQ(trust["Principal"]["Federated"],
            "arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC123");
  EXPECT_EQ(trust["Action"], "sts:AssumeRoleWithWebIdentity");
  EXPECT_EQ(trust["Condition"]["StringEquals"]["oidc.eks.us-west-2.amazonaws.com/id/ABC123:sub"],
            "system:serviceaccount:kube-system:karpenter");
  EXPECT_EQ(trust["Condition"]["StringEquals"]["oidc.eks.us-west-2.amazonaws.com/id/ABC123:aud"],
            "sts.amazonaws.com");
}

TEST(CloudFormationTest, PodIdentityTrustsTheEksPodsService) {
  StackInputs inputs = Inputs();
  inputs.trust = ControllerTrust::kPodIdentity;
  Result<Json> stack = CloudFormationTemplate(inputs);
  ASSERT_THAT(stack, IsOk());
  const Json& trust = (*stack)["Resources"]["KarpenterControllerRole"]["Properties"]
                              ["AssumeRolePolicyDocument"]["Statement"][0];
  EXPECT_EQ(trust["Principal"]["Service"], "pods.eks.amazonaws.com");
  EXPECT_EQ(trust["Action"], Json({"sts:AssumeRole", "sts:TagSession"}));
}

TEST(CloudFormationTest, BadInputsNameTheirFlag) {
  StackInputs inputs = Inputs();
  inputs.trust = ControllerTrust::kIrsa;
  Result<Json> no_issuer = CloudFormationTemplate(inputs);
  ASSERT_FALSE(no_issuer.ok());
  EXPECT_THAT(no_issuer.error().message, HasSubstr("--oidc-provider"));
  inputs = Inputs();
  inputs.oidc_provider = "https://oidc.example/id/1";  // without --irsa
  EXPECT_THAT(CloudFormationTemplate(inputs).error().message, HasSubstr("only with --irsa"));
  inputs = Inputs();
  inputs.service_account = "Karpenter!";
  EXPECT_THAT(CloudFormationTemplate(inputs).error().message, HasSubstr("--service-account"));
  inputs = Inputs();
  inputs.policy.account = "x";
  EXPECT_THAT(CloudFormationTemplate(inputs).error().message, HasSubstr("--account"));
}

}  // namespace
}  // namespace karpenter::aws::iam
