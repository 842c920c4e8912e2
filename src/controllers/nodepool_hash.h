#pragma once
// The NodePool template hash (annotation karpenter.sh/nodepool-hash on the NodePool and on every
// NodeClaim it creates): when the two differ, the NodeClaim was made from an older template and
// is drifted. Requirements are left out on purpose: whether a NodeClaim still satisfies them is
// checked directly, so widening them drifts nothing; so are expireAfter and
// terminationGracePeriod, which take effect on existing NodeClaims.

#include <string>
#include <string_view>

#include "kube/object.h"

namespace karpenter::controllers {

inline constexpr std::string_view kAnnotationNodePoolHash = "karpenter.sh/nodepool-hash";
inline constexpr std::string_view kAnnotationNodePoolHashVersion =
    "karpenter.sh/nodepool-hash-version";
// Bumped when the hashed fields change, so an upgrade does not drift every node.
inline constexpr std::string_view kNodePoolHashVersion = "v4";

// The hash of a NodePool object's spec.template, as a decimal string.
std::string NodePoolHash(const kube::Object& node_pool);

}  // namespace karpenter::controllers
