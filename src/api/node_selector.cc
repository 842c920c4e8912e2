#include "api/node_selector.h"

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace karpenter::api {
namespace {

constexpr std::array<std::pair<NodeSelectorOperator, std::string_view>, 8> kOperators = {{
    {NodeSelectorOperator::kIn, "In"},
    {NodeSelectorOperator::kNotIn, "NotIn"},
    {NodeSelectorOperator::kExists, "Exists"},
    {NodeSelectorOperator::kDoesNotExist, "DoesNotExist"},
    {NodeSelectorOperator::kGt, "Gt"},
    {NodeSelectorOperator::kLt, "Lt"},
    {NodeSelectorOperator::kGte, "Gte"},
    {NodeSelectorOperator::kLte, "Lte"},
}};

}  // namespace

std::string_view ToString(NodeSelectorOperator op) {
  for (const auto& [value, name] : kOperators) {
    if (value == op) return name;
  }
  return "Unknown";
}

std::optional<NodeSelectorOperator> ParseNodeSelectorOperator(std::string_view text) {
  for (const auto& [value, name] : kOperators) {
    if (name == text) return value;
  }
  return std::nullopt;
}

}  // namespace karpenter::api
