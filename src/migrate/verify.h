#pragma once
// `karpenter migrate verify`: the seed's step 9 — Karpenter's nodes joining while the node groups'
// leave — and what a careful engineer checks before calling the migration done. A pure function
// of what `migrate plan` reads.

#include <string>
#include <vector>

#include "migrate/inventory.h"
#include "migrate/steps.h"

namespace karpenter::migrate {

struct Check {
  std::string name;
  bool ok = false;
  std::string detail;  // what was found
};

struct VerifyInputs {
  const AwsInventory* aws = nullptr;
  const ClusterObjects* objects = nullptr;
  const ClusterInventory* cluster = nullptr;
  const MigrationPlan* plan = nullptr;
  std::string namespace_ = "kube-system";  // Karpenter's
};

// Each check, passed or not: steps 1 to 8 done (Cluster Autoscaler at 0, node groups at their
// targets among them); the controller's pods running on node-group nodes; every NodeClaim Ready;
// Karpenter's nodes labelled with their NodePool and instance type; no pod pending; whether
// interruptions reach the controller (a queue named after the cluster, and EventBridge rules that
// send it spot interruptions, rebalance recommendations, state changes and scheduled events).
std::vector<Check> VerifyMigration(const VerifyInputs& inputs);

}  // namespace karpenter::migrate
