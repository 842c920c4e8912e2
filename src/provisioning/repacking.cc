#include "provisioning/repacking.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

#include "provisioning/fractional_fleet.h"

namespace karpenter::provisioning {
namespace {

// A new packing of a pair replaces it only when it saves at least this share of the pair's price:
// equal prices keep the plan as it was, and rounding never churns it.
constexpr double kMinSaving = 1e-2;
// How much searching one repacking may do, in pods looked at (a nanosecond or two each): tens
// of milliseconds at most, however many claims a pass plans.
constexpr int64_t kWorkBudget = 30'000'000;
constexpr double kGiB = 1024.0 * 1024 * 1024;

PackShape Plus(PackShape a, const PackShape& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

PackShape Minus(PackShape a, const PackShape& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] -= b[i];
  return a;
}

bool Fits(const PackShape& total, const PackShape& room) {
  for (size_t i = 0; i < total.size(); ++i) {
    if (total[i] > room[i]) return false;
  }
  return true;
}

bool Empty(const PackShape& shape) {
  return std::all_of(shape.begin(), shape.end(), [](int64_t v) { return v == 0; });
}

// The types no cheaper-or-equal type dominates in every resource, cheapest first: the only ones
// a cheapest fit can return.
std::vector<PackType> Frontier(std::vector<PackType> types) {
  std::stable_sort(types.begin(), types.end(),
                   [](const PackType& a, const PackType& b) { return a.price < b.price; });
  std::vector<PackType> out;
  for (const PackType& type : types) {
    if (type.price <= 0) continue;
    const bool dominated = std::any_of(
        out.begin(), out.end(), [&](const PackType& kept) { return Fits(type.room, kept.room); });
    if (!dominated) out.push_back(type);
  }
  return out;
}

class PairPacker {
 public:
  PairPacker(const std::vector<PackShape>& items, const std::vector<PackType>& types)
      : items_(&items), types_(Frontier(types)) {
    unit_price_.fill(std::numeric_limits<double>::infinity());
    for (const PackType& type : types_) {
      for (size_t r = 0; r < 4; ++r) {
        if (type.room[r] > 0) {
          unit_price_[r] = std::min(unit_price_[r], type.price / static_cast<double>(type.room[r]));
        }
      }
    }
    for (double& price : unit_price_) {
      if (std::isinf(price)) price = 0;  // no type has any: nothing to bound by
    }
    fleet_.reserve(types_.size());
    for (const PackType& type : types_) {
      fleet_.push_back({static_cast<double>(type.room[0]) / 1000,
                        static_cast<double>(type.room[1]) / 1000 / kGiB,
                        static_cast<double>(type.room[3]) / 1000, type.price});
    }
  }

  // The price of the cheapest type that holds `total`; -1 when none does. The frontier is
  // cheapest first, so the first that fits is it.
  double Cost(const PackShape& total) const {
    for (const PackType& type : types_) {
      if (Fits(total, type.room)) return type.price;
    }
    return -1;
  }

  PackShape Sum(const std::vector<int>& bin) const {
    PackShape sum{};
    for (int item : bin) sum = Plus(sum, (*items_)[item]);
    return sum;
  }

