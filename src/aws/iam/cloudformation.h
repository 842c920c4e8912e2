#pragma once
// The AWS side of an install as one CloudFormation template, like upstream's getting-started
// template (docs/upstream-reference.md §14): the node role, the controller policy, the
// interruption queue with its EventBridge rules, and optionally the controller's role.

#include <nlohmann/json.hpp>
#include <string>

#include "aws/iam/controller_policy.h"
#include "common/result.h"

namespace karpenter::aws::iam {

// Who may assume the controller role, if the template makes one.
enum class ControllerTrust { kNone, kIrsa, kPodIdentity };

struct StackInputs {
  PolicyInputs policy;  // its interruption_queue defaults to the cluster's name
  ControllerTrust trust = ControllerTrust::kNone;
  std::string oidc_provider;  // IRSA: the cluster's issuer URL (https://oidc.eks.…/id/…)
  std::string namespace_ = "kube-system";
  std::string service_account = "karpenter";
};

// The template, or an error naming the flag that is wrong (--oidc-provider, …).
Result<nlohmann::ordered_json> CloudFormationTemplate(StackInputs inputs);

}  // namespace karpenter::aws::iam
