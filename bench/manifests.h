#pragma once
// YAML manifests the benchmarks that drive `karpenter simulate` (and the controller on a test
// cluster) share: a Deployment of pause pods with given requests.

#include <string>
#include <string_view>

namespace karpenter::bench {

// The NodePool "default" (amd64 Linux of `capacity_type`, no category limit unless
// `more_requirements` adds one: flow mappings, one per line, indented as the others) with
// `disruption` as the flow mapping's fields of its spec.disruption ("consolidationPolicy:
// WhenEmpty, consolidateAfter: 1m"), its EC2NodeClass "default", and the Namespace `name`, which
// also names the discovery tags and the node role.
std::string ClusterYaml(std::string_view name, std::string_view disruption,
                        std::string_view capacity_type = "on-demand",
                        std::string_view more_requirements = "");

// A Deployment `name` in `namespace_` of `replicas` pause pods requesting `cpu` and `memory`, its
// pods labelled app=`name`; `extra` is added to its pod spec (indented for it).
std::string DeploymentYaml(std::string_view name, std::string_view namespace_, int replicas,
                           std::string_view cpu, std::string_view memory,
                           std::string_view extra = "");

}  // namespace karpenter::bench