  // A cheaper packing of the pods of two bins costing `price` together, as one or two bins;
  // nullopt when none is found. Adds what it looked at to `work`.
  std::optional<std::pair<std::vector<int>, std::vector<int>>> Improve(const std::vector<int>& a,
                                                                       const std::vector<int>& b,
                                                                       const PackShape& total,
                                                                       double price,
                                                                       int64_t& work) const {
    const double target = price * (1 - kMinSaving);
    // Nothing can beat the fractional fleet for the pair's pods.
    work += static_cast<int64_t>(fleet_.size());
    const std::optional<FractionalFleet> bound = CheapestFractionalFleet(
        fleet_, {static_cast<double>(total[0]) / 1000, static_cast<double>(total[1]) / 1000 / kGiB,
                 static_cast<double>(total[3]) / 1000});
    if (bound && bound->price >= target) return std::nullopt;
    std::vector<int> pooled = a;
    pooled.insert(pooled.end(), b.begin(), b.end());
    if (const double merged = Cost(total); merged >= 0 && merged < target) {
      return std::make_pair(std::move(pooled), std::vector<int>());
    }
    // The pair's pods by position in `pooled` (not by index into every item: a pass may hold
    // thousands), in two orders: by memory per CPU (CPU-rich first), and largest first.
    const size_t n = pooled.size();
    std::vector<PackShape> pods(n);
    std::vector<double> size(n, 0);
    for (size_t p = 0; p < n; ++p) {
      pods[p] = (*items_)[pooled[p]];
      for (size_t r = 0; r < pods[p].size(); ++r) {
        if (total[r] > 0) {
          size[p] += static_cast<double>(pods[p][r]) / static_cast<double>(total[r]);
        }
      }
    }
    std::vector<size_t> by_ratio(n);
    std::iota(by_ratio.begin(), by_ratio.end(), 0);
    std::vector<size_t> by_size = by_ratio;
    std::stable_sort(by_ratio.begin(), by_ratio.end(), [&](size_t x, size_t y) {
      // x.mem / x.cpu < y.mem / y.cpu, without dividing by a zero CPU.
      return static_cast<double>(pods[x][1]) * static_cast<double>(pods[y][0]) <
             static_cast<double>(pods[y][1]) * static_cast<double>(pods[x][0]);
    });
    std::stable_sort(by_size.begin(), by_size.end(),
                     [&](size_t x, size_t y) { return size[x] > size[y]; });

    double best = target;
    // A split whose first bin is `type` leaves at least what the type cannot hold, and that costs
    // at least its largest resource at the cheapest price per unit any type offers.
    auto rest_bound = [&](const PackType& type) {
      double bound = 0;
      for (size_t r = 0; r < total.size(); ++r) {
        const int64_t left = total[r] - type.room[r];
        if (left > 0) bound = std::max(bound, static_cast<double>(left) * unit_price_[r]);
      }
      return bound;
    };
    std::vector<char> taken(n, 0);
    std::optional<std::pair<std::vector<int>, std::vector<int>>> out;
    for (const PackType& type : types_) {
      if (type.price >= best) break;  // cheapest first: no later type can do better
      if (type.price + rest_bound(type) >= best) continue;
      work += static_cast<int64_t>(2 * n);
      for (const bool balanced : {true, false}) {
        std::fill(taken.begin(), taken.end(), 0);
        PackShape filled{};
        auto take = [&](size_t p) {
          const PackShape with = Plus(filled, pods[p]);
          if (taken[p] || !Fits(with, type.room)) return false;
          taken[p] = 1;
          filled = with;
          return true;
        };
        if (balanced) {
          // From whichever end of the ratio order brings the bin towards the type's proportions:
          // the CPU-rich end while the bin is richer in memory than the type, else the other.
          size_t lo = 0;
          size_t hi = n;
          auto take_lo = [&] {
            if (!take(by_ratio[lo])) return false;
            ++lo;
            return true;
          };
          auto take_hi = [&] {
            if (!take(by_ratio[hi - 1])) return false;
            --hi;
            return true;
          };
          while (lo < hi) {
            const bool memory_rich = static_cast<double>(filled[1]) * type.room[0] >
                                     static_cast<double>(filled[0]) * type.room[1];
            // The preferred end, else the other; done when neither end's pod fits.
            if (!(memory_rich ? take_lo() || take_hi() : take_hi() || take_lo())) break;
          }
        }
        for (size_t p : by_size) take(p);  // then whatever else still fits, largest first
        if (Empty(filled)) continue;
        const PackShape rest = Minus(total, filled);
        const double rest_price = Empty(rest) ? 0 : Cost(rest);
        if (rest_price < 0 || type.price + rest_price >= best) continue;
        best = type.price + rest_price;
        std::pair<std::vector<int>, std::vector<int>> split;
        for (size_t p = 0; p < n; ++p) (taken[p] ? split.first : split.second).push_back(pooled[p]);
        out = std::move(split);
      }
    }
    return out;
  }

 private:
  const std::vector<PackShape>* items_;
  std::vector<PackType> types_;         // the frontier, cheapest first
  std::vector<FleetType> fleet_;        // the same, as the fractional fleet reads them
  std::array<double, 4> unit_price_{};  // per resource, the lowest price per unit of it
};

}  // namespace

std::vector<std::vector<int>> RepackPairs(const std::vector<PackShape>& items,
                                          const std::vector<PackType>& types,
                                          std::vector<std::vector<int>> bins, int max_sweeps) {
  const PairPacker packer(items, types);
  std::vector<PackShape> sums;
  std::vector<double> prices;
  for (const std::vector<int>& bin : bins) {
    sums.push_back(packer.Sum(bin));
    prices.push_back(packer.Cost(sums.back()));
  }
  int64_t work = 0;
  // A pair neither of whose bins changed since it was last tried has nothing new to offer.
  std::vector<char> changed(bins.size(), 1);
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    bool improved = false;
    std::vector<char> changing(bins.size(), 0);
    for (size_t a = 0; a < bins.size() && work < kWorkBudget; ++a) {
      for (size_t b = a + 1; b < bins.size() && !bins[a].empty() && work < kWorkBudget; ++b) {
        if (bins[b].empty() || prices[a] < 0 || prices[b] < 0) continue;
        if (!changed[a] && !changed[b] && !changing[a] && !changing[b]) continue;
        const PackShape total = Plus(sums[a], sums[b]);
        auto better = packer.Improve(bins[a], bins[b], total, prices[a] + prices[b], work);
        if (!better) continue;
        bins[a] = std::move(better->first);
        bins[b] = std::move(better->second);
        for (const size_t i : {a, b}) {
          sums[i] = packer.Sum(bins[i]);
          prices[i] = bins[i].empty() ? 0 : packer.Cost(sums[i]);
          changing[i] = 1;
        }
        improved = true;
      }
    }
    if (!improved) break;
    changed = std::move(changing);
  }
  std::erase_if(bins, [](const std::vector<int>& bin) { return bin.empty(); });
  return bins;
}

}  // namespace karpenter::provisioning
