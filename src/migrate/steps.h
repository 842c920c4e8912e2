#pragma once
// The seed's nine steps, judged on what `karpenter migrate plan` read (inventory.h): each done, to
// do (with what it would do) or blocked (with why), plus the warnings a careful engineer would want
// before Cluster Autoscaler is retired. A pure function of the inventories; ReadMigrationState
// reads them and judges, as plan, apply (before each step) and verify do.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "migrate/inventory.h"

namespace karpenter::migrate {

enum class StepState { kDone, kToDo, kBlocked };

// "done", "to do", "blocked".
std::string_view StateName(StepState state);

struct Step {
  int number = 0;  // the seed's, 1 to 9
  std::string title;
  StepState state = StepState::kToDo;
  std::vector<std::string> details;  // what was found, what it would do, or why it cannot
};

// The seed's step 8: a node group over several zones keeps 2 nodes, a single-zone one 1 (never
// more than it has).
struct NodeGroupTarget {
  std::string name;
  int64_t desired = 0;
  int64_t target = 0;
};

struct MigrationPlan {
  std::vector<Step> steps;
  std::vector<std::string> warnings;
  // The node group the controller and the critical add-ons are pinned to (the seed's NODEGROUP):
  // the first untainted on-demand one, else the first untainted; "" when there is none.
  std::string controller_node_group;
  std::vector<NodeGroupTarget> targets;
};

MigrationPlan PlanMigration(const AwsInventory& aws, const ClusterInventory& cluster);

// What the account and the cluster are now, and the plan judged on them.
struct MigrationState {
  AwsInventory aws;
  ClusterObjects objects;
  ClusterInventory cluster;
  MigrationPlan plan;
};

// Errors: those of ReadAws, ReadClusterObjects and ReadCluster.
Result<MigrationState> ReadMigrationState(aws::AwsClients& clients, kube::Client& cluster,
                                          const std::string& cluster_name);

}  // namespace karpenter::migrate
