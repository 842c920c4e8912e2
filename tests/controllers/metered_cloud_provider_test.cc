// The metered cloud provider: every call timed under its controller and method, each failure
// counted under upstream's error name, and what the cloud answered passed through unchanged.

#include "controllers/metered_cloud_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "metrics/exposition.h"
#include "support/matchers.h"
#include "support/metrics_text.h"

namespace karpenter::controllers {
namespace {

using support::Sum;

// A cloud whose every call fails with the reason it is given.
class FailingCloud : public cloud::CloudProvider {
 public:
  std::string reason;
  Result<cloud::Instance> Create(const api::NodeClaim&) override { return Fail(); }
  Status Delete(std::string_view) override { return Fail(); }
  Result<cloud::Instance> Get(std::string_view) override { return Fail(); }
  Result<std::vector<cloud::Instance>> List() override { return std::vector<cloud::Instance>{}; }
  Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> GetInstanceTypes(
      const api::NodePool&) override {
    return Fail();
  }
  std::string_view Name() const override { return "test"; }

 private:
  Error Fail() const { return Error("it failed", 0, reason); }
};

std::vector<support::Sample> Scrape(const prometheus::Registry& registry) {
  const prometheus::Collectable* sources[] = {&registry};
  Result<std::vector<support::Sample>> samples =
      support::ParseExposition(metrics::TextExposition(sources));
  EXPECT_THAT(samples, IsOk());
  return samples.ok() ? std::move(*samples) : std::vector<support::Sample>{};
}

TEST(MeteredCloudProviderTest, CountsEachFailureUnderUpstreamsErrorName) {
  FailingCloud cloud;
  prometheus::Registry registry;
  Metrics metrics(registry);
  MeteredCloudProvider metered(cloud, metrics, "nodeclaim.lifecycle");
  const api::NodeClaim claim;
  const api::NodeClaim* claims[] = {&claim, &claim};

  cloud.reason = std::string(cloud::kReasonInsufficientCapacity);
  Result<cloud::Instance> created = metered.Create(claim);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().reason, cloud::kReasonInsufficientCapacity) << "passed through";
  EXPECT_THAT(metered.CreateAll(claims), testing::SizeIs(2));
  cloud.reason = std::string(cloud::kReasonNotFound);
  EXPECT_FALSE(metered.Delete("test:///a/1").ok());
  EXPECT_FALSE(metered.Get("test:///a/1").ok());
  cloud.reason = "RequestLimitExceeded";
  EXPECT_FALSE(metered.GetInstanceTypes(api::NodePool{}).ok());
  EXPECT_THAT(metered.List(), IsOk());

  const std::vector<support::Sample> scrape = Scrape(registry);
  const auto errors = [&](const char* method, const char* error) {
    return Sum(scrape, "karpenter_cloudprovider_errors_total",
               {{"controller", "nodeclaim.lifecycle"},
                {"method", method},
                {"provider", "test"},
                {"error", error}});
  };
  EXPECT_EQ(errors("Create", "InsufficientCapacityError"), 3);
  EXPECT_EQ(errors("Delete", "NodeClaimNotFoundError"), 1);
  EXPECT_EQ(errors("Get", "NodeClaimNotFoundError"), 1);
  EXPECT_EQ(errors("GetInstanceTypes", "unknown"), 1);
  EXPECT_EQ(Sum(scrape, "karpenter_cloudprovider_errors_total", {{"method", "List"}}), 0);
  EXPECT_EQ(Sum(scrape, "karpenter_cloudprovider_duration_seconds_count",
                {{"controller", "nodeclaim.lifecycle"}, {"provider", "test"}}),
            7)
      << "3 launches, a delete, a get, the types and the list";
}

}  // namespace
}  // namespace karpenter::controllers
