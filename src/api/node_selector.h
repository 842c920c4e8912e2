#pragma once
// Node selector requirements as Pods (node affinity), NodePools and NodeClaims write them. The
// operators are the Kubernetes ones plus Karpenter's Gte/Lte; `min_values` is Karpenter's
// flexibility floor (NodePool/NodeClaim only).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace karpenter::api {

enum class NodeSelectorOperator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt, kGte, kLte };

std::string_view ToString(NodeSelectorOperator op);
std::optional<NodeSelectorOperator> ParseNodeSelectorOperator(std::string_view text);

struct NodeSelectorRequirement {
  std::string key;
  NodeSelectorOperator op = NodeSelectorOperator::kIn;
  std::vector<std::string> values;
  std::optional<int> min_values;
};

// Terms are ORed; the requirements inside one term are ANDed.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
};

struct PreferredSchedulingTerm {
  int weight = 0;
  NodeSelectorTerm preference;
};

}  // namespace karpenter::api
