#include "aws/iam/cloudformation.h"

#include <fmt/format.h>

#include <utility>

#include "aws/iam/roles.h"

namespace karpenter::aws::iam {
namespace {

using Json = nlohmann::ordered_json;

Json Ref(std::string_view name) { return Json{{"Ref", name}}; }
Json Arn(std::string_view name) { return Json{{"Fn::GetAtt", {name, "Arn"}}}; }

// An EventBridge rule sending `detail_type` events of `source` to the interruption queue.
Json Rule(std::string_view source, std::string_view detail_type) {
  return Json{{"Type", "AWS::Events::Rule"},
              {"Properties",
               {{"EventPattern", {{"source", {source}}, {"detail-type", {detail_type}}}},
                {"Targets",
                 {{{"Id", "KarpenterInterruptionQueueTarget"},
                   {"Arn", Arn("KarpenterInterruptionQueue")}}}}}}};
}

}  // namespace

Result<Json> CloudFormationTemplate(StackInputs inputs) {
  PolicyInputs& policy = inputs.policy;
  if (policy.interruption_queue.empty()) policy.interruption_queue = policy.cluster_name;
  RETURN_IF_ERROR(Validate(policy));
  // The issuer as IAM names it: without the scheme.
  std::string issuer = inputs.oidc_provider;
  if (inputs.trust == ControllerTrust::kIrsa) {
    if (!issuer.starts_with("https://") || issuer.size() <= 8 ||
        issuer.find_first_of(" \"") != std::string::npos) {
      return Error(
          fmt::format("--oidc-provider \"{}\": the cluster's OIDC issuer URL, "
                      "https://oidc.eks.<region>.amazonaws.com/id/<ID> (aws eks describe-cluster "
                      "--query cluster.identity.oidc.issuer)",
                      inputs.oidc_provider));
    }
    issuer = issuer.substr(8);
    while (issuer.ends_with("/")) issuer.pop_back();
  } else if (!issuer.empty()) {
    return Error("--oidc-provider: only with --irsa");
  }
  auto name_ok = [](std::string_view name) {
    return !name.empty() && name.size() <= 253 &&
           name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string::npos;
  };
  if (!name_ok(inputs.namespace_)) {
    return Error(
        fmt::format("--namespace \"{}\": not a Kubernetes namespace name", inputs.namespace_));
  }
  if (!name_ok(inputs.service_account)) {
    return Error(
        fmt::format("--service-account \"{}\": not a Kubernetes name", inputs.service_account));
  }

  const std::string& p = policy.partition;
  const std::string& cluster = policy.cluster_name;
  Json resources;
  resources["KarpenterNodeRole"] = {{"Type", "AWS::IAM::Role"},
                                    {"Properties",
                                     {{"RoleName", NodeRoleName(policy)},
                                      {"Path", "/"},
                                      {"AssumeRolePolicyDocument", NodeRoleTrust(p)},
                                      {"ManagedPolicyArns", NodeRoleManagedPolicies(p)}}}};
  resources["KarpenterControllerPolicy"] = {
      {"Type", "AWS::IAM::ManagedPolicy"},
      {"Properties",
       {{"ManagedPolicyName", "KarpenterControllerPolicy-" + cluster},
        {"PolicyDocument", ControllerPolicy(policy)}}}};
  resources["KarpenterInterruptionQueue"] = {{"Type", "AWS::SQS::Queue"},
                                             {"Properties",
                                              {{"QueueName", policy.interruption_queue},
                                               {"MessageRetentionPeriod", 300},
                                               {"SqsManagedSseEnabled", true}}}};
  resources["KarpenterInterruptionQueuePolicy"] = {
      {"Type", "AWS::SQS::QueuePolicy"},
      {"Properties",
       {{"Queues", {Ref("KarpenterInterruptionQueue")}},
        {"PolicyDocument",
         {{"Id", "EC2InterruptionPolicy"},
          {"Statement",
           {{{"Effect", "Allow"},
             {"Principal", {{"Service", {"events.amazonaws.com", "sqs.amazonaws.com"}}}},
             {"Action", "sqs:SendMessage"},
             {"Resource", Arn("KarpenterInterruptionQueue")}}}}}}}}};
  for (const InterruptionEvent& event : kInterruptionEvents) {
    resources[std::string(event.rule)] = Rule(event.source, event.detail_type);
  }

  Json outputs = {{"NodeRoleArn", {{"Value", Arn("KarpenterNodeRole")}}},
                  {"InterruptionQueueName", {{"Value", Ref("KarpenterInterruptionQueue")}}}};
  if (inputs.trust != ControllerTrust::kNone) {
    Json trust;
    if (inputs.trust == ControllerTrust::kIrsa) {
      trust = IrsaTrustStatement(policy, issuer, inputs.namespace_, inputs.service_account);
    } else {
      trust = {{"Effect", "Allow"},
               {"Principal", {{"Service", "pods.eks.amazonaws.com"}}},
               {"Action", {"sts:AssumeRole", "sts:TagSession"}}};
    }
    resources["KarpenterControllerRole"] = {
        {"Type", "AWS::IAM::Role"},
        {"Properties",
         {{"RoleName", "KarpenterControllerRole-" + cluster},
          {"AssumeRolePolicyDocument",
           {{"Version", "2012-10-17"}, {"Statement", Json::array({std::move(trust)})}}},
          {"ManagedPolicyArns", {Ref("KarpenterControllerPolicy")}}}}};
    outputs["ControllerRoleArn"] = {{"Value", Arn("KarpenterControllerRole")}};
  }
  return Json{{"AWSTemplateFormatVersion", "2010-09-09"},
              {"Description",
               fmt::format("Karpenter (karpenter-cpp) for EKS cluster {}: node role, controller "
                           "policy, interruption queue and rules",
                           cluster)},
              {"Resources", std::move(resources)},
              {"Outputs", std::move(outputs)}};
}

}  // namespace karpenter::aws::iam
