// The interruption controller against moto's SQS and the in-memory API server: each kind of
// message leads to its action, every message leaves the queue, malformed ones are counted.

#include "aws/provider/interruption_controller.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "api/labels.h"
#include "aws/api/moto_fixture.h"
#include "kube/memory/memory_client.h"
#include "kube/object.h"
#include "metrics/exposition.h"
#include "support/matchers.h"
#include "support/metrics_text.h"

namespace karpenter::aws {
namespace {

class InterruptionControllerTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    sqs_.emplace(clients_->sqs());
    queue_url_ = seed_["queue_url"].get<std::string>();
    Drain();
    kube_.emplace(clock_);
    cluster_cache_.emplace(*kube_);
    unavailable_.emplace(clock_);
    events_.emplace(*kube_, clock_, "karpenter",
                    kube::EventRecorderOptions{.synchronous = true});  // a virtual clock
    controller_.emplace(*sqs_, cluster_, *kube_, *cluster_cache_, *events_, *unavailable_,
                        registry_, metrics_, clock_, Logger(), &reservations_);
  }

  void Drain() {
    for (;;) {
      ReceiveOptions options;
      options.wait_seconds = 0;
      Result<std::vector<SqsMessage>> messages = sqs_->ReceiveMessage(queue_url_, options);
      ASSERT_THAT(messages, IsOk());
      if (messages->empty()) return;
      for (const SqsMessage& message : *messages) {
        ASSERT_THAT(sqs_->DeleteMessage(queue_url_, message.receipt_handle), IsOk());
      }
    }
  }

  // A launched NodeClaim of instance `id` (an m5.large in us-west-2a).
  void AddNodeClaim(const std::string& name, const std::string& id,
                    const std::string& reservation = "") {
    kube::Object claim = {
        {"apiVersion", "karpenter.sh/v1"},
        {"kind", "NodeClaim"},
        {"metadata",
         {{"name", name},
          {"labels",
           {{std::string(api::kLabelInstanceType), "m5.large"},
            {std::string(api::kLabelZone), "us-west-2a"},
            {std::string(api::kLabelNodePool), "default"}}}}},
        {"spec",
         {{"nodeClassRef",
           {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}},
          {"requirements", kube::Object::array()}}}};
    if (!reservation.empty()) {
      claim["metadata"]["labels"][std::string(api::kLabelCapacityReservationId)] = reservation;
      claim["metadata"]["labels"][std::string(api::kLabelCapacityType)] = "reserved";
    }
    Result<kube::Object> created = kube_->Create(kube::resources::kNodeClaims, claim, {});
    ASSERT_THAT(created, IsOk());
    Result<kube::Object> patched = kube_->Patch(
        kube::resources::kNodeClaims, "", name, kube::PatchType::kMerge,
        {{"status", {{"providerID", "aws:///us-west-2a/" + id}}}}, kube::Subresource::kStatus);
    ASSERT_THAT(patched, IsOk());
  }

  void Send(const std::string& body) {
    Result<std::string> sent = sqs_->SendMessage(queue_url_, body);
    ASSERT_THAT(sent, IsOk());
  }

  std::string Event(const std::string& detail_type, const std::string& detail,
                    const std::string& source = "aws.ec2") {
    // Sent a minute before the test's clock reads.
    return R"({"version":"0","detail-type":")" + detail_type + R"(","source":")" + source +
           R"(","time":")" + FormatTime(clock_.Now() - std::chrono::minutes(1)) + R"(","detail":)" +
           detail + "}";
  }

  bool Exists(const std::string& name) {
    return kube_->Get(kube::resources::kNodeClaims, "", name).ok();
  }

  std::optional<SqsApi> sqs_;
  std::string queue_url_;
  std::optional<kube::memory::MemoryClient> kube_;
  std::optional<controllers::ClusterCache> cluster_cache_;
  std::optional<UnavailableOfferings> unavailable_;
  ReservationCounts reservations_{clock_};
  std::optional<kube::EventRecorder> events_;
  prometheus::Registry registry_;
  controllers::Metrics metrics_{registry_};
  std::optional<InterruptionController> controller_;
};

