#include "cloud/fake_catalog.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/labels.h"

namespace karpenter::cloud {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kMi = int64_t{1} << 20;

std::vector<std::string> Values(const InstanceType& type, std::string_view key) {
  const scheduling::Requirement* requirement = type.requirements.Get(key);
  return requirement == nullptr ? std::vector<std::string>{"<undefined>"} : requirement->Values();
}

TEST(FakeCatalogTest, FourHundredTypesAsTheUpstreamBenchmark) {
  const std::vector<InstanceType> catalog = BuildFakeCatalog();
  ASSERT_EQ(catalog.size(), 400u);
  for (int i = 0; i < 400; ++i) {
    const InstanceType& t = catalog[i];
    const int64_t n = i + 1;
    EXPECT_EQ(t.name, "fake-it-" + std::to_string(i));
    EXPECT_EQ(t.capacity.cpu(), Quantity::FromUnits(n));
    EXPECT_EQ(t.capacity.memory(), Quantity::FromUnits(2 * n * kGi));
    EXPECT_EQ(t.capacity.pods(), Quantity::FromUnits(10 * n));
    EXPECT_TRUE(t.capacity.ephemeral_storage().is_zero());
    EXPECT_EQ(t.kube_reserved.cpu(), Quantity::FromMilli(100));
    EXPECT_EQ(t.kube_reserved.memory(), Quantity::FromUnits(10 * kMi));
    EXPECT_TRUE(t.system_reserved.empty());
    EXPECT_TRUE(t.eviction_threshold.empty());
    EXPECT_FALSE(t.exotic);
    ASSERT_EQ(t.offerings.size(), 5u);
    for (const Offering& o : t.offerings) {
      EXPECT_TRUE(o.available);
      EXPECT_DOUBLE_EQ(o.price, 0.1 * static_cast<double>(n) + 0.1 * static_cast<double>(2 * n));
    }
  }
}

TEST(FakeCatalogTest, OfferingsAndLabels) {
  const std::vector<InstanceType> catalog = BuildFakeCatalog(3);
  ASSERT_EQ(catalog.size(), 3u);
  const InstanceType& t = catalog[2];
  const std::vector<std::pair<std::string, std::string>> expected = {{"test-zone-1", "spot"},
                                                                     {"test-zone-2", "spot"},
                                                                     {"test-zone-1", "on-demand"},
                                                                     {"test-zone-2", "on-demand"},
                                                                     {"test-zone-3", "on-demand"}};
  ASSERT_EQ(t.offerings.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(t.offerings[i].zone, expected[i].first);
    EXPECT_EQ(t.offerings[i].capacity_type, expected[i].second);
  }
  EXPECT_EQ(Values(t, api::kLabelInstanceType), std::vector<std::string>{"fake-it-2"});
  EXPECT_EQ(Values(t, api::kLabelArch), std::vector<std::string>{"amd64"});
  EXPECT_EQ(Values(t, api::kLabelOs), std::vector<std::string>{"linux"});
  EXPECT_EQ(Values(t, api::kLabelZone),
            (std::vector<std::string>{"test-zone-1", "test-zone-2", "test-zone-3"}));
  EXPECT_EQ(Values(t, api::kLabelCapacityType), (std::vector<std::string>{"on-demand", "spot"}));
  EXPECT_EQ(t.requirements.items().size(), 5u);
  EXPECT_EQ(t.Allocatable().cpu(), Quantity::FromMilli(2900));
  EXPECT_EQ(t.Allocatable().memory(), Quantity::FromUnits(6 * kGi - 10 * kMi));
}

TEST(FakeCatalogTest, OtherSizes) {
  EXPECT_TRUE(BuildFakeCatalog(0).empty());
  EXPECT_TRUE(BuildFakeCatalog(-5).empty());
  EXPECT_EQ(BuildFakeCatalog(1).size(), 1u);
}

}  // namespace
}  // namespace karpenter::cloud
