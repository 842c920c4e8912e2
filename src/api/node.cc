#include "api/node.h"

#include <algorithm>

namespace karpenter::api {

bool Node::Ready() const {
  return std::any_of(
      status.conditions.begin(), status.conditions.end(),
      [](const NodeCondition& c) { return c.type == "Ready" && c.status == "True"; });
}

}  // namespace karpenter::api
