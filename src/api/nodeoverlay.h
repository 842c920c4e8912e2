#pragma once
// karpenter.sh/v1alpha1 NodeOverlay (the NodeOverlay gate): what the scheduling simulation should
// believe about the instance types its requirements select — another price (`price` replaces it,
// `priceAdjustment` adds an amount or a percentage) and extra resources (`capacity`), the
// heaviest overlay winning where several touch the same offering or resource
// (docs/upstream-reference.md §18). Real machines and bills are not changed.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/condition.h"
#include "api/node_selector.h"
#include "api/object_meta.h"
#include "api/resource_list.h"

namespace karpenter::api {

inline constexpr int32_t kMinOverlayWeight = 1;
inline constexpr int32_t kMaxOverlayWeight = 10000;

struct NodeOverlay {
  ObjectMeta metadata;
  struct Spec {
    std::optional<int32_t> weight;  // unset counts as 0: below every overlay that sets one
    // Selects instance types and their offerings (zone, capacity type); empty: every type.
    std::vector<NodeSelectorRequirement> requirements;
    std::optional<std::string> price;             // "0.0832": the price, replaced
    std::optional<std::string> price_adjustment;  // "-10%", "+0.05": changed by this much
    ResourceList capacity;                        // extended resources and hugepages added
  } spec;
  struct Status {
    std::vector<Condition> conditions;
  } status;
};

// Why `text` is not a `price` (an unsigned decimal such as "0.25"); empty when it is one.
std::string OverlayPriceProblem(std::string_view text);
// Why `text` is not a `priceAdjustment`: a signed amount ("+0.05", "-.5"), a positive percentage
// ("+15%") or a negative one above -100% ("-12.5%"), or exactly "-100%"; empty when it is one.
std::string OverlayPriceAdjustmentProblem(std::string_view text);

// An overlay's price change, read once from texts that passed the checks above.
struct PriceChange {
  enum class Kind { kSet, kAdd, kPercent };
  Kind kind = Kind::kSet;
  double amount = 0;

  // `price` after the change; an adjustment never goes below zero.
  double Apply(double price) const;
  bool operator==(const PriceChange&) const = default;
};
// The overlay's price change; nullopt when it sets neither price nor priceAdjustment.
std::optional<PriceChange> OverlayPriceChange(const NodeOverlay::Spec& spec);

// The capacity names an overlay may not set: the ones every node reports itself.
bool IsOverlayRestrictedResource(std::string_view name);

}  // namespace karpenter::api
