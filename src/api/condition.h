#pragma once
// metav1.Condition as Karpenter's status blocks carry it.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace karpenter::api {

// Condition statuses.
inline constexpr std::string_view kConditionTrue = "True";
inline constexpr std::string_view kConditionFalse = "False";
inline constexpr std::string_view kConditionUnknown = "Unknown";

// The conditions Karpenter keeps on its objects (upstream-reference §9, §10) and, where a condition
// is True for one reason only, that reason (the same word).
// NodeClaim: its life, in order, then what makes it a disruption candidate.
inline constexpr std::string_view kConditionLaunched = "Launched";
inline constexpr std::string_view kConditionRegistered = "Registered";
inline constexpr std::string_view kConditionInitialized = "Initialized";
inline constexpr std::string_view kConditionReady = "Ready";  // also Nodes, NodePools, classes
inline constexpr std::string_view kConditionConsolidatable = "Consolidatable";
inline constexpr std::string_view kConditionDrifted = "Drifted";
// Why Karpenter is taking a NodeClaim's Node away (Underutilized, Empty, Drifted, Interrupted),
// set before it taints the Node.
inline constexpr std::string_view kConditionDisruptionReason = "DisruptionReason";
// Its termination: the drain finished (False "Draining" while it runs), then the Node's
// VolumeAttachments are gone (False "AwaitingVolumeDetachment" until then).
inline constexpr std::string_view kConditionDrained = "Drained";
inline constexpr std::string_view kConditionVolumesDetached = "VolumesDetached";
// NodePool.
inline constexpr std::string_view kConditionValidationSucceeded = "ValidationSucceeded";
inline constexpr std::string_view kConditionNodeClassReady = "NodeClassReady";
// Whether NodeClaims of the NodePool with its current template and node class join the cluster:
// Unknown until one registers (True) or one fails to launch or register (False).
inline constexpr std::string_view kConditionNodeRegistrationHealthy = "NodeRegistrationHealthy";
// On a NodePool whose consolidationPolicy is Balanced while the BalancedConsolidation gate is off.
inline constexpr std::string_view kConditionConsolidationPolicyUnsupported =
    "ConsolidationPolicyUnsupported";
// EC2NodeClass.
inline constexpr std::string_view kConditionSubnetsReady = "SubnetsReady";
inline constexpr std::string_view kConditionSecurityGroupsReady = "SecurityGroupsReady";
inline constexpr std::string_view kConditionAmisReady = "AMIsReady";
inline constexpr std::string_view kConditionInstanceProfileReady = "InstanceProfileReady";
inline constexpr std::string_view kConditionCapacityReservationsReady = "CapacityReservationsReady";

// Reasons of a NodeClaim's Drifted condition.
inline constexpr std::string_view kDriftNodePool = "NodePoolDrifted";
inline constexpr std::string_view kDriftRequirements = "RequirementsDrifted";
inline constexpr std::string_view kDriftInstanceTypeNotFound = "InstanceTypeNotFound";
// The EC2NodeClass's static fields (its hash) changed.
inline constexpr std::string_view kDriftNodeClass = "NodeClassDrift";
// The instance no longer runs what its EC2NodeClass resolves to now (upstream's AWS reasons).
inline constexpr std::string_view kDriftAmi = "AMIDrift";
inline constexpr std::string_view kDriftSubnet = "SubnetDrift";
inline constexpr std::string_view kDriftSecurityGroup = "SecurityGroupDrift";
inline constexpr std::string_view kDriftCapacityReservation = "CapacityReservationDrift";
// The DisruptionReason of a NodeClaim whose instance the cloud is taking away.
inline constexpr std::string_view kDisruptionReasonInterrupted = "Interrupted";
// The DisruptionReason of a NodeClaim repaired: its Node stayed unhealthy (node repair).
inline constexpr std::string_view kDisruptionReasonUnhealthy = "Unhealthy";

struct Condition {
  std::string type;
  std::string status;  // kConditionTrue, kConditionFalse, "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  int64_t observed_generation = 0;
};

// The condition of `type`, or nullptr.
inline const Condition* FindCondition(const std::vector<Condition>& conditions,
                                      std::string_view type) {
  const auto it = std::find_if(conditions.begin(), conditions.end(),
                               [&](const Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

inline bool IsConditionTrue(const std::vector<Condition>& conditions, std::string_view type) {
  const Condition* condition = FindCondition(conditions, type);
  return condition != nullptr && condition->status == kConditionTrue;
}

}  // namespace karpenter::api
