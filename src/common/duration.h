#pragma once
// Go-style durations as Kubernetes and Karpenter write them: "720h", "1h30m", "90s", "1.5h",
// "300ms", and the Karpenter sentinel "Never".

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace karpenter {

using Seconds = std::chrono::duration<double>;

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration Never() { return Duration(true, {}); }
  static constexpr Duration Of(std::chrono::milliseconds value) { return Duration(false, value); }

  // Accepts a sequence of decimal numbers each with a unit (ns, us, µs, ms, s, m, h), an optional
  // leading sign, "0", and — when allow_never — "Never". Values are int64 nanoseconds as in Go
  // (about 292 years either way), kept to the millisecond (truncated toward zero). The error names
  // the reason only; callers quote the text and add where it came from.
  static Result<Duration> Parse(std::string_view text, bool allow_never = true);

  constexpr bool never() const { return never_; }
  constexpr std::chrono::milliseconds value() const { return value_; }
  double seconds() const { return std::chrono::duration<double>(value_).count(); }

  // Go's canonical form: "720h0m0s", "1m30s", "500ms", "0s", or "Never".
  std::string ToString() const;

  friend constexpr bool operator==(const Duration&, const Duration&) = default;

 private:
  constexpr Duration(bool never, std::chrono::milliseconds value) : never_(never), value_(value) {}
  bool never_ = false;
  std::chrono::milliseconds value_{0};
};

}  // namespace karpenter
