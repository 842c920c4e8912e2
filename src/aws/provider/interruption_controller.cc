#include "aws/provider/interruption_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "controllers/disruption_count.h"
#include "controllers/interruption.h"
#include "kube/object.h"

namespace karpenter::aws {
namespace {

// The NodeClaims whose instance is `instance_id` (status.providerID "<prefix>/<zone>/<id>").
std::vector<kube::Object> NodeClaimsOf(const controllers::ClusterCache& cluster,
                                       std::string_view prefix, std::string_view instance_id) {
  std::vector<kube::Object> out;
  cluster.node_claims().ForEach([&](const kube::Object& claim) {
    const std::string_view provider_id = kube::StringAt(claim, {"status", "providerID"});
    if (provider_id.starts_with(prefix) && provider_id.ends_with(instance_id) &&
        provider_id.size() > instance_id.size() &&
        provider_id[provider_id.size() - instance_id.size() - 1] == '/') {
      out.push_back(claim);
    }
  });
  return out;
}

// The Event reason upstream gives each kind of message.
std::string_view EventReason(const InterruptionMessage& message) {
  if (message.kind != InterruptionKind::kStateChange) return KindName(message.kind);
  return message.state == "stopping" || message.state == "stopped" ? "InstanceStopping"
                                                                   : "InstanceTerminating";
}

}  // namespace

InterruptionController::InterruptionController(
    SqsApi& sqs, std::string queue_name, kube::Client& client, controllers::ClusterCache& cluster,
    kube::EventRecorder& events, UnavailableOfferings& unavailable, prometheus::Registry& registry,
    controllers::Metrics& metrics, const Clock& clock, Logger logger,
    ReservationCounts* reservations, std::string_view provider_scheme)
    : sqs_(sqs),
      queue_name_(std::move(queue_name)),
      client_(client),
      cluster_(cluster),
      events_(events),
      unavailable_(unavailable),
      reservations_(reservations),
      queue_metrics_(registry),
      metrics_(metrics),
      clock_(clock),
      logger_(std::move(logger)),
      provider_prefix_(std::string(provider_scheme) + "://") {}

Status InterruptionController::Handle(const InterruptionMessage& message) {
  const bool actionable = Actionable(message);
  if (message.kind == InterruptionKind::kRebalanceRecommendation) {
    logger_.Info("rebalance recommendation", {{"instances", message.instance_ids}});
  }
  for (const std::string& instance_id : message.instance_ids) {
    for (const kube::Object& claim : NodeClaimsOf(cluster_, provider_prefix_, instance_id)) {
      if (!actionable) {
        if (message.kind == InterruptionKind::kRebalanceRecommendation) {
          events_.Record(claim, kube::EventType::kNormal, EventReason(message),
                         fmt::format("{} for instance {}: spot capacity there is at risk",
                                     message.detail_type, instance_id));
        }
        continue;
      }
      const std::string name(kube::Name(claim));
      events_.Record(claim, kube::EventType::kWarning, EventReason(message),
                     fmt::format("{} for instance {}: replacing and draining its node",
                                 message.detail_type, instance_id));
      if (message.kind == InterruptionKind::kSpotInterruption) {
        unavailable_.MarkUnavailable(kube::Label(claim, api::kLabelInstanceType),
                                     kube::Label(claim, api::kLabelZone), "spot",
                                     "SpotInterruption");
      }
      if (message.kind == InterruptionKind::kCapacityReservationInterruption &&
          reservations_ != nullptr) {
        const std::string_view reservation = kube::Label(claim, api::kLabelCapacityReservationId);
        if (!reservation.empty()) reservations_->MarkFull(reservation);
      }
      if (!kube::DeletionTimestamp(claim).empty()) continue;
      Status deleted = controllers::DeleteInterruptedNodeClaim(
          client_, claim, fmt::format("{} of instance {}", message.detail_type, instance_id),
          clock_.Now());
      if (!deleted.ok()) {
        return Error(fmt::format("deleting NodeClaim {} of interrupted instance {}: {}", name,
                                 instance_id, deleted.error().message));
      }
      controllers::CountDisrupted(metrics_, cluster_, claim, MessageType(message));
      logger_.Info("deleting interrupted nodeclaim", {{"nodeclaim", name},
                                                      {"instance", instance_id},
                                                      {"reason", KindName(message.kind)},
                                                      {"detailType", message.detail_type}});
    }
  }
  return {};
}

Result<size_t> InterruptionController::ProcessOnce(const ReceiveOptions& options) {
  if (queue_url_.empty()) {
    Result<std::string> url = sqs_.GetQueueUrl(queue_name_);
    if (!url.ok()) return Error("interruption queue " + queue_name_ + ": " + url.error().message);
    queue_url_ = std::move(*url);
  }
  ASSIGN_OR_RETURN(std::vector<SqsMessage> messages, sqs_.ReceiveMessage(queue_url_, options));
  Status first;
  for (const SqsMessage& message : messages) {
    Result<InterruptionMessage> parsed = ParseInterruptionMessage(message.body);
    if (!parsed.ok()) {
      logger_.Warn("deleting malformed interruption message",
                   {{"messageId", message.message_id}, logkey::Err(parsed.error())});
    } else {
      queue_metrics_.Received(MessageType(*parsed));
      if (Status handled = Handle(*parsed); !handled.ok()) {
        if (first.ok()) first = handled;
        continue;  // stays on the queue: received again after its visibility timeout
      }
      if (const std::optional<TimePoint> at = ParseTime(parsed->time)) {
        queue_metrics_.Handled(clock_.Now() - *at);
      }
    }
    Status deleted = sqs_.DeleteMessage(queue_url_, message.receipt_handle);
    if (deleted.ok()) {
      queue_metrics_.Deleted();
    } else if (first.ok()) {
      first = deleted;
    }
  }
  if (!first.ok()) return first.error();
  return messages.size();
}

void InterruptionController::Run(const std::stop_token& stop) {
  // A message about a NodeClaim the informer has not listed yet would be dropped as not ours.
  while (!stop.stop_requested() && !cluster_.node_claims().synced()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::chrono::seconds backoff(1);
  while (!stop.stop_requested()) {
    Result<size_t> processed = ProcessOnce();
    if (processed.ok()) {
      backoff = std::chrono::seconds(1);
      continue;
    }
    logger_.Error("handling interruption messages failed", {logkey::Err(processed.error())});
    for (auto slept = std::chrono::seconds(0); slept < backoff && !stop.stop_requested();
         slept += std::chrono::seconds(1)) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    backoff = std::min(backoff * 2, std::chrono::seconds(60));
  }
}

}  // namespace karpenter::aws
