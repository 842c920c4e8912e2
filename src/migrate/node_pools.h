#pragma once
// The NodePools and EC2NodeClasses that take over from a cluster's EKS managed node groups
// (`karpenter migrate plan`, the seed's step 6 derived instead of typed): node groups that carry
// the same labels and taints (and the same AMI family and capacity type) become one NodePool that
// keeps them, allows their instance families and architectures, and launches from an EC2NodeClass
// of their AMI family. Where the node groups say nothing the seed's defaults hold: the node role
// KarpenterNodeRole-<cluster>, subnets and security groups found by the karpenter.sh/discovery tag,
// nodes expiring after 720h, 1000 vCPUs per NodePool, and consolidation of empty or underused nodes
// after a minute.

#include <string>
#include <string_view>
#include <vector>

#include "aws/api/eks_api.h"
#include "common/json.h"

namespace karpenter::migrate {

struct NodePoolInputs {
  std::string cluster_name;
  // The version the al2023 alias is pinned to (al2023@<this>), as the seed computes it from the
  // cluster version's recommended AMI; "latest" follows every release.
  std::string alias_version = "latest";
  std::vector<aws::EksNodegroup> node_groups;
};

struct DerivedNodePools {
  std::vector<Json> node_classes;  // EC2NodeClass manifests, named by AMI family
  std::vector<Json> node_pools;    // NodePool manifests, each naming one of node_classes
  // Which node groups each NodePool takes over, in node_pools' order.
  std::vector<std::vector<std::string>> node_groups;
  // What could not be carried over, one line each, naming the node group and why.
  std::vector<std::string> notes;
};

// The version the EC2NodeClass pins: `requested` (--alias-version) when given, else the release
// `migrate plan` read (`read`), else "latest".
std::string PinnedAliasVersion(std::string_view requested, std::string_view read);

// Never fails: a node group that cannot be carried over (a custom AMI, Capacity Blocks) is left
// out with a note.
DerivedNodePools DeriveNodePools(const NodePoolInputs& inputs);

}  // namespace karpenter::migrate
