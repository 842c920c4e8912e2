// `karpenter controller --cloud-provider sim` with an interruption queue: the controller's own
// interruption controller reads moto's SQS queue, under the IAM policy `karpenter iam` generates,
// and acts on a spot interruption warning for a simulated instance as on one for an EC2 instance.
// This is what `karpenter-bench fidelity`'s spot-interruption scenario runs at scale.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"
#include "aws/api/aws_clients.h"
#include "aws/api/moto_fixture.h"
#include "aws/api/sqs_api.h"
#include "aws/sdk/curl_transport.h"
#include "integration/end_to_end.h"
#include "kube/object.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;

class SimInterruptionE2E : public ControllerEndToEnd {
 protected:
  SimInterruptionE2E() : ControllerEndToEnd({"e2e-interrupt"}) {}

  void SetUp() override {
    ControllerEndToEnd::SetUp();
    if (HasFatalFailure()) return;
    account_ = aws::testing::Account();
    ASSERT_FALSE(account_.endpoint().empty()) << "no moto endpoint in " << KARPENTER_MOTO_DIR;
    Result<aws::AwsClients> clients = aws::AwsClients::Create(
        account_.TestEnvironment(), account_.Seeded("region"), transport_, clock_);
    ASSERT_THAT(clients, IsOk());
    clients_.emplace(std::move(*clients));
    sqs_.emplace(clients_->sqs());
    const kube::Object policy = aws::testing::ControllerPolicyFor("generated");
    ASSERT_TRUE(policy.is_object());
    aws::testing::SetFaults(kube::Object::object());
    aws::testing::SetControllerPolicy(policy);
  }

  void TearDown() override {
    if (sqs_) aws::testing::SetControllerPolicy(nullptr);
    ControllerEndToEnd::TearDown();
  }

  support::MotoAccount account_;
  aws::CurlTransport transport_;
  RealClock clock_;
  std::optional<aws::AwsClients> clients_;
  std::optional<aws::SqsApi> sqs_;
};

TEST_F(SimInterruptionE2E, ASpotWarningReplacesTheNodeWithAnotherOffering) {
  // The chart's environment with what IRSA would add: the account's key, region and queue.
  const std::vector<std::string> env = account_.ControllerEnvironment(identity_.env);
  StartController(false, {"--catalog", "fake8"}, &env);
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "sim-interruption.yaml"));
  ASSERT_TRUE(
      support::WaitFor([&] { return CountRunning(*client_, "e2e-interrupt") == 3; }, seconds(180)))
      << CountRunning(*client_, "e2e-interrupt") << " of 3 pods Running";
  std::vector<kube::Object> claims = List(*client_, kube::resources::kNodeClaims);
  ASSERT_EQ(claims.size(), 1U);
  const kube::Object interrupted = claims.front();
  const std::string name(kube::Name(interrupted));
  const std::string type(kube::Label(interrupted, api::kLabelInstanceType));
  const std::string node = Part(interrupted, "status").value("nodeName", "");
  const std::string provider_id = Part(interrupted, "status").value("providerID", "");
  ASSERT_TRUE(provider_id.starts_with("sim:///test-zone-1/")) << provider_id;

  Result<std::string> queue = sqs_->GetQueueUrl(account_.Seeded("cluster"));
  ASSERT_THAT(queue, IsOk());
  const kube::Object warning = {{"version", "0"},
                                {"detail-type", "EC2 Spot Instance Interruption Warning"},
                                {"source", "aws.ec2"},
                                {"detail",
                                 {{"instance-id", provider_id.substr(provider_id.rfind('/') + 1)},
                                  {"instance-action", "terminate"}}}};
  ASSERT_THAT(sqs_->SendMessage(*queue, warning.dump()), IsOk());

  // The NodeClaim goes, and its pods run elsewhere.
  ASSERT_TRUE(support::WaitFor(
      [&] {
        Result<kube::Object> gone = client_->Get(kube::resources::kNodeClaims, "", name);
        if (gone.ok() || gone.error().status != 404) return false;
        const std::vector<kube::Object> pods =
            List(*client_, kube::resources::kPods, "e2e-interrupt");
        return CountRunning(*client_, "e2e-interrupt") == 3 &&
               std::none_of(pods.begin(), pods.end(),
                            [&](const kube::Object& pod) { return NodeName(pod) == node; });
      },
      seconds(240)))
      << "the interrupted NodeClaim " << name << " stayed, or its pods did not move";
  EXPECT_THAT(EventMessages(*client_, "default", name, "SpotInterrupted"),
              testing::Not(testing::IsEmpty()));
  // Its offering (the type in test-zone-1, spot) is unavailable for a while: the one zone the
  // NodePool allows needed another type, where the cheapest would otherwise have been the same.
  claims = List(*client_, kube::resources::kNodeClaims);
  ASSERT_FALSE(claims.empty());
  for (const kube::Object& claim : claims) {
    EXPECT_NE(kube::Label(claim, api::kLabelInstanceType), type) << kube::Name(claim);
    EXPECT_EQ(kube::Label(claim, api::kLabelCapacityType), "spot") << kube::Name(claim);
  }
  EXPECT_TRUE(controller_->Running());
}

}  // namespace
}  // namespace karpenter::integration
