#include "api/label_selector.h"

#include <algorithm>
#include <string>

namespace karpenter::api {
namespace {

bool Contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool Satisfies(const LabelSelectorRequirement& requirement, const Labels& labels) {
  const auto it = labels.find(requirement.key);
  const bool present = it != labels.end();
  switch (requirement.op) {
    case SelectorOperator::kIn:
      return present && Contains(requirement.values, it->second);
    case SelectorOperator::kNotIn:
      return !present || !Contains(requirement.values, it->second);
    case SelectorOperator::kExists:
      return present;
    case SelectorOperator::kDoesNotExist:
      return !present;
  }
  return false;
}

}  // namespace

bool LabelSelector::Matches(const Labels& labels) const {
  for (const auto& [key, value] : match_labels) {
    const auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return std::all_of(
      match_expressions.begin(), match_expressions.end(),
      [&](const LabelSelectorRequirement& requirement) { return Satisfies(requirement, labels); });
}

}  // namespace karpenter::api
