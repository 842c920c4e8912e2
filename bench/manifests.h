#pragma once
// YAML manifests the benchmarks that drive `karpenter simulate` (and the controller on a test
// cluster) share: a Deployment of pause pods with given requests.

#include <string>
#include <string_view>

namespace karpenter::bench {

// A Deployment `name` in `namespace_` of `replicas` pause pods requesting `cpu` and `memory`, its
// pods labelled app=`name`; `extra` is added to its pod spec (indented for it).
std::string DeploymentYaml(std::string_view name, std::string_view namespace_, int replicas,
                           std::string_view cpu, std::string_view memory,
                           std::string_view extra = "");

}  // namespace karpenter::bench
