#pragma once
// The scenario `karpenter simulate` runs when given no files: the seed guide's migration. A
// cluster "demo" on three EKS managed node groups (m5.xlarge and m5.2xlarge, on-demand, across
// us-east-1a/b/c) runs about forty workloads with PodDisruptionBudgets; coredns, metrics-server
// and the Karpenter controller are pinned to the "system" node group. At t=0 Karpenter is installed
// with the seed's default NodePool and EC2NodeClass and Cluster Autoscaler is scaled to zero; from
// t=1m the node groups shrink a few nodes at a time (cordon, PDB-respecting drain) until only the
// system group's two nodes remain, and Karpenter provisions spot c/m/r capacity of generation 3+
// and consolidates it one minute after it settles.

#include <string>

namespace karpenter::cli {

// Manifests (YAML): NodePool, EC2NodeClass, DaemonSets, Deployments, StatefulSets, PDBs.
std::string BuiltinScenarioManifests();
// The timeline (YAML, simulate/timeline.h): the node groups and the migration's steps.
std::string BuiltinScenarioTimeline();

}  // namespace karpenter::cli
