#include "api/nodeoverlay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace karpenter::api {
namespace {

bool AllDigits(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "12", "12.5" (and, with `bare_fraction`, ".5"): digits, then optionally a point and digits.
bool IsUnsignedDecimal(std::string_view text, bool bare_fraction) {
  const size_t point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  if (point == std::string_view::npos) return !whole.empty() && AllDigits(whole);
  const std::string_view fraction = text.substr(point + 1);
  return (bare_fraction || !whole.empty()) && AllDigits(whole) && !fraction.empty() &&
         AllDigits(fraction);
}

}  // namespace

std::string OverlayPriceProblem(std::string_view text) {
  if (IsUnsignedDecimal(text, /*bare_fraction=*/false)) return {};
  return fmt::format("invalid price \"{}\": must be an unsigned decimal such as \"0.25\"", text);
}

std::string OverlayPriceAdjustmentProblem(std::string_view text) {
  const bool signed_form = text.starts_with('+') || text.starts_with('-');
  if (signed_form) {
    const bool negative = text.front() == '-';
    std::string_view number = text.substr(1);
    if (!number.ends_with('%')) {
      if (IsUnsignedDecimal(number, /*bare_fraction=*/true)) return {};
    } else {
      number.remove_suffix(1);
      if (!negative && IsUnsignedDecimal(number, /*bare_fraction=*/true)) return {};
      // Negative percentages stop at -100%: at most two whole digits, or exactly 100.
      const std::string_view whole = number.substr(0, number.find('.'));
      if (negative && (number == "100" ||
                       (IsUnsignedDecimal(number, /*bare_fraction=*/false) && whole.size() <= 2))) {
        return {};
      }
    }
  }
  return fmt::format(
      "invalid priceAdjustment \"{}\": must be a signed amount such as \"+0.05\" or \"-0.5\", or a "
      "percentage such as \"+15%\" or \"-10%\" (not below \"-100%\")",
      text);
}

double PriceChange::Apply(double price) const {
  switch (kind) {
    case Kind::kSet:
      return amount;
    case Kind::kAdd:
      return std::max(price + amount, 0.0);
    case Kind::kPercent:
      return std::max(price * (1 + amount / 100), 0.0);
  }
  return price;
}

std::optional<PriceChange> OverlayPriceChange(const NodeOverlay::Spec& spec) {
  if (spec.price) {
    return PriceChange{PriceChange::Kind::kSet, std::strtod(spec.price->c_str(), nullptr)};
  }
  if (!spec.price_adjustment) return std::nullopt;
  std::string change = *spec.price_adjustment;
  if (!change.ends_with('%')) {
    return PriceChange{PriceChange::Kind::kAdd, std::strtod(change.c_str(), nullptr)};
  }
  change.pop_back();
  return PriceChange{PriceChange::Kind::kPercent, std::strtod(change.c_str(), nullptr)};
}

bool IsOverlayRestrictedResource(std::string_view name) {
  return name == kResourceCpu || name == kResourceMemory || name == kResourcePods ||
         name == kResourceEphemeralStorage;
}

}  // namespace karpenter::api
