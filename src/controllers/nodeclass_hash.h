#pragma once
// The EC2NodeClass hash (annotation karpenter.k8s.aws/ec2nodeclass-hash on every NodeClaim made
// with it): when the class's current hash differs, the NodeClaim's machine was launched from an
// older class and is drifted. Selector terms are left out: what they resolve to (subnets,
// security groups, AMIs) is compared directly, so a new term that finds the same things drifts
// nothing.

#include <string>
#include <string_view>

#include "kube/object.h"

namespace karpenter::controllers {

inline constexpr std::string_view kAnnotationNodeClassHash = "karpenter.k8s.aws/ec2nodeclass-hash";
inline constexpr std::string_view kAnnotationNodeClassHashVersion =
    "karpenter.k8s.aws/ec2nodeclass-hash-version";
inline constexpr std::string_view kNodeClassHashVersion = "v1";

// The hash of an EC2NodeClass object's spec, as a decimal string.
std::string NodeClassHash(const kube::Object& node_class);

}  // namespace karpenter::controllers
