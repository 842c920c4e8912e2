#include "aws/api/aws_clients.h"

#include <gtest/gtest.h>

#include "moto_fixture.h"

namespace karpenter::aws {
namespace {

using testing::MotoTest;

using AwsClientsTest = MotoTest;

TEST_F(AwsClientsTest, PointsEveryServiceAtTheEndpointOverrideAndSignsForTheRegion) {
  const std::string endpoint = testing::ReadMotoFile("endpoint");
  for (ServiceClient* client : {&clients_->ec2(), &clients_->ssm(), &clients_->sqs()}) {
    SCOPED_TRACE(client->service());
    EXPECT_EQ(client->endpoint().scheme, "http");
    EXPECT_NE(endpoint.find(client->endpoint().host), std::string::npos);
    EXPECT_EQ(client->endpoint().signing_region, "us-west-2");
  }
  EXPECT_EQ(clients_->ec2().endpoint().signing_name, "ec2");
  EXPECT_EQ(clients_->sqs().endpoint().signing_name, "sqs");
  EXPECT_EQ(clients_->region(), "us-west-2");
}

TEST_F(AwsClientsTest, RefusesAnEmptyRegion) {
  Result<AwsClients> clients = AwsClients::Create(environment_, "", transport_, clock_);
  ASSERT_FALSE(clients.ok());
  EXPECT_NE(clients.error().message.find("region"), std::string::npos);
}

TEST_F(AwsClientsTest, RefusesAnInvalidMaxAttempts) {
  const Environment bad({{"AWS_MAX_ATTEMPTS", "zero"}, {"AWS_ENDPOINT_URL", "http://127.0.0.1:1"}});
  Result<AwsClients> clients = AwsClients::Create(bad, "us-west-2", transport_, clock_);
  ASSERT_FALSE(clients.ok());
  EXPECT_NE(clients.error().message.find("AWS_MAX_ATTEMPTS"), std::string::npos)
      << clients.error().message;
}

}  // namespace
}  // namespace karpenter::aws
