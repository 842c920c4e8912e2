// The AWS JSON protocols: request shape per service, error codes from the body or SQS's header,
// and answers parsed through a ServiceClient.

#include "aws/sdk/json_protocol.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aws/sdk/scripted_transport.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::HasSubstr;

TEST(JsonRequestTest, TargetsTheOperationWithTheProtocolVersion) {
  const HttpRequest ssm =
      JsonRequest(kSsmJson, "GetParameter", {{"Name", "/aws/service/eks/optimized-ami"}});
  EXPECT_EQ(ssm.method, "POST");
  EXPECT_EQ(ssm.path, "/");
  EXPECT_EQ(HeaderValue(ssm.headers, "X-Amz-Target"), "AmazonSSM.GetParameter");
  EXPECT_EQ(HeaderValue(ssm.headers, "Content-Type"), "application/x-amz-json-1.1");
  EXPECT_EQ(ssm.body, R"({"Name":"/aws/service/eks/optimized-ami"})");

  const HttpRequest pricing = JsonRequest(kPricingJson, "GetProducts", nullptr);
  EXPECT_EQ(HeaderValue(pricing.headers, "X-Amz-Target"), "AWSPriceListService.GetProducts");
  EXPECT_EQ(HeaderValue(pricing.headers, "Content-Type"), "application/x-amz-json-1.1");
  EXPECT_EQ(pricing.body, "{}");

  const HttpRequest sqs = JsonRequest(kSqsJson, "ReceiveMessage", {{"QueueUrl", "https://q"}});
  EXPECT_EQ(HeaderValue(sqs.headers, "X-Amz-Target"), "AmazonSQS.ReceiveMessage");
  EXPECT_EQ(HeaderValue(sqs.headers, "Content-Type"), "application/x-amz-json-1.0");
}

TEST(JsonErrorTest, TheTypeLosesItsNamespaceAndSuffix) {
  const Error ssm = ParseJsonError(
      {400,
       {{"x-amzn-RequestId", "req-9"}},
       R"({"__type":"com.amazonaws.ssm#ParameterNotFound","message":"Parameter /x not found."})"},
      "ssm", "GetParameter");
  EXPECT_EQ(ssm.status, 400);
  EXPECT_EQ(ssm.reason, "ParameterNotFound");
  EXPECT_EQ(ssm.message,
            "ParameterNotFound: Parameter /x not found. (ssm GetParameter, request req-9)");

  const Error throttled = ParseJsonError(
      {400,
       {},
       R"({"__type":"ThrottlingException:http://internal.amazon.com/coral/","Message":"Rate exceeded"})"},
      "pricing", "GetProducts");
  EXPECT_EQ(throttled.reason, "ThrottlingException");
  EXPECT_THAT(throttled.message,
              HasSubstr("ThrottlingException: Rate exceeded (pricing GetProducts"));
}

TEST(JsonErrorTest, SqsQueryErrorHeaderGivesTheLegacyCode) {
  const Error error = ParseJsonError(
      {400,
       {{"x-amzn-query-error", "AWS.SimpleQueueService.NonExistentQueue;Sender"},
        {"x-amzn-RequestId", "66916324-67ca-54bb-a410-3f567a7a0571"}},
       R"({"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified queue does not exist."})"},
      "sqs", "ReceiveMessage");
  EXPECT_EQ(error.reason, "AWS.SimpleQueueService.NonExistentQueue");
  EXPECT_EQ(error.message,
            "AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist. "
            "(sqs ReceiveMessage, request 66916324-67ca-54bb-a410-3f567a7a0571)");
}

TEST(JsonErrorTest, ABodyWithoutAnErrorKeepsTheStatus) {
  const Error error = ParseJsonError({503, {}, "Service Unavailable"}, "ssm", "GetParameter");
  EXPECT_EQ(error.status, 503);
  EXPECT_EQ(error.reason, "");
  EXPECT_THAT(error.message, HasSubstr("ssm GetParameter: HTTP 503 without an AWS error"));
}

TEST(CallJsonTest, ParsesTheAnswerAndReportsErrors) {
  VirtualClock clock(*ParseTime("2024-05-01T12:00:00Z"));
  testing::FixedCredentials credentials(Credentials{"AKID", "secret", "", std::nullopt});
  testing::ScriptedTransport transport;
  transport.Then(200, R"({"Parameter":{"Name":"/a","Value":"ami-1"}})")
      .Then(200, "")
      .Then(200, "{not json")
      .Then(200, "5")  // found by aws_responses_fuzz: callers read members of the answer
      .Then(400, R"({"__type":"InvalidKeyId","message":"bad"})");
  ServiceClient client("ssm", {"https", "ssm.us-east-1.amazonaws.com", "", "us-east-1", "ssm"},
                       credentials, transport, clock,
                       RetryPolicy(
                           1, [] { return 0.0; }, [](std::chrono::milliseconds) {}),
                       &ParseJsonError);

  Result<Json> parameter = CallJson(client, kSsmJson, "GetParameter", {{"Name", "/a"}});
  ASSERT_THAT(parameter, IsOk());
  EXPECT_EQ((*parameter)["Parameter"]["Value"], "ami-1");
  EXPECT_EQ(HeaderValue(transport.sent()[0].headers, "X-Amz-Target"), "AmazonSSM.GetParameter");
  EXPECT_FALSE(HeaderValue(transport.sent()[0].headers, "Authorization").empty());

  Result<Json> empty = CallJson(client, kSsmJson, "DeleteParameter", {{"Name", "/a"}});
  ASSERT_THAT(empty, IsOk());
  EXPECT_EQ(*empty, Json::object());

  Result<Json> garbled = CallJson(client, kSsmJson, "GetParameter", {{"Name", "/a"}});
  ASSERT_FALSE(garbled.ok());
  EXPECT_EQ(garbled.error().message, "ssm GetParameter: the response is not valid JSON");

  Result<Json> bare = CallJson(client, kSsmJson, "GetParameter", {{"Name", "/a"}});
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().message, "ssm GetParameter: the response is not a JSON object");

  Result<Json> failed = CallJson(client, kSsmJson, "GetParameter", {{"Name", "/a"}});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().reason, "InvalidKeyId");
}

}  // namespace
}  // namespace karpenter::aws
