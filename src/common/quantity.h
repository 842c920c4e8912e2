#pragma once
// Kubernetes resource quantities ("100m", "1.5Gi", "1e3", "128974848") held exactly as a signed
// count of milli-units, so CPU, memory, storage and counts share one arithmetic.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace karpenter {

class Quantity {
 public:
  constexpr Quantity() = default;

  static constexpr Quantity FromMilli(int64_t milli) { return Quantity(milli); }
  static constexpr Quantity FromUnits(int64_t units) { return Quantity(units * 1000); }

  // Parses every form Kubernetes accepts: plain and decimal numbers, binary suffixes (Ki Mi Gi Ti
  // Pi Ei), decimal suffixes (n u m k M G T P E) and exponents (1e3, 1E-3). Fractions finer than
  // one milli-unit round up in magnitude ("0.1m" -> 1m, "-0.1m" -> -1m), as the API server does for
  // CPU. Magnitudes beyond INT64_MAX milli-units (about 9.2P, so "1E" and "1Ei") are out of range.
  // The error names the reason only; callers quote the text and add where it came from.
  static Result<Quantity> Parse(std::string_view text);

  constexpr int64_t milli() const { return milli_; }
  // Whole units, rounded up (a pod needing 1500m of something needs 2 whole units).
  constexpr int64_t units_ceil() const {
    return milli_ >= 0 ? (milli_ + 999) / 1000 : milli_ / 1000;
  }
  constexpr double as_double() const { return static_cast<double>(milli_) / 1000.0; }
  constexpr bool is_zero() const { return milli_ == 0; }

  constexpr Quantity& operator+=(Quantity other) {
    milli_ += other.milli_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity other) {
    milli_ -= other.milli_;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return a += b; }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return a -= b; }
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>.
  friend constexpr auto operator<=>(Quantity a, Quantity b) = default;

  // Canonical text: milli-units when fractional ("250m"), binary suffix when an exact multiple of
  // 1Ki and at least 1Ki ("1536Mi"), else the plain integer.
  std::string ToString() const;
  // CPU-style text: "250m", "2".
  std::string ToCpuString() const;

 private:
  explicit constexpr Quantity(int64_t milli) : milli_(milli) {}
  int64_t milli_ = 0;
};

}  // namespace karpenter
