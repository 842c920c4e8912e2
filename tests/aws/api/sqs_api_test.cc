#include "aws/api/sqs_api.h"

#include <gtest/gtest.h>

#include "moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

class SqsApiTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (!HasFatalFailure()) sqs_.emplace(clients_->sqs());
  }
  std::optional<SqsApi> sqs_;
};

TEST_F(SqsApiTest, FindsTheSeededInterruptionQueue) {
  Result<std::string> url = sqs_->GetQueueUrl(cluster_);
  ASSERT_THAT(url, IsOk());
  EXPECT_EQ(*url, seed_["queue_url"].get<std::string>());
}

TEST_F(SqsApiTest, AMissingQueueIsAnErrorWithTheAwsCode) {
  Result<std::string> url = sqs_->GetQueueUrl(testing::UniqueName("no-such-queue"));
  ASSERT_FALSE(url.ok());
  EXPECT_EQ(url.error().reason, "AWS.SimpleQueueService.NonExistentQueue");
  EXPECT_NE(url.error().message.find("GetQueueUrl"), std::string::npos) << url.error().message;
}

TEST_F(SqsApiTest, SendReceiveDeleteRoundTrip) {
  Result<std::string> url = sqs_->GetQueueUrl(cluster_);
  ASSERT_THAT(url, IsOk());
  const std::string body =
      R"({"source":"aws.ec2","detail-type":"EC2 Spot Instance Interruption Warning","id":")" +
      testing::UniqueName("event") + "\"}";
  Result<std::string> sent = sqs_->SendMessage(*url, body);
  ASSERT_THAT(sent, IsOk());
  EXPECT_FALSE(sent->empty());

  // Other runs may have left messages behind: receive until ours shows up, deleting as we go.
  // A zero visibility timeout makes an undeleted message visible again at once.
  std::optional<SqsMessage> ours;
  for (int round = 0; round < 5 && !ours; ++round) {
    Result<std::vector<SqsMessage>> received = sqs_->ReceiveMessage(
        *url, {.max_messages = 10, .wait_seconds = 1, .visibility_seconds = 0});
    ASSERT_THAT(received, IsOk());
    for (const SqsMessage& message : *received) {
      EXPECT_FALSE(message.receipt_handle.empty());
      Status deleted = sqs_->DeleteMessage(*url, message.receipt_handle);
      ASSERT_THAT(deleted, IsOk());
      if (message.message_id == *sent) ours = message;
    }
  }
  ASSERT_TRUE(ours.has_value()) << "message " << *sent << " never arrived";
  EXPECT_EQ(ours->body, body);

  // Deleted: ours does not come back although it would be visible again by now.
  Result<std::vector<SqsMessage>> again =
      sqs_->ReceiveMessage(*url, {.max_messages = 10, .wait_seconds = 0, .visibility_seconds = 0});
  ASSERT_THAT(again, IsOk());
  for (const SqsMessage& message : *again) EXPECT_NE(message.message_id, *sent);
}

}  // namespace
}  // namespace karpenter::aws
