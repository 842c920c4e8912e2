#pragma once
// The process's peak resident set size, for the benchmarks' JSON.

#include <sys/resource.h>

namespace karpenter::bench {

inline double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace karpenter::bench
