#pragma once
// The synthetic catalog of the upstream scheduling benchmark, for side-by-side comparison: type i
// (0-based) is "fake-it-<i>" with i+1 vCPUs, 2·(i+1) GiB memory and 10·(i+1) max pods; spot
// offerings in test-zone-1..2 and on-demand in test-zone-1..3, all at 0.1·vCPU + 0.1·GiB USD/hour;
// kube-reserved 100m CPU and 10Mi memory (nothing else); labels instance-type, arch amd64, os
// linux, plus zone and capacity-type over the offerings.
//
// Upstream prices memory per 10^9 bytes (0.1·bytes/1e9) rather than per GiB; both are linear in
// i+1, so the cheapest-first order and every price ratio the scheduler compares are the same.

#include <vector>

#include "cloud/instance_type.h"

namespace karpenter::cloud {

inline constexpr int kFakeCatalogSize = 400;

// `count` types, fake-it-0 .. fake-it-<count-1>, in that order.
std::vector<InstanceType> BuildFakeCatalog(int count = kFakeCatalogSize);

}  // namespace karpenter::cloud
