#include "common/quantity.h"

#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>

namespace karpenter {
namespace {

constexpr uint64_t kMaxMagnitude = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
// Exponents beyond this behave like it (the value either overflows or rounds to one milli-unit);
// saturating keeps the position arithmetic below in range whatever the input length.
constexpr int64_t kExponentSaturation = int64_t{1} << 40;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Errors name the reason only: callers quote the text and say where it came from.
Error Invalid(std::string_view reason) { return Error{std::string(reason)}; }

Error UnknownSuffix(std::string_view suffix) {
  std::string reason = "unknown suffix \"";
  reason.append(suffix);
  reason.append(
      "\" (want one of n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or an exponent such as e3 or E-3)");
  return Error{std::move(reason)};
}

// The scale a suffix stands for: value * 10^exp10 * 2^exp2.
struct Scale {
  int64_t exp10 = 0;
  int exp2 = 0;
};

// Decimal SI and binary SI suffixes.
struct NamedScale {
  std::string_view suffix;
  Scale scale;
};
constexpr NamedScale kSuffixes[] = {
    {"", {0, 0}},    {"m", {-3, 0}},  {"k", {3, 0}},   {"M", {6, 0}},
    {"G", {9, 0}},   {"Ki", {0, 10}}, {"Mi", {0, 20}}, {"Gi", {0, 30}},
    {"Ti", {0, 40}}, {"T", {12, 0}},  {"u", {-6, 0}},  {"n", {-9, 0}},
    {"P", {15, 0}},  {"E", {18, 0}},  {"Pi", {0, 50}}, {"Ei", {0, 60}},
};

// False when `suffix` is not a decimal or binary SI suffix.
bool LookupSuffix(std::string_view suffix, Scale& scale) {
  for (const NamedScale& entry : kSuffixes) {
    if (entry.suffix == suffix) {
      scale = entry.scale;
      return true;
    }
  }
  return false;
}

// "e3", "E-3", "e+12": false unless `suffix` is exactly an exponent marker, an optional sign and at
// least one digit.
bool ParseExponent(std::string_view suffix, Scale& scale) {
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return false;
  size_t pos = 1;
  bool negative = false;
  if (suffix[pos] == '+' || suffix[pos] == '-') {
    negative = suffix[pos] == '-';
    ++pos;
  }
  if (pos == suffix.size()) return false;
  int64_t exponent = 0;
  for (; pos < suffix.size(); ++pos) {
    if (!IsDigit(suffix[pos])) return false;
    if (exponent < kExponentSaturation) exponent = exponent * 10 + (suffix[pos] - '0');
  }
  scale.exp10 = negative ? -exponent : exponent;
  return true;
}

}  // namespace

// The value is D * 10^(exp10 - fraction digits) * 2^exp2 where D is the digit string with the dot
// removed. In milli-units the decimal point sits after `point` digits of D (point may lie before
// the first digit or past the last). The integer part is accumulated directly; the fraction is
// multiplied by 2^exp2 with a carry walk from its last digit, which yields its integer contribution
// and whether anything is left over (which rounds the magnitude up). Only the error path allocates.
Result<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return Invalid("empty");

  size_t pos = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++pos;
  }
  const size_t int_begin = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  const std::string_view int_digits = text.substr(int_begin, pos - int_begin);
  std::string_view frac_digits;
  if (pos < text.size() && text[pos] == '.') {
    const size_t frac_begin = ++pos;
    while (pos < text.size() && IsDigit(text[pos])) ++pos;
    frac_digits = text.substr(frac_begin, pos - frac_begin);
  }
  if (int_digits.empty() && frac_digits.empty()) {
    return Invalid("expected a number such as 1, 0.5 or 250m");
  }
  const std::string_view suffix = text.substr(pos);
  if (!suffix.empty() && suffix[0] == '.') return Invalid("more than one decimal point");

  Scale scale;
  if (!LookupSuffix(suffix, scale) && !ParseExponent(suffix, scale)) {
    return UnknownSuffix(suffix);
  }

  const auto digit_count = static_cast<int64_t>(int_digits.size() + frac_digits.size());
  auto digit = [&](int64_t i) -> uint64_t {
    const auto index = static_cast<size_t>(i);
    const char c =
        index < int_digits.size() ? int_digits[index] : frac_digits[index - int_digits.size()];
    return static_cast<uint64_t>(c - '0');
  };

  bool any_nonzero = false;
  for (int64_t i = 0; i < digit_count && !any_nonzero; ++i) any_nonzero = digit(i) != 0;
  if (!any_nonzero) return Quantity(0);

  // +3: milli-units.
  const int64_t point = static_cast<int64_t>(int_digits.size()) + scale.exp10 + 3;
  const uint64_t multiplier = uint64_t{1} << scale.exp2;
  const auto too_large = [&] {
    return Invalid("out of range (at most 9223372036854775807 milli-units, about 9.2P)");
  };

  // Integer part: digits [0, point), with zeros past the last digit.
  uint64_t integer = 0;
  for (int64_t i = 0; i < point; ++i) {
    const uint64_t d = i < digit_count ? digit(i) : 0;
    if (__builtin_mul_overflow(integer, uint64_t{10}, &integer) ||
        __builtin_add_overflow(integer, d, &integer) || integer > kMaxMagnitude) {
      return too_large();
    }
  }
  if (__builtin_mul_overflow(integer, multiplier, &integer) || integer > kMaxMagnitude) {
    return too_large();
  }

  // Fractional part times the multiplier: digits [max(point, 0), digit_count) preceded by -point
  // zeros when point < 0. Each step keeps carry < multiplier, so 9 * multiplier + carry < 2^64.
  uint64_t carry = 0;
  bool remainder = false;
  for (int64_t i = digit_count - 1; i >= 0 && i >= point; --i) {
    const uint64_t t = digit(i) * multiplier + carry;
    carry = t / 10;
    remainder = remainder || t % 10 != 0;
  }
  for (int64_t zeros = point < 0 ? -point : 0; zeros > 0 && carry != 0; --zeros) {
    remainder = remainder || carry % 10 != 0;
    carry /= 10;
  }

  uint64_t magnitude = integer;
  if (__builtin_add_overflow(magnitude, carry + (remainder ? 1 : 0), &magnitude) ||
      magnitude > kMaxMagnitude) {
    return too_large();
  }
  const auto value = static_cast<int64_t>(magnitude);
  return Quantity(negative ? -value : value);
}

namespace {

// The sign and magnitude of `milli`, safe for INT64_MIN.
std::string Signed(bool negative, uint64_t magnitude, std::string_view suffix) {
  std::string out = negative ? "-" : "";
  out += std::to_string(magnitude);
  out.append(suffix);
  return out;
}

uint64_t Magnitude(int64_t value) {
  return value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
}

}  // namespace

std::string Quantity::ToString() const {
  const bool negative = milli_ < 0;
  const uint64_t milli = Magnitude(milli_);
  if (milli % 1000 != 0) return Signed(negative, milli, "m");
  uint64_t units = milli / 1000;
  static constexpr std::string_view kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  size_t exponent = 0;
  while (units != 0 && units % 1024 == 0 && exponent + 1 < std::size(kBinary)) {
    units /= 1024;
    ++exponent;
  }
  return Signed(negative, units, kBinary[exponent]);
}

std::string Quantity::ToCpuString() const {
  const bool negative = milli_ < 0;
  const uint64_t milli = Magnitude(milli_);
  if (milli % 1000 != 0) return Signed(negative, milli, "m");
  return Signed(negative, milli / 1000, "");
}

}  // namespace karpenter
