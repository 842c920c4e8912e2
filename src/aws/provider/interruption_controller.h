#pragma once
// The interruption controller (upstream-reference §7): long-polls the SQS queue EventBridge feeds
// and, for each message about an instance of a NodeClaim, acts before EC2 does: a spot interruption
// warning marks that spot offering unavailable and deletes the NodeClaim as interrupted (its node
// is cordoned, its pods' new capacity launched, then it is drained: controllers/interruption.h), as
// do scheduled maintenance, an instance stopping or terminating, and an interruptible capacity
// reservation taking its instance back (which also counts that reservation as full until it is
// read again); a rebalance recommendation is only logged. Each gets an Event on the NodeClaim
// (SpotInterrupted, RebalanceRecommendation, ScheduledChange, InstanceStopping,
// InstanceTerminating, CapacityReservationInterrupted). Every message is deleted once handled;
// malformed ones are deleted and logged, never retried; the queue's series count what arrived. Runs
// on its own thread with its own SQS client; the kube client, the informers and the unavailable
// offerings are thread-safe.

#include <optional>
#include <stop_token>
#include <string>

#include "aws/api/sqs_api.h"
#include "aws/instancetypes/unavailable_offerings.h"
#include "aws/nodeclass/reservation_counts.h"
#include "aws/provider/interruption_message.h"
#include "aws/provider/interruption_metrics.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/metrics.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::aws {

class InterruptionController {
 public:
  // The references (and `reservations`, when given) must outlive the controller.
  // The queue's series go on `registry`; the NodeClaims it deletes count in `metrics`. A message
  // concerns the NodeClaims whose status.providerID is "<provider_scheme>:///<zone>/<instance id>":
  // "aws" for EC2's, "sim" when the controller runs against the simulated EC2.
  InterruptionController(SqsApi& sqs, std::string queue_name, kube::Client& client,
                         controllers::ClusterCache& cluster, kube::EventRecorder& events,
                         UnavailableOfferings& unavailable, prometheus::Registry& registry,
                         controllers::Metrics& metrics, const Clock& clock, Logger logger,
                         ReservationCounts* reservations = nullptr,
                         std::string_view provider_scheme = "aws");

  // One receive (waiting up to options.wait_seconds): handles the messages it got and deletes
  // those handled. Returns how many it received.
  Result<size_t> ProcessOnce(const ReceiveOptions& options = {});
  // Once the NodeClaim informer has synced, ProcessOnce until `stop`, backing off after failures.
  void Run(const std::stop_token& stop);

 private:
  // Acts on one parsed message; an Error leaves the message on the queue for another try.
  Status Handle(const InterruptionMessage& message);

  SqsApi& sqs_;
  const std::string queue_name_;
  kube::Client& client_;
  controllers::ClusterCache& cluster_;
  kube::EventRecorder& events_;
  UnavailableOfferings& unavailable_;
  ReservationCounts* reservations_;  // null: the ReservedCapacity gate is off
  InterruptionMetrics queue_metrics_;
  controllers::Metrics& metrics_;
  const Clock& clock_;
  Logger logger_;
  std::string queue_url_;              // looked up on first use
  const std::string provider_prefix_;  // "aws://"
};

}  // namespace karpenter::aws
