#pragma once
// A list of names (pods, nodes, NodeClaims) short enough for one line of a report: the first few,
// then how many more.

#include <string>
#include <vector>

namespace karpenter::migrate {

// "a, b, c, d, e, … (7 more)"; every name when there are five or fewer.
std::string NameList(const std::vector<std::string>& names);

}  // namespace karpenter::migrate
