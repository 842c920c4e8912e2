#pragma once
// The manifests `karpenter plan` uses when given no files: the seed guide's default NodePool and
// EC2NodeClass (cluster "demo") and a handful of typical workloads.

#include <string_view>

namespace karpenter::cli {

std::string_view BuiltinPlanExample();

}  // namespace karpenter::cli
