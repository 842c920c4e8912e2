#pragma once
// What happens to a simulated cluster besides Karpenter: the managed node groups it starts with,
// and a timeline of actions — scale a workload, apply or delete an object, shrink a node group a
// few nodes at a time (cordon, PDB-respecting drain, terminate), interrupt the spot capacity of a
// zone, make offerings unavailable, or just note something (e.g. "Cluster Autoscaler scaled to 0").
//
// The file is YAML (or JSON):
//
//   nodeGroups:                       # EKS managed node groups that exist at t=0
//     - name: general                 # required; the eks.amazonaws.com/nodegroup label
//       instanceType: m5.xlarge       # required; from the catalog
//       size: 6                       # required; nodes spread over `zones` round-robin
//       zones: [us-east-1a, us-east-1b, us-east-1c]   # default: every zone of the type
//       capacityType: ON_DEMAND       # ON_DEMAND (default) or SPOT
//       labels: {role: general}       # extra node labels
//   actions:
//     - at: 30s                       # a Go duration from the start
//       scaleNodeGroup: {name: general, size: 2, batch: 2}   # batch: nodes drained at a time
//     - at: 5m
//       scale: {kind: Deployment, namespace: shop, name: web, replicas: 12}
//     - at: 6m
//       apply: {apiVersion: apps/v1, kind: Deployment, ...}
//     - at: 7m
//       delete: {kind: Deployment, namespace: shop, name: web}
//     - at: 10m
//       interruptSpot: {zone: us-east-1a}
//     - at: 12m
//       unavailable: {instanceType: c6i.xlarge, zone: us-east-1a, capacityType: spot}
//     - at: 15m
//       nodeCondition: {nodePool: default, nodes: 1, type: Ready, status: "False"}
//     - at: 0s
//       note: Cluster Autoscaler scaled to 0
//
// A scaleNodeGroup drains `batch` nodes at once and cordons the next as soon as one is gone. With
// `settle: true` it shrinks as `karpenter migrate apply` does (step 8): a batch starts only once
// the last one's nodes are gone and no pod is pending that was not before it, and such node groups
// shrink one after another, in the timeline's order.
// nodeCondition sets a condition on the oldest `nodes` (default 1) Nodes of a NodePool (or of a
// node group: `nodeGroup`), changed now; with the NodeRepair gate, Karpenter replaces its own
// once the condition's toleration is over.
// Errors name the source, the entry (`actions[3]`) and the field.

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/json.h"
#include "common/result.h"

namespace karpenter::simulate {

struct NodeGroupSpec {
  std::string name;
  std::string instance_type;
  int size = 0;
  std::vector<std::string> zones;  // empty: every zone the type is offered in
  bool spot = false;
  std::map<std::string, std::string> labels;
};

struct ScaleNodeGroup {
  std::string name;
  int size = 0;
  int batch = 1;
  bool settle = false;  // each batch settled before the next, one such group at a time
};
struct ScaleWorkload {
  std::string kind;  // Deployment, ReplicaSet, StatefulSet, Job (parallelism)
  std::string namespace_;
  std::string name;
  int replicas = 0;
};
struct ApplyObject {
  Json object;
};
struct DeleteObject {
  std::string kind;
  std::string namespace_;
  std::string name;
};
struct InterruptSpot {
  std::string zone;
};
struct MakeUnavailable {
  std::string instance_type;
  std::string zone;           // empty: every zone
  std::string capacity_type;  // empty: every capacity type
};
struct SetNodeCondition {
  std::string node_pool;  // one of node_pool and node_group
  std::string node_group;
  int nodes = 1;
  std::string type;
  std::string status;
};
struct Note {
  std::string text;
};

using ActionKind = std::variant<ScaleNodeGroup, ScaleWorkload, ApplyObject, DeleteObject,
                                InterruptSpot, MakeUnavailable, SetNodeCondition, Note>;

struct Action {
  std::chrono::milliseconds at{0};
  ActionKind kind;
};

struct Timeline {
  std::vector<NodeGroupSpec> node_groups;
  std::vector<Action> actions;  // sorted by time, stable
};

// Parses a timeline; `source` names the text in errors.
Result<Timeline> ParseTimeline(std::string_view text, std::string_view source);

// One line for the report: "scale node group general to 2 (2 at a time)".
std::string Describe(const ActionKind& action);

}  // namespace karpenter::simulate
