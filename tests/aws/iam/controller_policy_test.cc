#include "aws/iam/controller_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "support/matchers.h"

namespace karpenter::aws::iam {
namespace {

using Json = nlohmann::ordered_json;
using testing::HasSubstr;

PolicyInputs Inputs() {
  PolicyInputs inputs;
  inputs.region = "us-west-2";
  inputs.account = "111122223333";
  inputs.cluster_name = "my-cluster";
  inputs.interruption_queue = "my-cluster";
  return inputs;
}

const Json* Find(const Json& policy, std::string_view sid) {
  for (const Json& statement : policy["Statement"]) {
    if (statement["Sid"] == sid) return &statement;
  }
  return nullptr;
}

std::set<std::string> Actions(const Json& policy) {
  std::set<std::string> actions;
  for (const Json& statement : policy["Statement"]) {
    for (const Json& action : statement["Action"]) actions.insert(action.get<std::string>());
  }
  return actions;
}

// Every AWS operation src/aws/api names, as the IAM action it needs: what the controller can call.
std::set<std::string> OperationsInTheCode() {
  const std::map<std::string, std::string> services = {
      {"Ec2Request", "ec2"}, {"IamRequest", "iam"}, {"kSsmJson", "ssm"}, {"kSqsJson", "sqs"}};
  const std::regex call(
      R"re((Ec2Request|IamRequest)\("([A-Za-z]+)"\)|(kSsmJson|kSqsJson), "([A-Za-z]+)")re");
  std::set<std::string> out;
  for (const auto& file :
       std::filesystem::directory_iterator(std::string(KARPENTER_SOURCE_DIR) + "/src/aws/api")) {
    std::ifstream in(file.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), call);
         it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      const std::string service = services.at(m[1].matched ? m[1].str() : m[3].str());
      out.insert(service + ":" + (m[2].matched ? m[2].str() : m[4].str()));
    }
  }
  return out;
}

TEST(ControllerPolicyTest, GrantsEveryOperationTheControllerCalls) {
  const std::set<std::string> granted = Actions(ControllerPolicy(Inputs()));
  // Typed calls only the tests make (reading an instance's user data, sending an interruption
  // message); the controller never does.
  const std::set<std::string> test_only = {"ec2:DescribeInstanceAttribute", "sqs:SendMessage"};
  // Typed calls only `karpenter migrate` makes (its own policy grants them: migrate_policy_test).
  const std::set<std::string> migrate_only = {
      "iam:GetRole",          "ec2:DeleteTags",       "iam:CreateRole",
      "iam:AttachRolePolicy", "iam:PutRolePolicy",    "iam:ListAttachedRolePolicies",
      "iam:ListRolePolicies", "iam:DetachRolePolicy", "iam:DeleteRolePolicy",
      "iam:DeleteRole"};
  const std::set<std::string> operations = OperationsInTheCode();
  ASSERT_GT(operations.size(), 20U) << "the scan of src/aws/api found too little";
  for (const std::string& operation : operations) {
    if (test_only.contains(operation)) continue;
    if (migrate_only.contains(operation)) {
      EXPECT_FALSE(granted.contains(operation))
          << operation << " is migrate's, not the controller's";
      continue;
    }
    EXPECT_TRUE(granted.contains(operation)) << operation << " is called and not granted";
  }
  // The calls made outside the typed Query/JSON helpers.
  EXPECT_TRUE(granted.contains("eks:DescribeCluster"));
  EXPECT_TRUE(granted.contains("pricing:GetProducts"));
  EXPECT_TRUE(granted.contains("iam:PassRole"));  // CreateFleet with the instance profile
  // And nothing else: no grant without a call.
  for (const std::string& action : granted) {
    EXPECT_TRUE(operations.contains(action) || action == "eks:DescribeCluster" ||
                action == "pricing:GetProducts" || action == "iam:PassRole" ||
                action == "ec2:RunInstances")
        << action << " is granted and never called";
  }
}

