#pragma once
// `karpenter simulate`'s engine: the production controllers (op::Manager: provisioning, NodeClaim
// lifecycle, disruption, termination, garbage collection) on the in-memory API server and the
// simulated cloud, on a virtual clock, with stand-ins for what else runs in a cluster — the
// kube-scheduler and kubelets, the workload controllers, the PodDisruptionBudget controller, EKS
// managed node groups — and the timeline's actions.
//
// The input objects are stored first and the existing cluster settles with Karpenter not yet
// running (pods land on the Nodes there are); that is "before". Karpenter starts at t=0. Time
// then jumps from one moment something is due to the next (a controller's timer, a node booting,
// an action, a retried eviction), each moment run until nothing changes, so an hour of a quiet
// cluster costs a few thousand rounds. The same inputs and seed give the same result.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cloud/instance_type.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/object.h"
#include "simulate/result.h"
#include "simulate/timeline.h"

namespace karpenter::simulate {

struct SimulationInput {
  std::string scenario;               // named in the result
  std::vector<kube::Object> objects;  // decoded and validated manifests or snapshot objects
  std::vector<std::string> ignored;   // objects of kinds not modelled, for the report
  // PriorityClasses pods name that neither the input holds nor its pods' priorities tell: taken
  // as 0 (Simulate fills this in; priority_classes.h).
  std::vector<std::string> assumed_priority_classes;
  // The zones of the subnets Karpenter's EC2NodeClass selects; empty: inferred by Simulate
  // (launch_zones.h), which then sets `launch_zones_inferred`.
  std::vector<std::string> launch_zones;
  bool launch_zones_inferred = false;
  Timeline timeline;
  std::vector<cloud::InstanceType> catalog;
  std::string region = "us-east-1";
  std::chrono::milliseconds duration{std::chrono::minutes(30)};
  std::chrono::milliseconds node_boot_delay{std::chrono::seconds(40)};  // launch → Node Ready
  double node_boot_spread = 0.25;  // each boot within ±this share of the delay (node_booter.h)
  uint64_t seed = 1;
  // The controller's feature gates that change what it does here.
  bool node_repair = false;
  bool spot_to_spot_consolidation = false;
  bool balanced_consolidation = false;
  bool static_capacity = false;
  bool node_overlays = false;
  bool capacity_buffers = false;
  Logger logger;  // the controllers' log; discarded by default
  // Called once, when the run has ended, with the controllers' view of the cluster and the
  // simulated cloud, for a caller that measures the end state further (karpenter-bench end-state).
  std::function<void(const controllers::ClusterCache&, cloud::CloudProvider&)> at_end;
};

// Called now and then with the share of virtual time done, 0 to 1.
using Progress = std::function<void(double done)>;

// Errors: an object the store refuses, a node group or action that names what does not exist.
// Takes the input by value: its objects are released once stored.
Result<SimulationResult> Simulate(SimulationInput input, const Progress& progress = {});

}  // namespace karpenter::simulate
