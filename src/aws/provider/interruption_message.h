#pragma once
// The EventBridge messages the interruption queue receives (upstream-reference §7), parsed into
// what the controller acts on: which instances, and what happened to them.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace karpenter::aws {

enum class InterruptionKind {
  kSpotInterruption,         // "EC2 Spot Instance Interruption Warning": 2 minutes left
  kRebalanceRecommendation,  // "EC2 Instance Rebalance Recommendation": elevated risk only
  kScheduledChange,          // "AWS Health Event" of category scheduledChange for EC2
  kStateChange,              // "EC2 Instance State-change Notification"
  // "EC2 Capacity Reservation Instance Interruption Warning": an interruptible capacity
  // reservation is taking its instance back.
  kCapacityReservationInterruption,
  kIgnored,  // well formed, but nothing Karpenter acts on
};

struct InterruptionMessage {
  InterruptionKind kind = InterruptionKind::kIgnored;
  std::string detail_type;                // as EventBridge names it, for logs
  std::vector<std::string> instance_ids;  // "i-0123…"
  std::string state;                      // state changes: "stopping", "terminated", …
  std::string time;                       // when the event happened (RFC 3339); may be empty
};

std::string_view KindName(InterruptionKind kind);
// Upstream's message_type label: spot_interrupted, rebalance_recommendation, scheduled_change,
// instance_stopped, instance_terminated, capacity_reservation_interrupted (other state changes and
// ignored messages: no_op).
std::string_view MessageType(const InterruptionMessage& message);

// Parses one message body. Errors (not JSON, no detail-type, no instance where the kind needs
// one) say what is wrong; the controller deletes such messages and counts them.
Result<InterruptionMessage> ParseInterruptionMessage(std::string_view body);

// Whether the message asks for the instances to be drained and replaced now.
bool Actionable(const InterruptionMessage& message);

}  // namespace karpenter::aws