TEST(ControllerPolicyTest, ScopesWhatItMayChangeToWhatItLaunched) {
  const Json policy = ControllerPolicy(Inputs());
  const Json* deletion = Find(policy, "AllowScopedDeletion");
  ASSERT_NE(deletion, nullptr);
  EXPECT_EQ(
      (*deletion)["Condition"]["StringEquals"]["aws:ResourceTag/kubernetes.io/cluster/my-cluster"],
      "owned");
  EXPECT_EQ((*deletion)["Condition"]["StringLike"]["aws:ResourceTag/karpenter.sh/nodepool"], "*");
  const Json* tagging = Find(policy, "AllowScopedResourceTagging");
  ASSERT_NE(tagging, nullptr);
  EXPECT_EQ((*tagging)["Resource"], "arn:aws:ec2:us-west-2:*:instance/*");
  EXPECT_EQ((*tagging)["Condition"]["ForAllValues:StringEquals"]["aws:TagKeys"],
            Json({"karpenter.sh/nodeclaim", "Name"}));
  const Json* launch = Find(policy, "AllowScopedEC2InstanceActionsWithTags");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->at("Condition")["StringEquals"]["aws:RequestTag/eks:eks-cluster-name"],
            "my-cluster");
  const Json* pass = Find(policy, "AllowPassingInstanceRole");
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ((*pass)["Resource"], "arn:aws:iam::111122223333:role/KarpenterNodeRole-my-cluster");
  EXPECT_EQ((*pass)["Condition"]["StringEquals"]["iam:PassedToService"], "ec2.amazonaws.com");
  EXPECT_EQ(Find(policy, "AllowAPIServerEndpointDiscovery")->at("Resource"),
            "arn:aws:eks:us-west-2:111122223333:cluster/my-cluster");
  EXPECT_EQ(Find(policy, "AllowInterruptionQueueActions")->at("Resource"),
            "arn:aws:sqs:us-west-2:111122223333:my-cluster");
  EXPECT_EQ(Find(policy, "AllowSSMReadActions")->at("Action"), Json({"ssm:GetParameter"}));
}

// The cluster's name appears in most conditions; with names up to 55 characters (queue and role
// as long) the policy fits a managed policy. `karpenter iam policy` refuses a longer one.
TEST(ControllerPolicyTest, FitsIamsLimitForManagedPolicies) {
  PolicyInputs inputs = Inputs();
  inputs.cluster_name = std::string(55, 'c');
  inputs.interruption_queue = std::string(55, 'q');
  inputs.node_role = std::string(55, 'r');
  const std::string compact = ControllerPolicy(inputs).dump();
  EXPECT_LE(compact.size(), kManagedPolicyMaxCharacters) << compact.size();
}

TEST(ControllerPolicyTest, PartitionsGetTheirArnsAndEc2Principal) {
  PolicyInputs china = Inputs();
  china.partition = "aws-cn";
  china.region = "cn-north-1";
  ASSERT_THAT(Validate(china), IsOk());
  const Json policy = ControllerPolicy(china);
  const std::string text = policy.dump();
  EXPECT_THAT(text, HasSubstr("arn:aws-cn:ec2:cn-north-1"));
  // Launches pass the node role to ec2.amazonaws.com.cn there; adding it to a profile, to
  // ec2.amazonaws.com.
  const Json* pass = Find(policy, "AllowPassingInstanceRole");
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ((*pass)["Condition"]["StringEquals"]["iam:PassedToService"],
            Json({"ec2.amazonaws.com", "ec2.amazonaws.com.cn"}));
  EXPECT_THAT(text, testing::Not(HasSubstr("arn:aws:")));
  PolicyInputs gov = Inputs();
  gov.partition = "aws-us-gov";
  gov.region = "us-gov-west-1";
  ASSERT_THAT(Validate(gov), IsOk());
  EXPECT_THAT(ControllerPolicy(gov).dump(), HasSubstr("arn:aws-us-gov:iam::111122223333:role/"));
}

TEST(ControllerPolicyTest, WithoutAQueueNoSqsStatement) {
  PolicyInputs inputs = Inputs();
  inputs.interruption_queue.clear();
  EXPECT_EQ(Find(ControllerPolicy(inputs), "AllowInterruptionQueueActions"), nullptr);
}

TEST(ControllerPolicyTest, BadInputsNameTheirFlag) {
  auto error = [](PolicyInputs inputs) {
    Status status = Validate(inputs);
    return status.ok() ? std::string() : status.error().message;
  };
  PolicyInputs inputs = Inputs();
  inputs.partition = "aws-moon";
  EXPECT_THAT(error(inputs), HasSubstr("--partition"));
  inputs = Inputs();
  inputs.account = "1234";
  EXPECT_THAT(error(inputs), HasSubstr("--account"));
  inputs = Inputs();
  inputs.region = "US West";
  EXPECT_THAT(error(inputs), HasSubstr("--region"));
  inputs = Inputs();
  inputs.region = "cn-north-1";  // in partition aws
  EXPECT_THAT(error(inputs), HasSubstr("not in partition aws"));
  inputs = Inputs();
  inputs.cluster_name = "my cluster";
  EXPECT_THAT(error(inputs), HasSubstr("--cluster-name"));
  inputs = Inputs();
  inputs.region.clear();
  EXPECT_THAT(Validate(inputs, /*with_region=*/false), IsOk());
}

TEST(AwsAuthTest, MapsTheNodeRoleToNodesKeepingTheTemplateLiteral) {
  EXPECT_EQ(AwsAuthMapRoles(Inputs()),
            "- groups:\n"
            "  - system:bootstrappers\n"
            "  - system:nodes\n"
            "  rolearn: arn:aws:iam::111122223333:role/KarpenterNodeRole-my-cluster\n"
            "  username: system:node:{{EC2PrivateDNSName}}\n");
}

}  // namespace
}  // namespace karpenter::aws::iam
