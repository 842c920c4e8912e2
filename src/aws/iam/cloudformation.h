#pragma once
// The AWS side of an install as one CloudFormation template, like upstream's getting-started
// template (docs/upstream-reference.md §14): the node role, the controller policy, the
// interruption queue with its EventBridge rules, and optionally the controller's role.

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "aws/iam/controller_policy.h"
#include "common/result.h"

namespace karpenter::aws::iam {

// The events the interruption queue receives, each through an EventBridge rule of its own (the
// template's), and the rule's logical name there.
struct InterruptionEvent {
  std::string_view rule;
  std::string_view source;
  std::string_view detail_type;
};
inline constexpr std::array<InterruptionEvent, 5> kInterruptionEvents = {{
    {"ScheduledChangeRule", "aws.health", "AWS Health Event"},
    {"SpotInterruptionRule", "aws.ec2", "EC2 Spot Instance Interruption Warning"},
    {"RebalanceRule", "aws.ec2", "EC2 Instance Rebalance Recommendation"},
    {"InstanceStateChangeRule", "aws.ec2", "EC2 Instance State-change Notification"},
    {"CapacityReservationInterruptionRule", "aws.ec2",
     "EC2 Capacity Reservation Instance Interruption Warning"},
}};

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
