#pragma once
// Generated pods for the scheduling benchmark. `diverse` follows the upstream benchmark: fifths of
// generic pods, zone spread, hostname spread, zone self-affinity and hostname self-anti-affinity;
// requests drawn with a fixed seed. `generic` is unconstrained pods with the same request mix.

#include <cstdint>
#include <string_view>
#include <vector>

#include "api/pod.h"

namespace karpenter::bench {

std::vector<api::Pod> MakeDiversePods(int count, uint64_t seed);
std::vector<api::Pod> MakeGenericPods(int count, uint64_t seed);

}  // namespace karpenter::bench
