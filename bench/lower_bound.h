#pragma once
// The fractional (LP relaxation) cost of covering a total CPU and memory demand with instance
// types: min Σ price_i·x_i subject to Σ cpu_i·x_i ≥ C, Σ mem_i·x_i ≥ M, x ≥ 0. With two
// constraints an optimum uses at most two types, so every single type and pair is tried.

#include <vector>

namespace karpenter::bench {

struct Capacity {
  double cpu = 0;     // allocatable vCPU (after daemonset overhead)
  double memory = 0;  // allocatable GiB
  double price = 0;   // cheapest available offering, $/h
};

double LowerBoundPricePerHour(const std::vector<Capacity>& types, double cpu, double memory);

}  // namespace karpenter::bench
