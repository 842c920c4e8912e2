#include "aws/iam/controller_policy.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "aws/iam/policy_statement.h"

namespace karpenter::aws::iam {
namespace {

using Json = nlohmann::ordered_json;

// Whether `text` is non-empty and made only of the characters in `allowed`.
bool OnlyOf(std::string_view text, std::string_view allowed) {
  return !text.empty() && text.find_first_not_of(allowed) == std::string_view::npos;
}

constexpr std::string_view kDigits = "0123456789";
constexpr std::string_view kLower = "abcdefghijklmnopqrstuvwxyz";
constexpr std::string_view kUpper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

// Region names: lowercase words and digits joined by dashes, e.g. us-west-2, cn-north-1.
bool LooksLikeRegion(std::string_view region) {
  return OnlyOf(region, fmt::format("{}{}-", kLower, kDigits)) && region.front() != '-' &&
         region.back() != '-';
}

}  // namespace

Status Validate(const PolicyInputs& inputs, bool with_region) {
  if (inputs.partition != "aws" && inputs.partition != "aws-cn" &&
      inputs.partition != "aws-us-gov") {
    return Error(fmt::format("--partition \"{}\": not a partition (aws, aws-cn or aws-us-gov)",
                             inputs.partition));
  }
  if (with_region) {
    if (!LooksLikeRegion(inputs.region)) {
      return Error(
          fmt::format("--region \"{}\": not a region name (e.g. us-west-2)", inputs.region));
    }
    const bool china = inputs.region.rfind("cn-", 0) == 0;
    const bool gov = inputs.region.rfind("us-gov-", 0) == 0;
    if (china != (inputs.partition == "aws-cn") || gov != (inputs.partition == "aws-us-gov")) {
      return Error(fmt::format("--region {}: not in partition {} (--partition)", inputs.region,
                               inputs.partition));
    }
  }
  if (inputs.account.size() != 12 || !OnlyOf(inputs.account, kDigits)) {
    return Error(
        fmt::format("--account \"{}\": an AWS account ID is twelve digits", inputs.account));
  }
  // Cluster, queue and role names end up in ARNs and condition keys: no room for surprises.
  const std::string name_characters = fmt::format("{}{}{}-_.", kLower, kUpper, kDigits);
  auto plain = [&](std::string_view name) { return OnlyOf(name, name_characters); };
  if (!plain(inputs.cluster_name) || inputs.cluster_name.size() > 100) {
    return Error(fmt::format(
        "--cluster-name \"{}\": an EKS cluster name is 1-100 letters, digits, -, _ or .",
        inputs.cluster_name));
  }
  if (!inputs.interruption_queue.empty() &&
      (!plain(inputs.interruption_queue) || inputs.interruption_queue.size() > 80)) {
    return Error(fmt::format(
        "--interruption-queue \"{}\": an SQS queue name is 1-80 letters, digits, - or _",
        inputs.interruption_queue));
  }
  if (!inputs.node_role.empty() && (!plain(inputs.node_role) || inputs.node_role.size() > 64)) {
    return Error(
        fmt::format("--node-role \"{}\": an IAM role name is 1-64 characters", inputs.node_role));
  }
  return {};
}

std::string UrlSuffix(std::string_view partition) {
  return partition == "aws-cn" ? "amazonaws.com.cn" : "amazonaws.com";
}

std::string NodeRoleName(const PolicyInputs& inputs) {
  return inputs.node_role.empty() ? "KarpenterNodeRole-" + inputs.cluster_name : inputs.node_role;
}

Json ControllerPolicy(const PolicyInputs& inputs) {
  const std::string& p = inputs.partition;
  const std::string& r = inputs.region;
  const std::string& c = inputs.cluster_name;
  const std::string ec2 = fmt::format("arn:{}:ec2:{}", p, r);
  const std::string owned_key = "kubernetes.io/cluster/" + c;
  auto request_tags = [&] {
    return Json{{"aws:RequestTag/" + owned_key, "owned"},
                {"aws:RequestTag/eks:eks-cluster-name", c}};
  };
  auto ours = [&] {  // a resource we launched: cluster-owned, of a node pool
    return Json{{"StringEquals", {{"aws:ResourceTag/" + owned_key, "owned"}}},
                {"StringLike", {{"aws:ResourceTag/karpenter.sh/nodepool", "*"}}}};
  };
  // What a launch creates and tags. Not the spot request: EC2 checks it only when it is tagged on
  // creation, and we never tag it.
  const std::vector<std::string> launched = {ec2 + ":*:fleet/*", ec2 + ":*:instance/*",
                                             ec2 + ":*:volume/*", ec2 + ":*:network-interface/*",
                                             ec2 + ":*:launch-template/*"};

  Json statements = Json::array();
  statements.push_back(
      AllowStatement("AllowScopedEC2InstanceAccessActions", {"ec2:RunInstances", "ec2:CreateFleet"},
                     {ec2 + "::image/*", ec2 + "::snapshot/*", ec2 + ":*:security-group/*",
                      ec2 + ":*:subnet/*", ec2 + ":*:capacity-reservation/*"}));
  statements.push_back(AllowStatement("AllowScopedEC2LaunchTemplateAccessActions",
                                      {"ec2:RunInstances", "ec2:CreateFleet"},
                                      {ec2 + ":*:launch-template/*"}, ours()));
  statements.push_back(
      AllowStatement("AllowScopedEC2InstanceActionsWithTags",
                     {"ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"}, launched,
                     Json{{"StringEquals", request_tags()},
                          {"StringLike", {{"aws:RequestTag/karpenter.sh/nodepool", "*"}}}}));
  Json creation = request_tags();
  creation["ec2:CreateAction"] = {"RunInstances", "CreateFleet", "CreateLaunchTemplate"};
  statements.push_back(
      AllowStatement("AllowScopedResourceCreationTagging", {"ec2:CreateTags"}, launched,
                     Json{{"StringEquals", std::move(creation)},
                          {"StringLike", {{"aws:RequestTag/karpenter.sh/nodepool", "*"}}}}));
  Json after_launch = ours();
  after_launch["ForAllValues:StringEquals"] = {{"aws:TagKeys", {"karpenter.sh/nodeclaim", "Name"}}};
  statements.push_back(AllowStatement("AllowScopedResourceTagging", {"ec2:CreateTags"},
                                      {ec2 + ":*:instance/*"}, std::move(after_launch)));
  statements.push_back(
      AllowStatement("AllowScopedDeletion", {"ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"},
                     {ec2 + ":*:instance/*", ec2 + ":*:launch-template/*"}, ours()));
  statements.push_back(AllowStatement(
      "AllowRegionalReadActions",
      {"ec2:DescribeCapacityReservations", "ec2:DescribeImages", "ec2:DescribeInstances",
       "ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes",
       "ec2:DescribeLaunchTemplates", "ec2:DescribeSecurityGroups", "ec2:DescribeSpotPriceHistory",
       "ec2:DescribeSubnets"},
      {"*"}, Json{{"StringEquals", {{"aws:RequestedRegion", r}}}}));
  statements.push_back(
      AllowStatement("AllowSSMReadActions", {"ssm:GetParameter"},
                     {fmt::format("arn:{}:ssm:{}::parameter/aws/service/*", p, r)}));
  statements.push_back(AllowStatement("AllowPricingReadActions", {"pricing:GetProducts"}, {"*"}));
  if (!inputs.interruption_queue.empty()) {
    statements.push_back(AllowStatement(
        "AllowInterruptionQueueActions",
        {"sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"},
        {fmt::format("arn:{}:sqs:{}:{}:{}", p, r, inputs.account, inputs.interruption_queue)}));
  }
  // IAM checks the pass when the role joins an instance profile (to ec2.amazonaws.com) and EC2
  // when an instance launches with it (to ec2.amazonaws.com.cn in China).
  Json passed_to = "ec2.amazonaws.com";
  if (UrlSuffix(p) != "amazonaws.com") passed_to = {"ec2.amazonaws.com", "ec2." + UrlSuffix(p)};
  statements.push_back(AllowStatement(
      "AllowPassingInstanceRole", {"iam:PassRole"},
      {fmt::format("arn:{}:iam::{}:role/{}", p, inputs.account, NodeRoleName(inputs))},
      Json{{"StringEquals", {{"iam:PassedToService", std::move(passed_to)}}}}));
  const std::string profiles = fmt::format("arn:{}:iam::{}:instance-profile/*", p, inputs.account);
  Json profile_request = request_tags();
  profile_request["aws:RequestTag/topology.kubernetes.io/region"] = r;
  statements.push_back(AllowStatement(
      "AllowScopedInstanceProfileCreationActions", {"iam:CreateInstanceProfile"}, {profiles},
      Json{{"StringEquals", profile_request},
           {"StringLike", {{"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass", "*"}}}}));
  Json profile_ours = {{"aws:ResourceTag/" + owned_key, "owned"},
                       {"aws:ResourceTag/topology.kubernetes.io/region", r}};
  Json tagging = profile_ours;
  tagging.update(profile_request);
  statements.push_back(
      AllowStatement("AllowScopedInstanceProfileTagActions", {"iam:TagInstanceProfile"}, {profiles},
                     Json{{"StringEquals", std::move(tagging)},
                          {"StringLike",
                           {{"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass", "*"},
                            {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass", "*"}}}}));
  statements.push_back(AllowStatement(
      "AllowScopedInstanceProfileActions",
      {"iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile",
       "iam:DeleteInstanceProfile"},
      {profiles},
      Json{{"StringEquals", std::move(profile_ours)},
           {"StringLike", {{"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass", "*"}}}}));
  statements.push_back(
      AllowStatement("AllowInstanceProfileReadActions", {"iam:GetInstanceProfile"}, {profiles}));
  statements.push_back(
      AllowStatement("AllowAPIServerEndpointDiscovery", {"eks:DescribeCluster"},
                     {fmt::format("arn:{}:eks:{}:{}:cluster/{}", p, r, inputs.account, c)}));
  return Json{{"Version", "2012-10-17"}, {"Statement", std::move(statements)}};
}

std::string AwsAuthMapRoles(const PolicyInputs& inputs) {
  return fmt::format(
      "- groups:\n"
      "  - system:bootstrappers\n"
      "  - system:nodes\n"
      "  rolearn: arn:{}:iam::{}:role/{}\n"
      "  username: system:node:{{{{EC2PrivateDNSName}}}}\n",
      inputs.partition, inputs.account, NodeRoleName(inputs));
}

}  // namespace karpenter::aws::iam
