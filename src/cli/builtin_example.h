#pragma once
// The manifests `karpenter plan` uses when given no files: the seed guide's default NodePool and
// EC2NodeClass (cluster "demo") and a handful of typical workloads.

#include <string>
#include <string_view>

namespace karpenter::cli {

// The seed guide's default NodePool and EC2NodeClass (step 6) for cluster "demo", as YAML.
std::string_view SeedNodePoolManifests();

// The seed's NodePool and EC2NodeClass followed by the example workloads, as YAML.
std::string BuiltinPlanExample();

}  // namespace karpenter::cli
