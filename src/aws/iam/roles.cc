#include "aws/iam/roles.h"

#include <fmt/format.h>

namespace karpenter::aws::iam {

nlohmann::ordered_json NodeRoleTrust(std::string_view partition) {
  return {{"Version", "2012-10-17"},
          {"Statement",
           {{{"Effect", "Allow"},
             {"Principal", {{"Service", "ec2." + UrlSuffix(partition)}}},
             {"Action", "sts:AssumeRole"}}}}};
}

std::vector<std::string> NodeRoleManagedPolicies(std::string_view partition) {
  std::vector<std::string> out;
  for (const char* name : {"AmazonEKS_CNI_Policy", "AmazonEKSWorkerNodePolicy",
                           "AmazonEC2ContainerRegistryPullOnly", "AmazonSSMManagedInstanceCore"}) {
    out.push_back(fmt::format("arn:{}:iam::aws:policy/{}", partition, name));
  }
  return out;
}

nlohmann::ordered_json IrsaTrustStatement(const PolicyInputs& inputs, std::string_view issuer,
                                          std::string_view namespace_,
                                          std::string_view service_account) {
  const std::string provider(issuer);
  return {{"Effect", "Allow"},
          {"Principal",
           {{"Federated", fmt::format("arn:{}:iam::{}:oidc-provider/{}", inputs.partition,
                                      inputs.account, issuer)}}},
          {"Action", "sts:AssumeRoleWithWebIdentity"},
          {"Condition",
           {{"StringEquals",
             {{provider + ":aud", "sts.amazonaws.com"},
              {provider + ":sub",
               fmt::format("system:serviceaccount:{}:{}", namespace_, service_account)}}}}}};
}

}  // namespace karpenter::aws::iam
