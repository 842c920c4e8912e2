// PricingProvider: the embedded seed, modelled spot prices before the first refresh, refreshes
// from the Pricing API stand-in and moto's DescribeSpotPriceHistory, and keeping old prices.

#include "aws/instancetypes/pricing_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <utility>

#include "aws/api/moto_fixture.h"
#include "aws/catalog/aws_catalog.h"
#include "pricing_server.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using std::chrono::hours;
using ::testing::HasSubstr;

class PricingProviderTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    ec2_.emplace(clients_->ec2());
    pricing_clients_.emplace(server_.Clients("us-east-1"));
    pricing_.emplace(pricing_clients_->pricing());
    region_ = seed_["region"].get<std::string>();
    zone_ = seed_["subnets"][0]["zone"].get<std::string>();
  }

  PricingProviderOptions Options(std::string region) {
    PricingProviderOptions options;
    options.region = std::move(region);
    return options;
  }

  testing::PricingServer server_;
  std::optional<AwsClients> pricing_clients_;
  std::optional<Ec2Api> ec2_;
  std::optional<PricingApi> pricing_;
  VirtualClock virtual_clock_{*ParseTime("2026-12-01T00:00:00Z")};
  std::string region_;
  std::string zone_;
};

TEST_F(PricingProviderTest, TheEmbeddedRegionStartsWithTheTableAndModelledSpotPrices) {
  PricingProvider provider(*ec2_, &*pricing_, virtual_clock_, Options("us-east-1"));
  const aws::AwsInstanceTypeFacts* m5 = aws::FindAwsInstanceTypeFacts("m5.large");
  ASSERT_NE(m5, nullptr);
  ASSERT_TRUE(provider.OnDemandPrice("m5.large").has_value());
  EXPECT_DOUBLE_EQ(*provider.OnDemandPrice("m5.large"), m5->on_demand_price);
  EXPECT_GT(provider.on_demand_count(), 500U);
  EXPECT_FALSE(provider.OnDemandPrice("m5.nonesuch").has_value());

  const std::optional<double> spot = provider.SpotPrice("m5.large", "us-east-1a");
  ASSERT_TRUE(spot.has_value());
  EXPECT_DOUBLE_EQ(*spot,
                   aws::SpotPriceModel().Price("m5.large", "us-east-1a", m5->on_demand_price));
  EXPECT_LT(*spot, m5->on_demand_price);
  EXPECT_FALSE(provider.OnDemandUpdated().has_value());
  EXPECT_FALSE(provider.SpotUpdated().has_value());
}

TEST_F(PricingProviderTest, OtherRegionsStartEmptyUnlessTheVpcIsIsolated) {
  PricingProvider provider(*ec2_, &*pricing_, virtual_clock_, Options("eu-west-3"));
  EXPECT_FALSE(provider.OnDemandPrice("m5.large").has_value());
  EXPECT_FALSE(provider.SpotPrice("m5.large", "eu-west-3a").has_value());

  PricingProviderOptions isolated = Options("eu-west-3");
  isolated.isolated_vpc = true;
  PricingProvider approximated(*ec2_, &*pricing_, virtual_clock_, isolated);
  EXPECT_TRUE(approximated.OnDemandPrice("m5.large").has_value());
}

