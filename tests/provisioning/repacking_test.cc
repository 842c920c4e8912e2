#include "provisioning/repacking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace karpenter::provisioning {
namespace {

constexpr int64_t kGiB = int64_t{1024} * 1024 * 1024 * 1000;  // in thousandths of a byte

// A pod or a type's room: `cpu` in millicores, `memory` in GiB, one pod slot.
PackShape Shape(int64_t milli_cpu, int64_t memory_gi, int64_t pods = 1) {
  return {milli_cpu * 1000, memory_gi * kGiB, 0, pods * 1000};
}

// The price of the cheapest of `types` whose room holds `total`; negative when none does.
double CheapestFit(const std::vector<PackType>& types, const PackShape& total) {
  double best = -1;
  for (const PackType& type : types) {
    bool fits = true;
    for (size_t r = 0; r < total.size(); ++r) fits = fits && total[r] <= type.room[r];
    if (fits && type.price > 0 && (best < 0 || type.price < best)) best = type.price;
  }
  return best;
}

double Price(const std::vector<PackShape>& items, const std::vector<PackType>& types,
             const std::vector<std::vector<int>>& bins) {
  double price = 0;
  for (const std::vector<int>& bin : bins) {
    PackShape total{};
    for (int item : bin) {
      for (size_t r = 0; r < total.size(); ++r) total[r] += items[item][r];
    }
    const double cheapest = CheapestFit(types, total);
    EXPECT_GE(cheapest, 0) << "a bin no type holds";
    price += cheapest;
  }
  return price;
}

TEST(RepackingTest, APairOneTypeHoldsForLessBecomesOneBin) {
  const std::vector<PackType> types = {{Shape(2000, 4, 10), 1.0}, {Shape(4000, 8, 10), 1.5}};
  const std::vector<PackShape> items = {Shape(1500, 2), Shape(1500, 2)};
  const std::vector<std::vector<int>> bins = {{0}, {1}};
  const std::vector<std::vector<int>> repacked = RepackPairs(items, types, bins);
  ASSERT_EQ(repacked.size(), 1u);
  EXPECT_DOUBLE_EQ(Price(items, types, repacked), 1.5);
}

// Each bin holds a CPU-heavy and a memory-heavy pod, so each needs the dear general-purpose type;
// the CPU-heavy pods together fit the cheap CPU-rich type and the memory-heavy ones the cheap
// memory-rich type. Merging both bins costs as much as they do now.
TEST(RepackingTest, APairIsSplitAnewWhenTwoOtherTypesCostLess) {
  const std::vector<PackType> types = {{Shape(8000, 4, 10), 1.0},    // CPU-rich
                                       {Shape(2000, 16, 10), 1.0},   // memory-rich
                                       {Shape(4000, 16, 10), 2.0},   // general purpose
                                       {Shape(8000, 32, 10), 4.0}};  // twice that
  const std::vector<PackShape> items = {Shape(3000, 1), Shape(500, 7), Shape(3000, 1),
                                        Shape(500, 7)};
  const std::vector<std::vector<int>> bins = {{0, 1}, {2, 3}};
  ASSERT_DOUBLE_EQ(Price(items, types, bins), 4.0);
  std::vector<std::vector<int>> repacked = RepackPairs(items, types, bins);
  ASSERT_EQ(repacked.size(), 2u);
  EXPECT_DOUBLE_EQ(Price(items, types, repacked), 2.0);
  for (std::vector<int>& bin : repacked) std::sort(bin.begin(), bin.end());
  std::sort(repacked.begin(), repacked.end());
  EXPECT_EQ(repacked, (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
}

TEST(RepackingTest, APackingAlreadyAtTheBoundIsKept) {
  const std::vector<PackType> types = {{Shape(4000, 8, 10), 1.0}};
  const std::vector<PackShape> items = {Shape(4000, 8), Shape(4000, 8)};
  const std::vector<std::vector<int>> bins = {{0}, {1}};
  EXPECT_EQ(RepackPairs(items, types, bins), bins);
}

// Whatever the input: every pod stays exactly once, no bin more, every bin fits a type, and the
// price never rises; on random instances of uneven types it falls on some.
TEST(RepackingTest, RandomInstancesNeverGetWorseAndOftenBetter) {
  std::mt19937_64 rng(7);
  int cheaper = 0;
  for (int instance = 0; instance < 200; ++instance) {
    std::vector<PackType> types;
    for (int t = 0; t < 6; ++t) {
      const int64_t cpu = 1000 * (1 + static_cast<int64_t>(rng() % 16));
      const int64_t memory = 1 + static_cast<int64_t>(rng() % 64);
      // Prices proportional to size, each off by up to 40 % either way (as spot prices are).
      const double scale = 0.6 + 0.8 * static_cast<double>(rng() % 1000) / 1000;
      types.push_back({Shape(cpu, memory, 20), scale * (0.04 * static_cast<double>(cpu) / 1000 +
                                                        0.005 * static_cast<double>(memory))});
    }
    types.push_back({Shape(16000, 64, 40), 2.0});  // holds any pod
    std::vector<PackShape> items;
    std::vector<std::vector<int>> bins;
    // Pods packed first fit into bins of the holding-any type, a few to each.
    PackShape room{};
    for (int p = 0; p < 5 + static_cast<int>(rng() % 25); ++p) {
      const PackShape pod =
          Shape(100 + static_cast<int64_t>(rng() % 4000), 1 + static_cast<int64_t>(rng() % 16));
      if (bins.empty() || room[0] < pod[0] || room[1] < pod[1] || room[3] < pod[3]) {
        bins.emplace_back();
        room = types.back().room;
      }
      for (size_t r = 0; r < room.size(); ++r) room[r] -= pod[r];
      bins.back().push_back(static_cast<int>(items.size()));
      items.push_back(pod);
    }
    const double before = Price(items, types, bins);
    const std::vector<std::vector<int>> repacked = RepackPairs(items, types, bins);
    ASSERT_LE(repacked.size(), bins.size()) << "instance " << instance;
    std::vector<int> seen;
    for (const std::vector<int>& bin : repacked) {
      EXPECT_FALSE(bin.empty()) << "instance " << instance;
      seen.insert(seen.end(), bin.begin(), bin.end());
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int> all(items.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    ASSERT_EQ(seen, all) << "instance " << instance;
    const double after = Price(items, types, repacked);
    EXPECT_LE(after, before + 1e-9) << "instance " << instance;
    if (after < before - 1e-9) ++cheaper;
  }
  EXPECT_GT(cheaper, 20);
}

}  // namespace
}  // namespace karpenter::provisioning
