#include "lower_bound.h"

#include <algorithm>
#include <limits>

namespace karpenter::bench {

double LowerBoundPricePerHour(const std::vector<Capacity>& types, double cpu, double memory) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<Capacity> usable;
  for (const auto& t : types) {
    if (t.cpu <= 0 || t.memory <= 0 || t.price <= 0) continue;
    usable.push_back(t);
    // One type alone: enough of it to cover the binding constraint.
    best = std::min(best, t.price * std::max(cpu / t.cpu, memory / t.memory));
  }
  for (size_t i = 0; i < usable.size(); ++i) {
    for (size_t j = i + 1; j < usable.size(); ++j) {
      // Both constraints tight: solve the 2×2 system.
      const Capacity& a = usable[i];
      const Capacity& b = usable[j];
      double det = a.cpu * b.memory - b.cpu * a.memory;
      if (det == 0) continue;
      double xa = (cpu * b.memory - b.cpu * memory) / det;
      double xb = (a.cpu * memory - cpu * a.memory) / det;
      if (xa < 0 || xb < 0) continue;
      best = std::min(best, xa * a.price + xb * b.price);
    }
  }
  return best == std::numeric_limits<double>::infinity() ? 0 : best;
}

}  // namespace karpenter::bench
