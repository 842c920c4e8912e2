#include "aws/catalog/spot_price_model.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

const std::vector<std::string> kZones = {"us-east-1a", "us-east-1b", "us-east-1c",
                                         "us-east-1d", "us-east-1e", "us-east-1f"};

std::string WriteTempFile(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(SpotPriceModelTest, DiscountStaysInTheDocumentedRange) {
  for (uint64_t seed : {uint64_t{1}, uint64_t{2}, uint64_t{12345}, ~uint64_t{0}}) {
    const SpotPriceModel model(seed);
    for (const char* type : {"m5.large", "t2.micro", "c7g.xlarge", "x1.32xlarge", "m9g.large",
                             "weird", "u-6tb1.metal", "p6-b200.48xlarge"}) {
      for (const std::string& zone : kZones) {
        const double discount = model.Discount(type, zone);
        EXPECT_GE(discount, kSpotMinDiscount) << type << " " << zone;
        EXPECT_LE(discount, kSpotMaxDiscount) << type << " " << zone;
      }
    }
  }
}

TEST(SpotPriceModelTest, DeterministicPerSeedFamilyAndZone) {
  const SpotPriceModel a(7);
  const SpotPriceModel b(7);
  const SpotPriceModel c(8);
  EXPECT_EQ(a.Discount("m5.large", "us-east-1a"), b.Discount("m5.large", "us-east-1a"));
  // Every size of a family shares the discount in a zone.
  EXPECT_EQ(a.Discount("m5.large", "us-east-1a"), a.Discount("m5.24xlarge", "us-east-1a"));
  int differs_by_seed = 0;
  int differs_by_zone = 0;
  for (const std::string& zone : kZones) {
    differs_by_seed += a.Discount("m5.large", zone) != c.Discount("m5.large", zone);
    differs_by_zone += a.Discount("m5.large", zone) != a.Discount("m5.large", "us-east-1a");
  }
  EXPECT_GE(differs_by_seed, 5);
  EXPECT_GE(differs_by_zone, 4);
}

TEST(SpotPriceModelTest, OlderGenerationsAreDiscountedMoreOnAverage) {
  double old_total = 0;
  double new_total = 0;
  int samples = 0;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const SpotPriceModel model(seed);
    for (const std::string& zone : kZones) {
      old_total += model.Discount("m3.large", zone) + model.Discount("c3.large", zone);
      new_total += model.Discount("m8g.large", zone) + model.Discount("c8g.large", zone);
      ++samples;
    }
  }
  // Expected means: gen 3 ≈ 0.55 + 0.125 × (0.5 + 5/6) ≈ 0.717; gen 8 ≈ 0.6125.
  EXPECT_NEAR(old_total / (2 * samples), 0.717, 0.03);
  EXPECT_NEAR(new_total / (2 * samples), 0.6125, 0.03);
  // The floor: generation 2 or older never goes below 0.55 + 0.125.
  const SpotPriceModel model;
  for (const std::string& zone : kZones) EXPECT_GE(model.Discount("m1.large", zone), 0.675);
}

TEST(SpotPriceModelTest, PriceIsDiscountedOnDemandNeverAboveIt) {
  const SpotPriceModel model;
  for (double on_demand : {0.0042, 0.0104, 0.192, 4.08, 407.68}) {
    for (const std::string& zone : kZones) {
      const double price = model.Price("m5.xlarge", zone, on_demand);
      EXPECT_GT(price, 0);
      EXPECT_LE(price, on_demand * (1 - kSpotMinDiscount) + 1e-5);
      EXPECT_GE(price, on_demand * (1 - kSpotMaxDiscount) - 1e-5);
      EXPECT_NEAR(price, on_demand * (1 - model.Discount("m5.xlarge", zone)), 1e-5);
    }
  }
  EXPECT_EQ(model.Price("m5.xlarge", "us-east-1a", 0), 0);  // unknown stays unknown
}

TEST(SpotPriceModelTest, OverridesFromJson) {
  SpotPriceModel model;
  ASSERT_THAT(model.LoadSpotPricesJson(R"({"m5.large": 0.031,
                                         "c5.large": {"us-east-1a": 0.02, "us-east-1b": 0.025}})",
                                       "inline"),
              IsOk());
  EXPECT_EQ(model.override_count(), 3u);
  EXPECT_DOUBLE_EQ(model.Price("m5.large", "us-east-1d", 0.096), 0.031);
  EXPECT_DOUBLE_EQ(model.Price("c5.large", "us-east-1b", 0.085), 0.025);
  // A zone without an override is modelled.
  EXPECT_NEAR(model.Price("c5.large", "us-east-1c", 0.085),
              0.085 * (1 - model.Discount("c5.large", "us-east-1c")), 1e-5);
  // Per-zone prices win over an all-zones price; later loads win.
  ASSERT_THAT(model.LoadSpotPricesJson(R"({"m5.large": {"us-east-1a": 0.029}})", "more"), IsOk());
  EXPECT_DOUBLE_EQ(model.Price("m5.large", "us-east-1a", 0.096), 0.029);
  EXPECT_DOUBLE_EQ(model.Price("m5.large", "us-east-1b", 0.096), 0.031);
  ASSERT_THAT(model.LoadSpotPricesJson(R"({"m5.large": 0.03})", "again"), IsOk());
  EXPECT_DOUBLE_EQ(model.Price("m5.large", "us-east-1b", 0.096), 0.03);
  EXPECT_EQ(model.Override("m5.large", "us-east-1a"), 0.029);
  EXPECT_EQ(model.Override("r5.large", "us-east-1a"), std::nullopt);
}

TEST(SpotPriceModelTest, LoadsAFileAndNamesItInErrors) {
  SpotPriceModel model;
  const std::string good = WriteTempFile("spot-good.json", R"({"m5.large": {"us-east-1a": 0.03}})");
  ASSERT_THAT(model.LoadSpotPrices(good), IsOk());
  EXPECT_DOUBLE_EQ(model.Price("m5.large", "us-east-1a", 0.096), 0.03);

  const std::string missing = testing::TempDir() + "/no-such-spot-file.json";
  Status s = model.LoadSpotPrices(missing);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(missing), std::string::npos) << s.error().message;

  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c : {
           Case{R"({"m5.large": "cheap"})", "\"m5.large\": expected a number"},
           Case{R"({"m5.large": -1})", "\"m5.large\": price must be a non-negative number"},
           Case{R"({"m5.large": {"us-east-1a": true}})",
                "\"m5.large\".\"us-east-1a\": expected a number"},
           Case{R"({"m5.large": {"us-east-1a": -0.5}})",
                "\"m5.large\".\"us-east-1a\": price must be a non-negative number"},
           Case{R"([1, 2])", "expected one object"},
           Case{R"("text")", "expected an object keyed by instance type"},
           Case{R"({"m5.large": 0.03,)", "spot-bad.json"},
       }) {
    const std::string path = WriteTempFile("spot-bad.json", c.text);
    SpotPriceModel fresh;
    s = fresh.LoadSpotPrices(path);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.error().message.find(path), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find(c.expected), std::string::npos) << s.error().message;
    EXPECT_EQ(fresh.override_count(), 0u) << c.text;
  }
}

}  // namespace
}  // namespace karpenter::aws
