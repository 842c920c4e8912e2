#pragma once
// Repacking a plan's NodeClaims two at a time, so that each pair costs less.
//
// Why: claims are filled one after another as pods arrive in the queue's order, and a claim is
// bought as the cheapest type that fits what it got. Where pods are large against a node (a
// tenth of one, say) and the cheap types come in unequal proportions of CPU and memory (spot
// prices do not follow the on-demand ladder), that leaves claims full in one resource and half
// empty in the other, on types the cheapest fractional fleet does not buy at all. Improving
// pairs is the classic local search for bin packing: two claims' pods are put into one claim when
// one type holds them for less, or split anew — one claim filled to a type, the rest bought as the
// cheapest type that holds it — when that costs less than the two did. A pair is never replaced
// by more claims than it had, so the plan launches no more nodes for it (a plan of many small
// claims launched more nodes for the same end state in `karpenter-bench simulate`). Pairs whose
// cost is already at the fractional fleet's bound for their pods are skipped.

#include <array>
#include <cstdint>
#include <vector>

namespace karpenter::provisioning {

// CPU, memory, ephemeral storage and pod slots, each in thousandths of its unit (Quantity's
// milli): what a pod asks of a node, or what a type leaves for pods.
using PackShape = std::array<int64_t, 4>;

struct PackType {
  PackShape room;
  double price = 0;  // $/h
};

// `bins` lists, per claim, the indexes into `items` of its pods; each must fit one of `types`.
// Returns the bins after repacking: no more of them, each holding pods some type fits, and
// together no dearer (bought at the cheapest type that fits each). Deterministic; bounded by
// `max_sweeps` passes over the pairs.
std::vector<std::vector<int>> RepackPairs(const std::vector<PackShape>& items,
                                          const std::vector<PackType>& types,
                                          std::vector<std::vector<int>> bins, int max_sweeps = 4);

}  // namespace karpenter::provisioning
