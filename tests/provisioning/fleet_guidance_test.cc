#include "provisioning/fleet_guidance.h"

#include <gtest/gtest.h>

#include <vector>

namespace karpenter::provisioning {
namespace {

// A CPU-rich and a memory-rich type at one price, for CPU-heavy and memory-heavy pods: the LP buys
// both, and each group carries its type's proportions, at most its share of the fleet.
TEST(FleetGuidanceTest, EachGroupHasItsTypesProportions) {
  const std::vector<FleetType> types = {{16, 16, 100, 1}, {4, 32, 100, 1}};
  std::vector<GuidedPod> pods(40, {1, 1, 1, 0});
  pods.insert(pods.end(), 40, {0.1, 4, 1, 0});
  pods.push_back({1, 1, 1, -1});  // no pool takes it
  const FleetGuidance guidance = GuideByFractionalFleet(pods, {types});
  const std::optional<FractionalFleet> fleet =
      CheapestFractionalFleet(types, {44, 200, 80});  // the 80 pods of the pool
  ASSERT_TRUE(fleet.has_value());
  ASSERT_GT(fleet->nodes[0], 0);
  ASSERT_GT(fleet->nodes[1], 0);
  FleetDemand group[2];
  for (size_t i = 0; i + 1 < pods.size(); ++i) {
    ASSERT_GE(guidance.type[i], 0) << "pod " << i;
    ASSERT_GE(guidance.rank[i], 0) << "pod " << i;
    FleetDemand& g = group[guidance.type[i]];
    g = {g.cpu + pods[i].cpu, g.memory + pods[i].memory, g.pods + 1};
  }
  EXPECT_EQ(guidance.type.back(), -1);
  EXPECT_EQ(guidance.rank.back(), -1);
  // The memory-rich group (queued first) holds at most its type's share, near its proportions;
  // the rest is the CPU-rich group's.
  EXPECT_LE(group[1].memory, fleet->nodes[1] * 32 + 1e-9);
  EXPECT_LE(group[1].cpu, fleet->nodes[1] * 4 + 1e-9);
  EXPECT_NEAR(group[1].memory / group[1].cpu, 8, 1);
  EXPECT_NEAR(group[0].memory / group[0].cpu, 1, 0.5);
  for (size_t i = 0; i + 1 < pods.size(); ++i) {
    for (size_t j = 0; j + 1 < pods.size(); ++j) {
      if (guidance.type[i] == 1 && guidance.type[j] == 0) {
        EXPECT_LT(guidance.rank[i], guidance.rank[j]);
      }
    }
  }
  // Each rank is used once.
  std::vector<int> seen(pods.size(), 0);
  for (size_t i = 0; i + 1 < pods.size(); ++i) ++seen.at(guidance.rank[i]);
  for (size_t r = 0; r + 1 < pods.size(); ++r) EXPECT_EQ(seen[r], 1) << "rank " << r;
}

TEST(FleetGuidanceTest, APoolNoMixCoversGuidesNothing) {
  // No type has pod slots.
  const FleetGuidance guidance = GuideByFractionalFleet({{1, 1, 1, 0}}, {{{4, 4, 0, 1}}});
  EXPECT_EQ(guidance.type[0], -1);
  EXPECT_EQ(guidance.rank[0], 0);  // after every group (there is none)
}

}  // namespace
}  // namespace karpenter::provisioning
