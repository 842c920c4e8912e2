#include "common/duration.h"

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace karpenter {
namespace {

__extension__ using Uint128 = unsigned __int128;

constexpr uint64_t kNanosecond = 1;
constexpr uint64_t kMicrosecond = 1000 * kNanosecond;
constexpr uint64_t kMillisecond = 1000 * kMicrosecond;
constexpr uint64_t kSecond = 1000 * kMillisecond;
constexpr uint64_t kMinute = 60 * kSecond;
constexpr uint64_t kHour = 60 * kMinute;
// Go durations are int64 nanoseconds: the magnitude may reach 2^63 only when negative.
constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
constexpr uint64_t kMaxNegative = kMaxPositive + 1;

constexpr std::string_view kUnits = "ns, us, ms, s, m or h";

struct NamedUnit {
  std::string_view name;
  uint64_t nanoseconds;
};
constexpr NamedUnit kUnitTable[] = {
    {"h", kHour},
    {"m", kMinute},
    {"s", kSecond},
    {"ms", kMillisecond},
    {"us", kMicrosecond},
    {"\u00b5s", kMicrosecond},  // micro sign
    {"\u03bcs", kMicrosecond},  // Greek mu
    {"ns", kNanosecond},
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Errors name the reason only: callers quote the text and say where it came from.
Error Invalid(std::string_view reason) { return Error{std::string(reason)}; }

}  // namespace

Result<Duration> Duration::Parse(std::string_view text, bool allow_never) {
  if (text == "Never") {
    if (allow_never) return Never();
    return Invalid("\"Never\" is not allowed here");
  }
  if (text.empty()) return Invalid("empty");

  std::string_view rest = text;
  bool negative = false;
  if (rest[0] == '+' || rest[0] == '-') {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest == "0") return Duration();
  if (rest.empty()) return Invalid("expected a number after the sign");

  const auto out_of_range = [&] { return Invalid("out of range (about 292 years at most)"); };
  uint64_t total = 0;  // nanoseconds
  while (!rest.empty()) {
    // The number: whole digits, then an optional fraction.
    size_t pos = 0;
    uint64_t whole = 0;
    for (; pos < rest.size() && IsDigit(rest[pos]); ++pos) {
      if (__builtin_mul_overflow(whole, uint64_t{10}, &whole) ||
          __builtin_add_overflow(whole, static_cast<uint64_t>(rest[pos] - '0'), &whole) ||
          whole > kMaxNegative) {
        return out_of_range();
      }
    }
    bool has_digits = pos > 0;
    uint64_t fraction = 0;  // the first 18 fraction digits; later ones are below a nanosecond
    uint64_t scale = 1;
    if (pos < rest.size() && rest[pos] == '.') {
      for (++pos; pos < rest.size() && IsDigit(rest[pos]); ++pos) {
        has_digits = true;
        if (scale < uint64_t{1'000'000'000'000'000'000}) {
          fraction = fraction * 10 + static_cast<uint64_t>(rest[pos] - '0');
          scale *= 10;
        }
      }
    }
    if (!has_digits) return Invalid("expected a number such as 30s, 1.5h or 1h30m");
    rest.remove_prefix(pos);

    // The unit: everything up to the next number.
    size_t unit_end = 0;
    while (unit_end < rest.size() && rest[unit_end] != '.' && !IsDigit(rest[unit_end])) {
      ++unit_end;
    }
    const std::string_view unit_text = rest.substr(0, unit_end);
    if (unit_text.empty()) {
      return Invalid(std::string("missing unit (want ").append(kUnits).append(")"));
    }
    uint64_t unit = 0;
    for (const NamedUnit& candidate : kUnitTable) {
      if (candidate.name == unit_text) unit = candidate.nanoseconds;
    }
    if (unit == 0) {
      return Invalid(std::string("unknown unit \"")
                         .append(unit_text)
                         .append("\" (want ")
                         .append(kUnits)
                         .append(")"));
    }
    rest.remove_prefix(unit_end);

    uint64_t value = 0;
    if (__builtin_mul_overflow(whole, unit, &value)) return out_of_range();
    // Exact, truncated to the nanosecond: fraction < scale, so this is < unit.
    const auto fraction_ns = static_cast<uint64_t>(Uint128{fraction} * unit / scale);
    if (__builtin_add_overflow(value, fraction_ns, &value) ||
        __builtin_add_overflow(total, value, &total) || total > kMaxNegative) {
      return out_of_range();
    }
  }
  if (!negative && total > kMaxPositive) return out_of_range();

  // Stored in milliseconds, truncated toward zero (like Go's Duration.Milliseconds).
  const auto millis = static_cast<int64_t>(total / kMillisecond);
  return Of(std::chrono::milliseconds(negative ? -millis : millis));
}

std::string Duration::ToString() const {
  if (never_) return "Never";
  const int64_t count = value_.count();
  if (count == 0) return "0s";
  std::string out = count < 0 ? "-" : "";
  uint64_t millis =
      count < 0 ? uint64_t{0} - static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
  if (millis < 1000) return out.append(std::to_string(millis)).append("ms");

  const uint64_t hours = millis / 3'600'000;
  millis %= 3'600'000;
  const uint64_t minutes = millis / 60'000;
  millis %= 60'000;
  if (hours > 0) out.append(std::to_string(hours)).append("h");
  if (hours > 0 || minutes > 0) out.append(std::to_string(minutes)).append("m");
  out.append(std::to_string(millis / 1000));
  if (uint64_t fraction = millis % 1000; fraction != 0) {
    // Three digits, trailing zeros dropped: 0.5s, 0.25s, 0.125s.
    char digits[4] = {static_cast<char>('0' + fraction / 100),
                      static_cast<char>('0' + fraction / 10 % 10),
                      static_cast<char>('0' + fraction % 10), '\0'};
    size_t length = 3;
    while (digits[length - 1] == '0') --length;
    out.append(".").append(digits, length);
  }
  return out.append("s");
}

}  // namespace karpenter
