#pragma once
// The two roles of the migration guide's step 2, as documents: the node role, which EC2 assumes
// and which carries four AWS managed policies, and the controller role's IRSA trust (the
// cluster's OIDC provider, for the controller's ServiceAccount). `karpenter iam cloudformation`
// puts them in a stack; `karpenter migrate apply` creates them with IAM's API.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "aws/iam/controller_policy.h"

namespace karpenter::aws::iam {

// The node role's trust policy: ec2.<partition's suffix> may assume it.
nlohmann::ordered_json NodeRoleTrust(std::string_view partition);
// The ARNs of the AWS managed policies the node role carries.
std::vector<std::string> NodeRoleManagedPolicies(std::string_view partition);
// The controller role's trust statement for IRSA: tokens of `service_account` in `namespace_`
// issued by `issuer` (the OIDC issuer without https://, as IAM names the provider).
nlohmann::ordered_json IrsaTrustStatement(const PolicyInputs& inputs, std::string_view issuer,
                                          std::string_view namespace_,
                                          std::string_view service_account);

}  // namespace karpenter::aws::iam
