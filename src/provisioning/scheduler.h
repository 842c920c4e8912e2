#pragma once
// One provisioning pass (upstream-reference §8) as a pure function: pending pods, NodePools with
// their instance types, existing capacity and daemonsets in; planned NodeClaims, placements on
// existing capacity and unschedulable pods with a reason out. No I/O, no clock, deterministic.
//
// Karpenter's placement packs pods largest first, first fit, each new claim sized for the pod that
// opens it. When that plan makes several claims for pods mostly free of spreads and affinities, a
// second pass queues those pods and sizes their claims as the cheapest fractional fleet for them
// suggests (fleet_guidance.h), and the cheaper plan is kept (karpenter-bench cost measures both
// against the LP and MILP bounds). The kept plan's claims are then repacked pair by pair where
// that saves (repacking.h).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/nodepool.h"
#include "api/pod.h"
#include "api/workloads.h"
#include "cloud/instance_type.h"
#include "scheduling/host_ports.h"
#include "scheduling/requirements.h"
#include "scheduling/volume_topology.h"

namespace karpenter::provisioning {

struct NodePoolOffer {
  const api::NodePool* node_pool = nullptr;
  std::vector<const cloud::InstanceType*> instance_types;
  // Resources already used by the pool's nodes (status.resources), counted against spec.limits.
  api::ResourceList in_use;
};

// A Node, or an in-flight NodeClaim that has no Node yet, with the pods bound or nominated to it.
struct ExistingNode {
  std::string name;
  api::Labels labels;  // for an in-flight NodeClaim: its single-valued requirements
  // In-flight NodeClaims: the full requirements. Nodes: those of their labels, or empty to have
  // the scheduler derive them from `labels`.
  scheduling::Requirements requirements;
  bool in_flight = false;
  std::vector<api::Taint> taints;
  api::ResourceList allocatable;
  std::vector<const api::Pod*> pods;
  // The sum of the pods' scheduling requests (api::SchedulingRequests: a pod slot each) and their
  // host ports, when the caller worked them out once for many passes; derived from `pods`
  // otherwise.
  std::optional<api::ResourceList> requested;
  std::optional<std::vector<scheduling::HostPort>> host_ports;
  // In-flight NodeClaims: pending pods (of SchedulerInput::pods) an earlier pass placed here. Each
  // is tried here before anywhere else, so that a pass while capacity boots keeps the earlier plan
  // instead of packing every pending pod anew (which strands some and launches again for them).
  std::vector<const api::Pod*> nominated;
};

// How pending pods go onto existing nodes.
enum class Placement {
  // Karpenter's simulation: largest pods first, each on the first node with room.
  kKarpenter,
  // kube-scheduler's default profile, for stand-ins of it: pods in the order given (its queue),
  // preferences never filtering, each on the feasible node its resource scoring prefers (least
  // allocated plus balanced allocation, CPU and memory) among the first it finds of as many as
  // percentageOfNodesToScore's adaptive default samples.
  kKubeScheduler,
};

// Upstream's scheduling settings (PREFERENCE_POLICY, MIN_VALUES_POLICY), for provisioning and
// disruption's simulations alike.
struct SchedulingPolicy {
  // Ignore: preferred affinities and ScheduleAnyway spreads count for nothing (Respect, the
  // default: required at first, relaxed one at a time when a pod does not fit).
  bool ignore_preferences = false;
  // BestEffort: a new NodeClaim whose options cannot meet a requirement's minValues launches with
  // the minValues lowered to what they can meet (PlannedNodeClaim::relaxed_min_values says how);
  // Strict, the default: its pods do not schedule there.
  bool min_values_best_effort = false;
};

struct SchedulerInput {
  Placement placement = Placement::kKarpenter;
  std::vector<const api::Pod*> pods;  // pending pods to place
  std::vector<NodePoolOffer> node_pools;
  std::vector<ExistingNode> existing_nodes;
  std::vector<const api::PodTemplate*> daemon_sets;  // the pod templates of DaemonSets
  scheduling::StorageState storage;
  SchedulingPolicy policy;
};

// The DaemonSets whose pods would run on every node of `node_pool` (they tolerate its taints and
// allow its labels and requirements): what those pods request together, and their host ports.
struct DaemonSetLoad {
  api::ResourceList requests;
  std::vector<scheduling::HostPort> host_ports;
};
DaemonSetLoad DaemonSetsOn(const api::NodePool& node_pool,
                           const std::vector<const api::PodTemplate*>& daemon_sets);

struct PlannedNodeClaim {
  std::string node_pool;
  scheduling::Requirements requirements;  // incl. node.kubernetes.io/instance-type In [options]
  std::vector<const cloud::InstanceType*> instance_types;  // cheapest first
  std::vector<std::string> capacity_types;
  std::vector<std::string> zones;
  api::ResourceList requests;  // pods + daemonset overhead
  std::vector<const api::Pod*> pods;
  double price_per_hour = 0;  // cheapest available compatible offering of the first type
  // Under MIN_VALUES_POLICY=BestEffort, each minValues lowered: "<key>: <asked> → <met>".
  std::vector<std::string> relaxed_min_values;
};

struct ExistingPlacement {
  std::string node;
  std::vector<const api::Pod*> pods;
};

struct UnschedulablePod {
  const api::Pod* pod = nullptr;
  std::string reason;
};

struct SchedulerResult {
  std::vector<PlannedNodeClaim> node_claims;
  std::vector<ExistingPlacement> existing;  // only nodes that received pods, in input order
  std::vector<UnschedulablePod> unschedulable;

  // Pods placed, on new NodeClaims and existing capacity.
  size_t Scheduled() const;
  // What the new NodeClaims cost at their cheapest options, USD per hour.
  double PricePerHour() const;
};

SchedulerResult Schedule(const SchedulerInput& input);

// Static capacity (docs/upstream-reference.md §16): up to `count` NodeClaims of NodePool
// `node_pool` (one of input.node_pools) planned from its template alone, for no pods: every
// instance type its requirements allow that has room for the DaemonSets, cheapest first, within
// its limits, with its minValues and capacity reservations honoured as for any claim. Fewer when
// those allow fewer, and then `why` says why.
std::vector<PlannedNodeClaim> PlanTemplateClaims(const SchedulerInput& input,
                                                 std::string_view node_pool, size_t count,
                                                 std::string& why);

struct PreparedCapacity;

// Many scheduling runs over the same capacity — consolidation's what-ifs, hundreds per pass: the
// NodePools' instance types are indexed and priced and the existing nodes' requests summed once,
// and each run copies only the nodes it places pods on.
class Scheduler {
 public:
  // `capacity` (its pods aside) must outlive the scheduler and stay unchanged.
  explicit Scheduler(const SchedulerInput& capacity);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // What Schedule() would answer for the capacity with `pods` pending and without the existing
  // nodes `left_out` marks (parallel to capacity.existing_nodes; empty: none): those take no pods,
  // and their pods count for no spread or affinity.
  SchedulerResult Run(const std::vector<const api::Pod*>& pods,
                      const std::vector<bool>& left_out = {}) const;

 private:
  const SchedulerInput* capacity_;
  std::unique_ptr<const PreparedCapacity> prepared_;
};

}  // namespace karpenter::provisioning