TEST_F(PricingProviderTest, RefreshReadsThePricingApiAndTheSpotHistory) {
  PricingProvider provider(*ec2_, &*pricing_, virtual_clock_, Options(region_));
  const uint64_t before = provider.Generation();
  Status status = provider.Refresh();
  ASSERT_THAT(status, IsOk());
  EXPECT_NE(provider.Generation(), before);
  EXPECT_DOUBLE_EQ(provider.OnDemandPrice("m5.large").value_or(-1), 0.096);
  EXPECT_DOUBLE_EQ(provider.OnDemandPrice("m6g.large").value_or(-1), 0.077);
  EXPECT_FALSE(provider.OnDemandPrice("t3.nano").has_value());
  EXPECT_EQ(provider.on_demand_count(), 3U);
  EXPECT_EQ(server_.requests().size(), 2U);
  EXPECT_EQ(server_.requests()[0]["Filters"][0]["Value"], region_);

  // moto reports a price for every offered type and zone of the region.
  EXPECT_GT(provider.spot_count(), 100U);
  const std::optional<double> spot = provider.SpotPrice("m5.large", zone_);
  ASSERT_TRUE(spot.has_value());
  EXPECT_GT(*spot, 0);
  // After a successful spot refresh EC2's answer is authoritative: no price elsewhere.
  EXPECT_FALSE(provider.SpotPrice("m5.large", "eu-west-3a").has_value());
  EXPECT_FALSE(provider.SpotPrice("m5.nonesuch", zone_).has_value());
  EXPECT_EQ(provider.SpotUpdated(), virtual_clock_.Monotonic());
}

TEST_F(PricingProviderTest, RefreshesOnlyStaleDataAndKeepsOldPricesOnFailure) {
  PricingProvider provider(*ec2_, &*pricing_, virtual_clock_, Options(region_));
  ASSERT_THAT(provider.Refresh(), IsOk());
  ASSERT_EQ(server_.requests().size(), 2U);
  const uint64_t generation = provider.Generation();

  virtual_clock_.Advance(hours(11));
  ASSERT_THAT(provider.Refresh(), IsOk());
  EXPECT_EQ(server_.requests().size(), 2U);  // fresh: not asked again
  EXPECT_EQ(provider.Generation(), generation);

  virtual_clock_.Advance(hours(1));
  server_.set_fail(true);
  Status status = provider.Refresh();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.error().message, HasSubstr("on-demand prices"));
  EXPECT_THAT(status.error().message, HasSubstr("GetProducts"));
  EXPECT_EQ(server_.requests().size(), 3U);
  EXPECT_DOUBLE_EQ(provider.OnDemandPrice("m5.large").value_or(-1), 0.096);  // kept
  EXPECT_TRUE(provider.SpotPrice("m5.large", zone_).has_value());

  // The failed source is retried by the next Refresh, and succeeds once the API is back.
  server_.set_fail(false);
  ASSERT_THAT(provider.Refresh(), IsOk());
  EXPECT_EQ(server_.requests().size(), 5U);
  EXPECT_EQ(provider.OnDemandUpdated(), virtual_clock_.Monotonic());
}

TEST_F(PricingProviderTest, AnIsolatedVpcNeverCallsThePricingApi) {
  PricingProviderOptions options = Options(region_);
  options.isolated_vpc = true;
  PricingProvider provider(*ec2_, &*pricing_, virtual_clock_, options);
  Status status = provider.Refresh(/*force=*/true);
  ASSERT_THAT(status, IsOk());
  EXPECT_TRUE(server_.requests().empty());
  EXPECT_TRUE(provider.SpotPrice("m5.large", zone_).has_value());
}

TEST_F(PricingProviderTest, DescribeSpotPriceHistoryGivesTheLatestPricePerTypeAndZone) {
  Result<std::vector<SpotPrice>> prices =
      ec2_->DescribeSpotPriceHistory(std::chrono::system_clock::now(), {"Linux/UNIX"});
  ASSERT_THAT(prices, IsOk());
  ASSERT_FALSE(prices->empty());
  std::set<std::pair<std::string, std::string>> seen;
  bool m5_in_zone = false;
  for (const SpotPrice& price : *prices) {
    EXPECT_TRUE(seen.emplace(price.instance_type, price.zone).second)
        << price.instance_type << " " << price.zone << " listed twice";
    EXPECT_GT(price.price, 0);
    EXPECT_TRUE(price.zone.starts_with(region_)) << price.zone;
    EXPECT_TRUE(price.timestamp.has_value());
    EXPECT_THAT(price.product_description, HasSubstr("Linux/UNIX"));
    m5_in_zone |= price.instance_type == "m5.large" && price.zone == zone_;
  }
  EXPECT_TRUE(m5_in_zone);
}

}  // namespace
}  // namespace karpenter::aws