TEST_F(InterruptionControllerTest, ActsOnEachKindAndEmptiesTheQueue) {
  AddNodeClaim("spot-claim", "i-0000000000000spot");
  AddNodeClaim("rebalanced-claim", "i-00000000rebalance");
  AddNodeClaim("retired-claim", "i-0000000000retired");
  AddNodeClaim("stopped-claim", "i-0000000000stopped");
  AddNodeClaim("running-claim", "i-0000000000running");
  AddNodeClaim("reserved-claim", "i-000000000reserved", "cr-0123456789abcdef0");
  reservations_.Sync("cr-0123456789abcdef0", 3);
  ASSERT_THAT(cluster_cache_->node_claims().Sync(), IsOk());

  Send(Event("EC2 Spot Instance Interruption Warning",
             R"({"instance-id":"i-0000000000000spot","instance-action":"terminate"})"));
  Send(Event("EC2 Instance Rebalance Recommendation", R"({"instance-id":"i-00000000rebalance"})"));
  Send(Event("AWS Health Event",
             R"({"service":"EC2","eventTypeCategory":"scheduledChange",)"
             R"("affectedEntities":[{"entityValue":"i-0000000000retired"}]})",
             "aws.health"));
  Send(Event("EC2 Instance State-change Notification",
             R"({"instance-id":"i-0000000000stopped","state":"stopping"})"));
  Send(Event("EC2 Instance State-change Notification",
             R"({"instance-id":"i-0000000000running","state":"running"})"));
  Send(Event("EC2 Spot Instance Interruption Warning",
             R"({"instance-id":"i-0000000notourinst","instance-action":"terminate"})"));
  Send(Event("EC2 Capacity Reservation Instance Interruption Warning",
             R"({"instance-id":"i-000000000reserved","instance-action":"terminate"})"));
  Send("{ this is not an event");

  ReceiveOptions options;
  options.wait_seconds = 0;
  size_t received = 0;
  for (int round = 0; round < 10 && received < 8; ++round) {
    Result<size_t> processed = controller_->ProcessOnce(options);
    ASSERT_THAT(processed, IsOk());
    received += *processed;
  }
  EXPECT_EQ(received, 8U);

  EXPECT_FALSE(Exists("spot-claim"));
  EXPECT_TRUE(Exists("rebalanced-claim"));
  EXPECT_FALSE(Exists("retired-claim"));
  EXPECT_FALSE(Exists("stopped-claim"));
  EXPECT_TRUE(Exists("running-claim"));
  EXPECT_FALSE(Exists("reserved-claim"));
  // The interruptible reservation counts as full until it is read again.
  EXPECT_EQ(reservations_.Available("cr-0123456789abcdef0"), 0);
  // The interrupted spot offering is avoided for a while; on-demand is not.
  EXPECT_TRUE(unavailable_->IsUnavailable("m5.large", "us-west-2a", "spot"));
  EXPECT_FALSE(unavailable_->IsUnavailable("m5.large", "us-west-2a", "on-demand"));

  // The series count what arrived and what was done, under upstream's names.
  const prometheus::Collectable* sources[] = {&registry_};
  Result<std::vector<support::Sample>> scrape =
      support::ParseExposition(metrics::TextExposition(sources));
  ASSERT_THAT(scrape, IsOk());
  const auto of_type = [&](const char* type) {
    return support::Sum(*scrape, "karpenter_interruption_received_messages_total",
                        {{"message_type", type}});
  };
  EXPECT_EQ(of_type("spot_interrupted"), 2);
  EXPECT_EQ(of_type("rebalance_recommendation"), 1);
  EXPECT_EQ(of_type("scheduled_change"), 1);
  EXPECT_EQ(of_type("instance_stopped"), 1);
  EXPECT_EQ(of_type("capacity_reservation_interrupted"), 1);
  EXPECT_EQ(of_type("no_op"), 1);  // the running instance
  EXPECT_EQ(support::Sum(*scrape, "karpenter_interruption_deleted_messages_total"), 8)
      << "the malformed one too";
  EXPECT_EQ(support::Sum(*scrape, "karpenter_interruption_message_queue_duration_seconds_count"),
            7);
  // Each handled about a minute after its event (the clock is real).
  const double waited =
      support::Sum(*scrape, "karpenter_interruption_message_queue_duration_seconds_sum");
  EXPECT_GE(waited, 7 * 59.0);
  EXPECT_LT(waited, 7 * 120.0);
  for (const char* reason : {"spot_interrupted", "scheduled_change", "instance_stopped",
                             "capacity_reservation_interrupted"}) {
    EXPECT_EQ(support::Sum(*scrape, "karpenter_nodeclaims_disrupted_total", {{"reason", reason}}),
              1)
        << reason;
  }

  // Each NodeClaim of ours got an Event saying what happened to its instance.
  std::map<std::string, std::string> reasons;  // by NodeClaim
  Result<kube::ObjectList> events = kube_->List(kube::resources::kEvents, kube::ListOptions{});
  ASSERT_THAT(events, IsOk());
  for (const kube::SharedObject& shared : events->items) {
    const kube::Object& event = *shared;
    reasons[event["involvedObject"].value("name", "")] = event.value("reason", "");
  }
  EXPECT_EQ(reasons, (std::map<std::string, std::string>{
                         {"spot-claim", "SpotInterrupted"},
                         {"rebalanced-claim", "RebalanceRecommendation"},
                         {"retired-claim", "ScheduledChange"},
                         {"stopped-claim", "InstanceStopping"},
                         {"reserved-claim", "CapacityReservationInterrupted"}}));

  // Nothing is left on the queue.
  Result<std::vector<SqsMessage>> left = sqs_->ReceiveMessage(queue_url_, options);
  ASSERT_THAT(left, IsOk());
  EXPECT_TRUE(left->empty());
}

TEST_F(InterruptionControllerTest, AnUnknownQueueIsAnErrorNamingIt) {
  InterruptionController missing(*sqs_, "no-such-queue", *kube_, *cluster_cache_, *events_,
                                 *unavailable_, registry_, metrics_, clock_, Logger());
  Result<size_t> processed = missing.ProcessOnce();
  ASSERT_FALSE(processed.ok());
  EXPECT_NE(processed.error().message.find("no-such-queue"), std::string::npos)
      << processed.error().message;
}

}  // namespace
}  // namespace karpenter::aws
