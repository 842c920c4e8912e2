#include "api/nodeoverlay.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace karpenter::api {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(NodeOverlayPriceTest, PriceIsAnUnsignedDecimal) {
  for (const char* good : {"0", "42", "0.0832", "12.5"}) {
    EXPECT_THAT(OverlayPriceProblem(good), IsEmpty()) << good;
  }
  for (const char* bad : {"", "+42", ".5", "42.", "42%", "1e10", "-.42", "1,5", " 1", "-1"}) {
    EXPECT_THAT(OverlayPriceProblem(bad), HasSubstr("invalid price")) << bad;
  }
}

TEST(NodeOverlayPriceTest, AdjustmentIsSignedAmountOrBoundedPercentage) {
  for (const char* good : {"+43", "-34.43", "+.5", "-.5", "+1%", "+298%", "+100.102%", "-0%",
                           "-99.99%", "-12.5%", "-100%", "+.5%"}) {
    EXPECT_THAT(OverlayPriceAdjustmentProblem(good), IsEmpty()) << good;
  }
  for (const char* bad : {"", "1", "1%", "1.3", "+", "+%", "+5.", "-100.0%", "-101.1%", "-100.5%",
                          "-.5%", "+1.2.3", "--1", "+1e3", "-5.%"}) {
    EXPECT_THAT(OverlayPriceAdjustmentProblem(bad), HasSubstr("invalid priceAdjustment")) << bad;
  }
}

NodeOverlay::Spec WithPrice(std::optional<std::string> price,
                            std::optional<std::string> adjustment) {
  NodeOverlay::Spec spec;
  spec.price = std::move(price);
  spec.price_adjustment = std::move(adjustment);
  return spec;
}

double Overlaid(const NodeOverlay::Spec& spec, double price) {
  const std::optional<PriceChange> change = OverlayPriceChange(spec);
  return change ? change->Apply(price) : price;
}

TEST(NodeOverlayPriceTest, ChangesApplyAsWrittenAndNeverBelowZero) {
  EXPECT_DOUBLE_EQ(Overlaid(WithPrice(std::nullopt, std::nullopt), 0.4), 0.4);
  EXPECT_DOUBLE_EQ(Overlaid(WithPrice("0.25", std::nullopt), 0.4), 0.25);
  EXPECT_DOUBLE_EQ(Overlaid(WithPrice(std::nullopt, "-10%"), 0.4), 0.36);
  EXPECT_DOUBLE_EQ(Overlaid(WithPrice(std::nullopt, "+150%"), 0.4), 1.0);
  EXPECT_DOUBLE_EQ(Overlaid(WithPrice(std::nullopt, "+0.05"), 0.4), 0.45);
  EXPECT_DOUBLE_EQ(Overlaid(WithPrice(std::nullopt, "-100%"), 0.4), 0.0);
  EXPECT_DOUBLE_EQ(Overlaid(WithPrice(std::nullopt, "-1"), 0.4), 0.0);
}

TEST(NodeOverlayCapacityTest, CoreResourcesAreRestricted) {
  for (const char* name : {"cpu", "memory", "pods", "ephemeral-storage"}) {
    EXPECT_TRUE(IsOverlayRestrictedResource(name)) << name;
  }
  for (const char* name : {"hugepages-2Mi", "nvidia.com/gpu", "smarter-devices/fuse"}) {
    EXPECT_FALSE(IsOverlayRestrictedResource(name)) << name;
  }
}

}  // namespace
}  // namespace karpenter::api
