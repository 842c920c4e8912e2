#include "simulate/figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace karpenter::simulate {
namespace {

constexpr double kMaxSeconds = 1e12;  // keeps absurd inputs within int64_t
constexpr double kMaxPercent = 1e12;

}  // namespace

double Finite(double value) { return std::isfinite(value) ? value : 0; }

std::string Money(double usd) {
  usd = Finite(usd);
  return usd <= -0.005 ? fmt::format("{}${:.2f}", kMinus, -usd) : fmt::format("${:.2f}", usd);
}

std::string Delta(int64_t change) {
  if (change > 0) return fmt::format("+{}", change);
  if (change < 0) return fmt::format("{}{}", kMinus, -change);
  return "0";
}

std::string PercentChange(double before, double after) {
  before = Finite(before);
  if (before <= 0) return {};
  const double percent = (Finite(after) - before) / before * 100;
  return Delta(std::llround(std::clamp(Finite(percent), -kMaxPercent, kMaxPercent))) + "%";
}

std::string Plural(int64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

std::string MinutesSeconds(double seconds) {
  const int64_t total = std::llround(std::clamp(Finite(seconds), 0.0, kMaxSeconds));
  return fmt::format("{}:{:02}", total / 60, total % 60);
}

std::string PlusMinus(double error) {
  return error > 0 ? fmt::format("±{:.0f} %", 100 * Finite(error)) : "";
}

std::string Verdict(const SimulationResult& result) {
  std::string text = fmt::format("{}/h → {}/h", Money(result.before.price_per_hour),
                                 Money(result.after.price_per_hour));
  if (const std::string change =
          PercentChange(result.before.price_per_hour, result.after.price_per_hour);
      !change.empty()) {
    text += fmt::format(" ({})", change);
  }
  text += fmt::format(", {}, max pending {:.0f} s", Plural(result.pdb_violations, "PDB violation"),
                      Finite(result.max_pending_seconds));
  if (result.unschedulable_pods > 0) {
    text += fmt::format(", {}", Plural(result.unschedulable_pods, "unschedulable pod"));
  }
  return text;
}

}  // namespace karpenter::simulate
