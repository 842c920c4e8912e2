#include "aws/provider/interruption_message.h"

#include <gtest/gtest.h>

#include <string>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

std::string Event(const std::string& detail_type, const std::string& detail,
                  const std::string& source = "aws.ec2") {
  return R"({"version":"0","id":"7e1f","detail-type":")" + detail_type + R"(","source":")" +
         source + R"(","account":"123456789012","time":"2026-12-01T10:00:00Z",)" +
         R"("region":"us-west-2","resources":[],"detail":)" + detail + "}";
}

TEST(InterruptionMessageTest, SpotInterruptionWarning) {
  Result<InterruptionMessage> message =
      ParseInterruptionMessage(Event("EC2 Spot Instance Interruption Warning",
                                     R"({"instance-id":"i-0abc","instance-action":"terminate"})"));
  ASSERT_THAT(message, IsOk());
  EXPECT_EQ(message->kind, InterruptionKind::kSpotInterruption);
  EXPECT_EQ(message->instance_ids, std::vector<std::string>{"i-0abc"});
  EXPECT_TRUE(Actionable(*message));
}

TEST(InterruptionMessageTest, CapacityReservationInterruptionWarning) {
  Result<InterruptionMessage> message =
      ParseInterruptionMessage(Event("EC2 Capacity Reservation Instance Interruption Warning",
                                     R"({"instance-id":"i-0abc","instance-action":"terminate"})"));
  ASSERT_THAT(message, IsOk());
  EXPECT_EQ(message->kind, InterruptionKind::kCapacityReservationInterruption);
  EXPECT_EQ(message->instance_ids, std::vector<std::string>{"i-0abc"});
  EXPECT_EQ(MessageType(*message), "capacity_reservation_interrupted");
  EXPECT_TRUE(Actionable(*message));
  EXPECT_FALSE(ParseInterruptionMessage(
                   Event("EC2 Capacity Reservation Instance Interruption Warning", "{}"))
                   .ok());
}

TEST(InterruptionMessageTest, RebalanceRecommendationIsOnlyNoted) {
  Result<InterruptionMessage> message = ParseInterruptionMessage(
      Event("EC2 Instance Rebalance Recommendation", R"({"instance-id":"i-0abc"})"));
  ASSERT_THAT(message, IsOk());
  EXPECT_EQ(message->kind, InterruptionKind::kRebalanceRecommendation);
  EXPECT_FALSE(Actionable(*message));
}

TEST(InterruptionMessageTest, StateChangesActOnlyWhenTheInstanceIsGoingAway) {
  for (const std::string state : {"stopping", "stopped", "shutting-down", "terminated"}) {
    Result<InterruptionMessage> message =
        ParseInterruptionMessage(Event("EC2 Instance State-change Notification",
                                       R"({"instance-id":"i-0abc","state":")" + state + R"("})"));
    ASSERT_THAT(message, IsOk());
    EXPECT_EQ(message->kind, InterruptionKind::kStateChange);
    EXPECT_EQ(message->state, state);
    EXPECT_TRUE(Actionable(*message)) << state;
  }
  for (const std::string state : {"pending", "running"}) {
    Result<InterruptionMessage> message =
        ParseInterruptionMessage(Event("EC2 Instance State-change Notification",
                                       R"({"instance-id":"i-0abc","state":")" + state + R"("})"));
    ASSERT_THAT(message, IsOk());
    EXPECT_FALSE(Actionable(*message)) << state;
  }
}

TEST(InterruptionMessageTest, ScheduledMaintenanceOfEc2Instances) {
  Result<InterruptionMessage> message = ParseInterruptionMessage(
      Event("AWS Health Event",
            R"({"service":"EC2","eventTypeCategory":"scheduledChange",)"
            R"("eventTypeCode":"AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED",)"
            R"("affectedEntities":[{"entityValue":"i-0abc"},{"entityValue":"i-0def"}]})",
            "aws.health"));
  ASSERT_THAT(message, IsOk());
  EXPECT_EQ(message->kind, InterruptionKind::kScheduledChange);
  EXPECT_EQ(message->instance_ids, (std::vector<std::string>{"i-0abc", "i-0def"}));
  EXPECT_TRUE(Actionable(*message));

  Result<InterruptionMessage> other = ParseInterruptionMessage(
      Event("AWS Health Event", R"({"service":"RDS","eventTypeCategory":"scheduledChange"})",
            "aws.health"));
  ASSERT_THAT(other, IsOk());
  EXPECT_EQ(other->kind, InterruptionKind::kIgnored);
}

TEST(InterruptionMessageTest, OtherEventsAreIgnored) {
  Result<InterruptionMessage> message =
      ParseInterruptionMessage(Event("EC2 AMI State Change", R"({"ImageId":"ami-1"})"));
  ASSERT_THAT(message, IsOk());
  EXPECT_EQ(message->kind, InterruptionKind::kIgnored);
  EXPECT_FALSE(Actionable(*message));
}

TEST(InterruptionMessageTest, MalformedMessagesSayWhatIsWrong) {
  struct Case {
    std::string body;
    std::string error;
  };
  for (const Case& c : {
           Case{"not json at all", "not JSON"},
           Case{"[1,2]", "not a JSON object"},
           Case{R"({"detail":{}})", "no detail-type"},
           Case{Event("EC2 Spot Instance Interruption Warning", "{}"),
                "without detail.instance-id"},
           Case{Event("EC2 Instance State-change Notification", R"({"instance-id":"i-1"})"),
                "without detail.state"},
           Case{Event("AWS Health Event",
                      R"({"service":"EC2","eventTypeCategory":"scheduledChange"})", "aws.health"),
                "without affected instances"},
       }) {
    Result<InterruptionMessage> message = ParseInterruptionMessage(c.body);
    ASSERT_FALSE(message.ok()) << c.body;
    EXPECT_NE(message.error().message.find(c.error), std::string::npos) << message.error().message;
  }
}

}  // namespace
}  // namespace karpenter::aws
