#pragma once
// Simulated spot prices. No public file lists spot prices, so the catalog derives them from the
// on-demand price with a seeded, deterministic model, and lets users override them with real
// prices (e.g. from DescribeSpotPriceHistory) loaded from a JSON file.
//
// The model: for an instance type of family F and generation G in zone Z,
//   u        = a uniform number in [0, 1) from a 64-bit hash of (seed, F, Z)  (FNV-1a + SplitMix64)
//   age      = clamp((8 - G) / 6, 0, 1)   (generation 8 or newer: 0; generation 2 or older: 1;
//                                          names without a generation count as new)
//   discount = 0.55 + 0.25 * (u + age) / 2        (always within [0.55, 0.80])
//   spot     = on-demand * (1 - discount), rounded to 1e-5 USD (never 0 when on-demand > 0)
// so every size of a family shares its discount in a zone, older generations are cheaper, and the
// spot price never exceeds the on-demand price. An unknown on-demand price (0) gives 0 (unknown).
//
// Override file: a JSON object keyed by instance type whose values are either one price for every
// zone (`{"m5.large": 0.035}`) or per-zone prices (`{"m5.large": {"us-east-1a": 0.035}}`). Per-zone
// prices win over an all-zones price; later loads win over earlier ones. Overrides are used as
// given (they may exceed the modelled range).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace karpenter::aws {

inline constexpr uint64_t kDefaultSpotSeed = 1;
inline constexpr double kSpotMinDiscount = 0.55;
inline constexpr double kSpotMaxDiscount = 0.80;
// Generations at or above this get no age bonus; each generation below adds 1/6 of it.
inline constexpr int kSpotNewestGeneration = 8;

class SpotPriceModel {
 public:
  explicit SpotPriceModel(uint64_t seed = kDefaultSpotSeed) : seed_(seed) {}

  uint64_t seed() const { return seed_; }

  // The modelled fraction taken off the on-demand price, in [kSpotMinDiscount, kSpotMaxDiscount].
  double Discount(std::string_view instance_type, std::string_view zone) const;
  // The overriding price when one was loaded for this type and zone.
  std::optional<double> Override(std::string_view instance_type, std::string_view zone) const;
  // The override when present, else the modelled price; 0 when unknown.
  double Price(std::string_view instance_type, std::string_view zone, double on_demand) const;

  // Loads overrides from a JSON file (format above). Errors name the file and the field.
  Status LoadSpotPrices(const std::string& path);
  // The same from text; `source` names where it came from in errors.
  Status LoadSpotPricesJson(std::string_view text, std::string_view source);
  size_t override_count() const;

 private:
  struct ZonePrice {
    std::string zone;  // empty: every zone
    double price = 0;
  };
  uint64_t seed_;
  std::map<std::string, std::vector<ZonePrice>, std::less<>> overrides_;
};

}  // namespace karpenter::aws
