#pragma once
// NodeOverlays (the NodeOverlay gate) on the instance types of each NodePool: which overlay prices
// which offering and adds which capacity, decided once for all NodePools together (an overlay
// applies everywhere or, when it conflicts, nowhere), then applied to the instance types every
// time a controller asks for them, so availability and price refreshes are never hidden
// (docs/upstream-reference.md §18).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/nodeoverlay.h"
#include "api/object_meta.h"
#include "api/resource_list.h"
#include "cloud/instance_type.h"
#include "common/mutex.h"
#include "common/result.h"

namespace karpenter::cloud {

// GetInstanceTypes fails with this reason for a NodePool the overlays were not evaluated on yet:
// launching at prices the overlays would change is what they exist to prevent.
inline constexpr std::string_view kReasonAwaitingOverlays = "AwaitingNodeOverlayEvaluation";

// Why an overlay is not applied (NodeOverlay ValidationSucceeded False, this reason).
inline constexpr std::string_view kReasonOverlayConflict = "Conflict";

// One NodePool as overlays select it: its name (karpenter.sh/nodepool), its template's labels and
// the instance types its cloud offers it.
struct OverlayTarget {
  std::string node_pool;
  api::Labels template_labels;
  std::shared_ptr<const std::vector<InstanceType>> instance_types;
};

// What the overlays change on one instance type of one NodePool.
struct InstanceTypeChanges {
  // By offering (OfferingKey): the price change of the overlay that prices it.
  std::map<std::string, api::PriceChange, std::less<>> prices;
  api::ResourceList capacity;  // added, or replacing the amount the cloud reports
  bool operator==(const InstanceTypeChanges&) const = default;
};

// By instance type name.
using NodePoolChanges = std::map<std::string, InstanceTypeChanges, std::less<>>;

// An overlay applied nowhere: it touches what another of its weight, taken before it, did.
struct OverlayConflict {
  std::string overlay;
  std::string with;  // the overlay taken before it
  std::string what;  // "the price of m5.large on-demand in us-east-1a for NodePool default"
  bool operator==(const OverlayConflict&) const = default;
};

struct OverlayEvaluation {
  // Every NodePool evaluated, changed or not.
  std::map<std::string, NodePoolChanges, std::less<>> node_pools;
  // By overlay name. Every other overlay given applies wherever its requirements select.
  std::vector<OverlayConflict> conflicts;
  bool operator==(const OverlayEvaluation&) const = default;
};

// Decides what `overlays` (valid ones) change on `targets`. Overlays are taken by weight, heaviest
// first, then by name, last first (upstream's order); the first to price an offering prices it, the
// first to set a resource on an instance type sets it. An overlay that prices an offering, or sets
// a resource, that one of the same weight already did conflicts.
OverlayEvaluation EvaluateOverlays(std::span<const api::NodeOverlay> overlays,
                                   std::span<const OverlayTarget> targets);

// "zone/capacity-type/reservation": how the changes name an offering.
std::string OfferingKey(const Offering& offering);

// A copy of `base` with `changes` applied; `base` itself when nothing changes.
std::shared_ptr<const std::vector<InstanceType>> ApplyOverlayChanges(
    const NodePoolChanges& changes, const std::shared_ptr<const std::vector<InstanceType>>& base);

// The evaluation in force, for the cloud providers to apply. Thread-safe: the overlay controller
// publishes, any controller's GetInstanceTypes reads.
class OverlayStore {
 public:
  // Puts `evaluation` in force; nothing changes (not even the instance types handed out, which
  // controllers compare by address) when it equals the one in force.
  void Publish(OverlayEvaluation evaluation) EXCLUDES(mutex_);
  // Counts the evaluations put in force that changed something.
  uint64_t generation() const EXCLUDES(mutex_);
  // `base`, a NodePool's instance types, with the overlays applied; reason
  // kReasonAwaitingOverlays when the NodePool was not evaluated yet. The result is kept while
  // `base` and the evaluation stay the same.
  Result<std::shared_ptr<const std::vector<InstanceType>>> Apply(
      std::string_view node_pool, const std::shared_ptr<const std::vector<InstanceType>>& base)
      EXCLUDES(mutex_);

 private:
  struct Applied {
    std::shared_ptr<const std::vector<InstanceType>> base;
    std::shared_ptr<const std::vector<InstanceType>> overlaid;
  };
  mutable Mutex mutex_;
  std::shared_ptr<const OverlayEvaluation> evaluation_ GUARDED_BY(mutex_);
  uint64_t generation_ GUARDED_BY(mutex_) = 0;
  std::map<std::string, Applied, std::less<>> applied_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::cloud
