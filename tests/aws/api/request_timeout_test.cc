// Requests EC2 holds for longer than the transport waits (the fault proxy's delay in front of
// moto): the call times out and is retried, and succeeds once an attempt is answered in time;
// when every attempt times out, the error says RequestTimeout and names the endpoint.

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/api/ec2_api.h"
#include "aws/sdk/retry.h"
#include "moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using std::chrono::milliseconds;

class RequestTimeoutTest : public testing::MotoTest {
 protected:
  RequestTimeoutTest() { through_fault_proxy_ = true; }

  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    // Far shorter than the proxy's hold below, so every held attempt times out.
    Result<AwsClients> clients =
        AwsClients::Create(environment_, seed_["region"].get<std::string>(), impatient_, clock_);
    ASSERT_THAT(clients, IsOk());
    impatient_clients_.emplace(std::move(*clients));
  }

  void TearDown() override { testing::SetFaults(Json::object()); }

  // Holds the next `count` requests for 3 s each.
  static void HoldRequests(int count) {
    testing::SetFaults({{"delay", {{"count", count}, {"seconds", 3}}}});
  }

  Result<std::vector<Subnet>> DescribeSubnets() {
    Ec2Api ec2(impatient_clients_->ec2());
    return ec2.DescribeSubnets({});
  }

  CurlTransport impatient_{{.connect_timeout = milliseconds(1000), .timeout = milliseconds(500)}};
  std::optional<AwsClients> impatient_clients_;
};

TEST_F(RequestTimeoutTest, HeldRequestIsRetriedAndTheRetryAnswered) {
  HoldRequests(1);
  Result<std::vector<Subnet>> subnets = DescribeSubnets();
  ASSERT_THAT(subnets, IsOk());
  EXPECT_FALSE(subnets->empty());
  EXPECT_EQ(testing::InjectedFaults("delayed"), 1);
}

TEST_F(RequestTimeoutTest, EveryAttemptHeldFailsWithRequestTimeoutNamingTheEndpoint) {
  HoldRequests(RetryPolicy::kDefaultMaxAttempts);
  Result<std::vector<Subnet>> subnets = DescribeSubnets();
  ASSERT_FALSE(subnets.ok());
  EXPECT_EQ(subnets.error().reason, "RequestTimeout") << subnets.error().message;
  EXPECT_NE(subnets.error().message.find(impatient_clients_->ec2().endpoint().host),
            std::string::npos)
      << subnets.error().message;
  EXPECT_EQ(testing::InjectedFaults("delayed"), RetryPolicy::kDefaultMaxAttempts);
}

}  // namespace
}  // namespace karpenter::aws
