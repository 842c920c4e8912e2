#pragma once
// metav1.LabelSelector: matchLabels ANDed with matchExpressions (In, NotIn, Exists, DoesNotExist).
// An empty selector matches everything; a missing (nullopt) selector matches nothing.

#include <string>
#include <vector>

#include "api/object_meta.h"

namespace karpenter::api {

enum class SelectorOperator { kIn, kNotIn, kExists, kDoesNotExist };

struct LabelSelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;
  std::vector<std::string> values;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  bool Matches(const Labels& labels) const;
  bool empty() const { return match_labels.empty() && match_expressions.empty(); }
};

}  // namespace karpenter::api
