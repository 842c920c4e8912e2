#pragma once
// A disruption decision: which candidates go, for what reason, by which method, and the
// NodeClaims to launch first so their pods have somewhere to go.

#include <string>
#include <string_view>
#include <vector>

#include "api/nodepool.h"
#include "disruption/cluster.h"
#include "provisioning/scheduler.h"

namespace karpenter::disruption {

enum class Method { kEmptiness, kDrift, kMultiNodeConsolidation, kSingleNodeConsolidation };

std::string_view MethodName(Method method);
api::DisruptionReason DisruptionReasonOf(Method method);

struct Command {
  Method method = Method::kEmptiness;
  std::vector<size_t> candidates;  // indexes into Cluster::candidates
  std::vector<provisioning::PlannedNodeClaim> replacements;
  // What the candidates cost minus what the replacements cost at worst, USD per hour.
  double savings_per_hour = 0;

  // "consolidating 3 nodes into 1 c6a.2xlarge, saving $0.41/h".
  std::string Describe(const Cluster& cluster) const;
};

}  // namespace karpenter::disruption
