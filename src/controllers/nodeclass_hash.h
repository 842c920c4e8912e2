#pragma once
// The EC2NodeClass hash (annotation karpenter.k8s.aws/ec2nodeclass-hash on every NodeClaim made
// with it): when the class's current hash differs, the NodeClaim's machine was launched from an
// older class and is drifted. Left out as upstream leaves them out (upstream-reference §6): the
// selector terms — what they resolve to (subnets, security groups, AMIs, capacity reservations)
// is compared directly, so a new term that finds the same things drifts nothing —, ipPrefixCount,
// and amiFamily as written (the family in effect counts, so naming the alias's family changes
// nothing). Absent and empty values are the same, and lists are compared as sets.

#include <string>
#include <string_view>

#include "kube/object.h"

namespace karpenter::controllers {

inline constexpr std::string_view kAnnotationNodeClassHash = "karpenter.k8s.aws/ec2nodeclass-hash";
inline constexpr std::string_view kAnnotationNodeClassHashVersion =
    "karpenter.k8s.aws/ec2nodeclass-hash-version";
// v2: capacity reservation terms, ipPrefixCount and the written amiFamily left out; empty values
// and list order ignored. Not upstream's versions (v1 to v4 are upstream's hashes): a NodeClaim
// stamped by upstream is re-stamped, never compared.
inline constexpr std::string_view kNodeClassHashVersion = "v2-cpp";

// The hash of an EC2NodeClass object's spec, as a decimal string.
std::string NodeClassHash(const kube::Object& node_class);

}  // namespace karpenter::controllers
