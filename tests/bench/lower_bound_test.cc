#include "lower_bound.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <vector>

namespace karpenter::bench {
namespace {

TEST(LowerBoundTest, OneTypeIsBoughtForItsBindingResource) {
  const std::vector<Capacity> types = {{2, 8, 10, 0.1}};
  EXPECT_NEAR(*LowerBoundPricePerHour(types, {10, 1, 1}), 0.5, 1e-9);   // CPU binds
  EXPECT_NEAR(*LowerBoundPricePerHour(types, {1, 40, 1}), 0.5, 1e-9);   // memory binds
  EXPECT_NEAR(*LowerBoundPricePerHour(types, {1, 1, 100}), 1.0, 1e-9);  // pod slots bind
  EXPECT_NEAR(*LowerBoundPricePerHour(types, {0, 0, 0}), 0.0, 1e-12);
}

// Neither type alone is the cheapest cover: A is CPU-rich, B memory-rich, and the optimum buys 6/7
// of A and 4/7 of B.
TEST(LowerBoundTest, TwoTypesMixWhenEachIsRichInOneResource) {
  const std::vector<Capacity> types = {{4, 4, 100, 1}, {1, 8, 100, 1}};
  EXPECT_NEAR(*LowerBoundPricePerHour(types, {4, 8, 1}), 10.0 / 7, 1e-9);
}

TEST(LowerBoundTest, ADemandNoTypeCanCoverHasNoBound) {
  EXPECT_FALSE(LowerBoundPricePerHour({{4, 16, 0, 1}}, {1, 1, 1}).has_value());
  EXPECT_FALSE(LowerBoundPricePerHour({}, {1, 0, 0}).has_value());
}

// The cheapest whole nodes that hold every pod, found by trying every count of each type (up to
// four) and every assignment of the pods to them.
double IntegerOptimum(const std::vector<Capacity>& types, const std::vector<Demand>& pods) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<int> counts(types.size(), 0);
  std::function<void(size_t)> choose = [&](size_t t) {
    if (t == types.size()) {
      std::vector<Capacity> nodes;
      double price = 0;
      for (size_t i = 0; i < types.size(); ++i) {
        for (int c = 0; c < counts[i]; ++c) nodes.push_back(types[i]);
        price += counts[i] * types[i].price;
      }
      if (price >= best) return;
      std::function<bool(size_t)> place = [&](size_t p) {
        if (p == pods.size()) return true;
        for (Capacity& node : nodes) {
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
TEST(LowerBoundTest, NeverAboveTheIntegerOptimumOfTinyInstances) {
  std::mt19937_64 rng(7);
  int compared = 0;
  for (int instance = 0; instance < 200; ++instance) {
    std::vector<Capacity> types;
    for (int t = 0; t < 3; ++t) {
      types.push_back({static_cast<double>(1 + rng() % 8), static_cast<double>(1 + rng() % 16),
                       static_cast<double>(1 + rng() % 4),
                       static_cast<double>(1 + rng() % 20) / 10});
    }
    std::vector<Demand> pods;
    Demand total;
    for (int p = 0; p < 2 + static_cast<int>(rng() % 5); ++p) {
      const Demand pod{static_cast<double>(1 + rng() % 4), static_cast<double>(1 + rng() % 8), 1};
      pods.push_back(pod);
      total = {total.cpu + pod.cpu, total.memory + pod.memory, total.pods + 1};
    }
    const std::optional<double> bound = LowerBoundPricePerHour(types, total);
    ASSERT_TRUE(bound.has_value());
    double single = 0;
    for (auto rate : {&Capacity::cpu, &Capacity::memory, &Capacity::pods}) {
      double cheapest = std::numeric_limits<double>::infinity();
      for (const Capacity& type : types) cheapest = std::min(cheapest, type.price / type.*rate);
      const double need = rate == &Capacity::cpu      ? total.cpu
                          : rate == &Capacity::memory ? total.memory
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
}  // namespace karpenter::bench
