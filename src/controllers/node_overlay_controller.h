#pragma once
// The NodeOverlay controller (the NodeOverlay gate): evaluates every NodeOverlay against every
// NodePool's instance types as the cloud offers them (cloud/node_overlays.h), publishes the result
// for the cloud as controllers see it (cloud/overlaid_cloud_provider.h), and writes each overlay's
// ValidationSucceeded and Ready conditions: False with reason RuntimeValidation when it does not
// decode, Conflict when another of its weight already changes the same price or resource
// (docs/upstream-reference.md §18).

#include <chrono>
#include <string_view>

#include "cloud/cloud_provider.h"
#include "cloud/node_overlays.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/spec_changes.h"
#include "kube/client.h"

namespace karpenter::controllers {

// Its name in the controller-runtime series and logs, as upstream's.
inline constexpr std::string_view kControllerNodeOverlay = "nodeoverlay.controller";

// Why an overlay is not applied (its ValidationSucceeded condition's reason).
inline constexpr std::string_view kReasonOverlayInvalid = "RuntimeValidation";

class NodeOverlayController {
 public:
  // Evaluated again this long after the last pass even when nothing it watches changed: the cloud
  // may offer new types or offerings.
  static constexpr std::chrono::minutes kRefresh{1};

  // `cloud` is the cloud's own (its instance types without overlays); `store` receives the
  // evaluation. All must outlive this. Registers handlers on the cluster's informers: construct
  // before they start.
  NodeOverlayController(ClusterCache& cluster, kube::Client& client, cloud::CloudProvider& cloud,
                        cloud::OverlayStore& store, const Clock& clock, Logger logger);

  // One pass over every overlay and NodePool. A NodePool whose instance types cannot be read stays
  // unevaluated (its GetInstanceTypes waits) and the pass fails, to be retried; the others are
  // published.
  Status Reconcile();
  // Whether an overlay, a NodePool or a node class changed since the last pass began.
  bool InputsChanged() const;

 private:
  // Writes the overlay's conditions when they change.
  Status WriteStatus(const kube::Object& object, bool valid, std::string_view reason,
                     std::string_view message);

  ClusterCache& cluster_;
  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  cloud::OverlayStore& store_;
  const Clock& clock_;
  Logger logger_;
  SpecChanges changes_;
};

}  // namespace karpenter::controllers
