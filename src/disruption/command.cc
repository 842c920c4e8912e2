#include "disruption/command.h"

#include <fmt/format.h>

namespace karpenter::disruption {
namespace {

std::string Nodes(size_t count) { return fmt::format("{} node{}", count, count == 1 ? "" : "s"); }

// "1 c6a.2xlarge", "2 nodes (m5.large, m5.xlarge)".
std::string Replacements(const std::vector<provisioning::PlannedNodeClaim>& replacements) {
  if (replacements.size() == 1) {
    const provisioning::PlannedNodeClaim& claim = replacements.front();
    return claim.instance_types.empty() ? "1 node" : "1 " + claim.instance_types.front()->name;
  }
  std::string types;
  for (const provisioning::PlannedNodeClaim& claim : replacements) {
    if (claim.instance_types.empty()) continue;
    types += (types.empty() ? "" : ", ") + claim.instance_types.front()->name;
  }
  return fmt::format("{} ({})", Nodes(replacements.size()), types);
}

}  // namespace

std::string_view MethodName(Method method) {
  switch (method) {
    case Method::kEmptiness:
      return "emptiness";
    case Method::kDrift:
      return "drift";
    case Method::kMultiNodeConsolidation:
      return "multi-node consolidation";
    case Method::kSingleNodeConsolidation:
      return "single-node consolidation";
  }
  return "";
}

api::DisruptionReason DisruptionReasonOf(Method method) {
  switch (method) {
    case Method::kEmptiness:
      return api::DisruptionReason::kEmpty;
    case Method::kDrift:
      return api::DisruptionReason::kDrifted;
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      return api::DisruptionReason::kUnderutilized;
  }
  return api::DisruptionReason::kUnderutilized;
}

std::string Command::Describe(const Cluster& cluster) const {
  const std::string saving = fmt::format("saving ${:.2f}/h", savings_per_hour);
  switch (method) {
    case Method::kEmptiness:
      return fmt::format("deleting {} with no pods to move, {}", Nodes(candidates.size()), saving);
    case Method::kDrift: {
      const std::string& why = cluster.candidates[candidates.front()].drifted;
      if (replacements.empty()) {
        return fmt::format("deleting {} drifted ({}), their pods fit elsewhere",
                           Nodes(candidates.size()), why);
      }
      return fmt::format("replacing {} drifted ({}) with {}", Nodes(candidates.size()), why,
                         Replacements(replacements));
    }
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      if (replacements.empty()) {
        return fmt::format("consolidating {} away, their pods fit on other nodes, {}",
                           Nodes(candidates.size()), saving);
      }
      return fmt::format("consolidating {} into {}, {}", Nodes(candidates.size()),
                         Replacements(replacements), saving);
  }
  return "";
}

}  // namespace karpenter::disruption
