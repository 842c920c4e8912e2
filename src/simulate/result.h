#pragma once
// What a simulation found: the cluster before (t=0) and after (the end), the important events in
// order, samples over time for charts, the final nodes and every disruption decision. Times are
// seconds from the start. The renderers (report.h, html_report.h) only read this.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace karpenter::simulate {

struct ClusterFigures {
  int nodes = 0;
  // (instance type, capacity type) → nodes, e.g. ("m5.xlarge", "on-demand") → 6.
  std::map<std::pair<std::string, std::string>, int> by_type;
  double cpu_requested = 0;  // cores, pods bound to the nodes
  double cpu_allocatable = 0;
  double memory_requested_gib = 0;
  double memory_allocatable_gib = 0;
  double price_per_hour = 0;  // USD, every node at its offering's price
  // What the cheapest fractional fleet for the running pods (DaemonSet pods aside: each node of
  // the fleet keeps room for those of its NodePool) on the types the NodePools allow would cost
  // (provisioning/fractional_fleet.h): no fleet for them costs less. 0: not known (no pods, or no
  // NodePool type covers them).
  double lower_bound_price_per_hour = 0;
  // The nodes Karpenter did not launch (the node groups a migration keeps): what they cost, and
  // the bound above with them kept at that price and their free room used first — what no fleet
  // that keeps them can beat. 0: none, or not known.
  double kept_price_per_hour = 0;
  double kept_lower_bound_price_per_hour = 0;
  int pods = 0;  // running (bound) pods
  int pending_pods = 0;
};

struct TimelineEvent {
  double t = 0;
  std::string event;    // e.g. "Launched", "NodeCordoned", "Disrupted", "Action"
  std::string subject;  // the node, NodeClaim or workload concerned; may be empty
  std::string detail;   // one line for people
};

struct Sample {
  double t = 0;
  int on_demand_nodes = 0;
  int spot_nodes = 0;
  double price_per_hour = 0;
  int pending_pods = 0;
  int pods_disrupted = 0;  // so far: evicted, or lost with their node
};

struct FinalNode {
  std::string name;
  std::string instance_type;
  std::string capacity_type;
  std::string zone;
  std::string node_pool;   // empty unless Karpenter launched it
  std::string node_group;  // empty unless a managed node group owns it
  int pods = 0;
};

// A pod still waiting when the run ended: how long, and why (Karpenter's last FailedScheduling
// Event for it, else kube-scheduler's reason).
struct PendingPod {
  std::string name;  // namespace/name
  double seconds = 0;
  std::string reason;
};

struct Decision {
  double t = 0;
  std::string method;  // emptiness, drift, multi-node or single-node consolidation
  std::vector<std::string> nodes;
  std::vector<std::string> replacements;
  double savings_per_hour = 0;
  std::string description;
};

// How far the forecast may be off (accuracy.h).
struct Accuracy {
  // The largest relative errors measured, node count and $/h (0.14: the forecast was within 14 %
  // of what the controller did on every scenario measured).
  double nodes_error = 0;
  double price_error = 0;
  std::string basis;  // what was measured, for people
  // What this input has that the simulation stands in for or ignores, one sentence each.
  std::vector<std::string> not_modelled;
};

// With CapacityBuffers in the input and their gate on: the same scenario run without them, so the
// report can say what the buffers cost and what waiting they save.
struct WithoutBuffers {
  int nodes = 0;
  double price_per_hour = 0;
  double max_pending_seconds = 0;
};

struct SimulationResult {
  std::string scenario;  // what ran: "built-in migration scenario", the file names
  double virtual_seconds = 0;
  ClusterFigures before;
  ClusterFigures after;
  int pods_disrupted = 0;
  int pdb_violations = 0;
  double max_pending_seconds = 0;  // the longest any pod waited unbound (still-pending ones too)
  int unschedulable_pods = 0;      // pods still pending at the end
  std::vector<PendingPod> still_pending;  // the longest-waiting of them (at most 20)
  std::vector<TimelineEvent> timeline;
  std::vector<Sample> samples;  // one per change, in time order
  std::vector<FinalNode> nodes;
  std::vector<Decision> decisions;
  std::vector<std::string> ignored;  // "Kind/namespace/name" of input objects not modelled
  Accuracy accuracy;
  std::optional<WithoutBuffers> without_buffers;
};

}  // namespace karpenter::simulate
