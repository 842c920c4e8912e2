#pragma once
// Counting a disrupted NodeClaim as upstream does: karpenter_nodeclaims_disrupted_total, and
// karpenter_pods_disruption_initiated_total by the pods on its node that must be rescheduled
// (bound, not finished, not a DaemonSet's or a mirror pod), with its NodePool's consolidation
// policy and its termination mode (no terminationGracePeriod: graceful; a positive one: eventual;
// zero: forceful). Called by every controller that deletes a NodeClaim for a reason of its own.

#include <string_view>

#include "controllers/cluster_cache.h"
#include "controllers/metrics.h"
#include "kube/object.h"

namespace karpenter::controllers {

// `reason` in snake case, as NodeClaimDisrupted takes it.
void CountDisrupted(Metrics& metrics, const ClusterCache& cluster, const kube::Object& node_claim,
                    std::string_view reason);

}  // namespace karpenter::controllers
