#include "aws/provider/interruption_message.h"

#include "common/json.h"

namespace karpenter::aws {
namespace {

using json = Json;

std::string StringAt(const json& object, std::string_view key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::string_view KindName(InterruptionKind kind) {
  switch (kind) {
    case InterruptionKind::kSpotInterruption:
      return "SpotInterrupted";
    case InterruptionKind::kRebalanceRecommendation:
      return "RebalanceRecommendation";
    case InterruptionKind::kScheduledChange:
      return "ScheduledChange";
    case InterruptionKind::kStateChange:
      return "StateChange";
    case InterruptionKind::kCapacityReservationInterruption:
      return "CapacityReservationInterrupted";
    case InterruptionKind::kIgnored:
      return "Ignored";
  }
  return "Ignored";
}

std::string_view MessageType(const InterruptionMessage& message) {
  switch (message.kind) {
    case InterruptionKind::kSpotInterruption:
      return "spot_interrupted";
    case InterruptionKind::kRebalanceRecommendation:
      return "rebalance_recommendation";
    case InterruptionKind::kScheduledChange:
      return "scheduled_change";
    case InterruptionKind::kStateChange:
      if (message.state == "stopping" || message.state == "stopped") return "instance_stopped";
      if (message.state == "shutting-down" || message.state == "terminated") {
        return "instance_terminated";
      }
      return "no_op";
    case InterruptionKind::kCapacityReservationInterruption:
      return "capacity_reservation_interrupted";
    case InterruptionKind::kIgnored:
      return "no_op";
  }
  return "no_op";
}

Result<InterruptionMessage> ParseInterruptionMessage(std::string_view body) {
  const json message = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) return Error("interruption message: not JSON");
  if (!message.is_object()) return Error("interruption message: not a JSON object");
  InterruptionMessage out;
  out.detail_type = StringAt(message, "detail-type");
  if (out.detail_type.empty()) return Error("interruption message: no detail-type");
  out.time = StringAt(message, "time");
  const json detail = message.value("detail", json::object());
  const std::string source = StringAt(message, "source");

  if (out.detail_type == "EC2 Spot Instance Interruption Warning") {
    out.kind = InterruptionKind::kSpotInterruption;
  } else if (out.detail_type == "EC2 Capacity Reservation Instance Interruption Warning") {
    out.kind = InterruptionKind::kCapacityReservationInterruption;
  } else if (out.detail_type == "EC2 Instance Rebalance Recommendation") {
    out.kind = InterruptionKind::kRebalanceRecommendation;
  } else if (out.detail_type == "EC2 Instance State-change Notification") {
    out.kind = InterruptionKind::kStateChange;
    out.state = StringAt(detail, "state");
    if (out.state.empty()) return Error("interruption message: state change without detail.state");
  } else if (out.detail_type == "AWS Health Event" && source == "aws.health") {
    if (StringAt(detail, "service") != "EC2" ||
        StringAt(detail, "eventTypeCategory") != "scheduledChange") {
      return out;  // other health events are not about our instances' lifetime
    }
    out.kind = InterruptionKind::kScheduledChange;
    const json entities = detail.value("affectedEntities", json::array());
    if (entities.is_array()) {
      for (const json& entity : entities) {
        const std::string id = StringAt(entity, "entityValue");
        if (id.starts_with("i-")) out.instance_ids.push_back(id);
      }
    }
    if (out.instance_ids.empty()) {
      return Error("interruption message: health event without affected instances");
    }
    return out;
  } else {
    return out;  // kIgnored
  }
  const std::string id = StringAt(detail, "instance-id");
  if (!id.starts_with("i-")) {
    return Error("interruption message: " + out.detail_type + " without detail.instance-id");
  }
  out.instance_ids.push_back(id);
  return out;
}

bool Actionable(const InterruptionMessage& message) {
  switch (message.kind) {
    case InterruptionKind::kSpotInterruption:
    case InterruptionKind::kScheduledChange:
    case InterruptionKind::kCapacityReservationInterruption:
      return true;
    case InterruptionKind::kStateChange:
      return message.state == "stopping" || message.state == "stopped" ||
             message.state == "shutting-down" || message.state == "terminated";
    case InterruptionKind::kRebalanceRecommendation:
    case InterruptionKind::kIgnored:
      return false;
  }
  return false;
}

}  // namespace karpenter::aws
