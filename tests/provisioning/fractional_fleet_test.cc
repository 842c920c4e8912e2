#include "provisioning/fractional_fleet.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <vector>

namespace karpenter::provisioning {
namespace {

TEST(FractionalFleetTest, OneTypeIsBoughtForItsBindingResource) {
  const std::vector<FleetType> types = {{2, 8, 10, 0.1}};
  EXPECT_NEAR(CheapestFractionalFleet(types, {10, 1, 1})->price, 0.5, 1e-9);   // CPU binds
  EXPECT_NEAR(CheapestFractionalFleet(types, {1, 40, 1})->price, 0.5, 1e-9);   // memory binds
  EXPECT_NEAR(CheapestFractionalFleet(types, {1, 1, 100})->price, 1.0, 1e-9);  // pod slots bind
  EXPECT_NEAR(CheapestFractionalFleet(types, {0, 0, 0})->price, 0.0, 1e-12);
}

// Neither type alone is the cheapest cover: A is CPU-rich, B memory-rich, and the optimum buys 6/7
// of A and 4/7 of B.
TEST(FractionalFleetTest, TwoTypesMixWhenEachIsRichInOneResource) {
  const std::vector<FleetType> types = {{4, 4, 100, 1}, {1, 8, 100, 1}};
  const std::optional<FractionalFleet> fleet = CheapestFractionalFleet(types, {4, 8, 1});
  ASSERT_TRUE(fleet.has_value());
  EXPECT_NEAR(fleet->price, 10.0 / 7, 1e-9);
  EXPECT_NEAR(fleet->nodes[0], 6.0 / 7, 1e-9);
  EXPECT_NEAR(fleet->nodes[1], 4.0 / 7, 1e-9);
}

TEST(FractionalFleetTest, ADemandNoTypeCanCoverHasNoBound) {
  EXPECT_FALSE(CheapestFractionalFleet({{4, 16, 0, 1}}, {1, 1, 1}).has_value());
  EXPECT_FALSE(CheapestFractionalFleet({}, {1, 0, 0}).has_value());
}

// The cheapest whole nodes that hold every pod, found by trying every count of each type (up to
// four) and every assignment of the pods to them.
double IntegerOptimum(const std::vector<FleetType>& types, const std::vector<FleetDemand>& pods) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<int> counts(types.size(), 0);
  std::function<void(size_t)> choose = [&](size_t t) {
    if (t == types.size()) {
      std::vector<FleetType> nodes;
      double price = 0;
      for (size_t i = 0; i < types.size(); ++i) {
        for (int c = 0; c < counts[i]; ++c) nodes.push_back(types[i]);
        price += counts[i] * types[i].price;
      }
      if (price >= best) return;
      std::function<bool(size_t)> place = [&](size_t p) {
        if (p == pods.size()) return true;
        for (FleetType& node : nodes) {
          if (node.cpu < pods[p].cpu || node.memory < pods[p].memory || node.pods < 1) continue;
          node.cpu -= pods[p].cpu;
          node.memory -= pods[p].memory;
          node.pods -= 1;
          const bool placed = place(p + 1);
          node.cpu += pods[p].cpu;
          node.memory += pods[p].memory;
          node.pods += 1;
          if (placed) return true;
        }
        return false;
      };
      if (place(0)) best = price;
      return;
    }
    for (int c = 0; c <= 4; ++c) {
      counts[t] = c;
      choose(t + 1);
    }
  };
  choose(0);
  return best;
}

// On tiny random instances the bound is a bound — never above the best packing exhaustive search
// finds — and at least what any one resource alone demands at its cheapest rate.
TEST(FractionalFleetTest, NeverAboveTheIntegerOptimumOfTinyInstances) {
  std::mt19937_64 rng(7);
  int compared = 0;
  for (int instance = 0; instance < 200; ++instance) {
    std::vector<FleetType> types;
    types.reserve(3);
    for (int t = 0; t < 3; ++t) {
      types.push_back({static_cast<double>(1 + rng() % 8), static_cast<double>(1 + rng() % 16),
                       static_cast<double>(1 + rng() % 4),
                       static_cast<double>(1 + rng() % 20) / 10});
    }
    std::vector<FleetDemand> pods;
    FleetDemand total;
    for (int p = 0; p < 2 + static_cast<int>(rng() % 5); ++p) {
      const FleetDemand pod{static_cast<double>(1 + rng() % 4), static_cast<double>(1 + rng() % 8),
                            1};
      pods.push_back(pod);
      total = {total.cpu + pod.cpu, total.memory + pod.memory, total.pods + 1};
    }
    const std::optional<FractionalFleet> fleet = CheapestFractionalFleet(types, total);
    ASSERT_TRUE(fleet.has_value());
    const double* bound = &fleet->price;
    // The fleet it returns covers the demand at that price, with at most three types.
    FleetDemand covered;
    double paid = 0;
    int bought = 0;
    for (size_t t = 0; t < types.size(); ++t) {
      ASSERT_GE(fleet->nodes[t], 0) << "instance " << instance;
      covered = {covered.cpu + fleet->nodes[t] * types[t].cpu,
                 covered.memory + fleet->nodes[t] * types[t].memory,
                 covered.pods + fleet->nodes[t] * types[t].pods};
      paid += fleet->nodes[t] * types[t].price;
      if (fleet->nodes[t] > 0) ++bought;
    }
    EXPECT_GE(covered.cpu, total.cpu - 1e-9) << "instance " << instance;
    EXPECT_GE(covered.memory, total.memory - 1e-9) << "instance " << instance;
    EXPECT_GE(covered.pods, total.pods - 1e-9) << "instance " << instance;
    EXPECT_NEAR(paid, *bound, 1e-9) << "instance " << instance;
    EXPECT_LE(bought, 3) << "instance " << instance;
    double single = 0;
    for (auto rate : {&FleetType::cpu, &FleetType::memory, &FleetType::pods}) {
      double cheapest = std::numeric_limits<double>::infinity();
      for (const FleetType& type : types) cheapest = std::min(cheapest, type.price / type.*rate);
      const double need = rate == &FleetType::cpu      ? total.cpu
                          : rate == &FleetType::memory ? total.memory
                                                       : total.pods;
      single = std::max(single, need * cheapest);
    }
    EXPECT_GE(*bound, single - 1e-9) << "instance " << instance;
    const double optimum = IntegerOptimum(types, pods);
    if (optimum == std::numeric_limits<double>::infinity()) continue;  // more than 4 of a type
    ++compared;
    EXPECT_LE(*bound, optimum + 1e-9) << "instance " << instance;
  }
  EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace karpenter::provisioning
