#pragma once
// Whether the cluster has settled after a node group shrank by a batch (the seed's step 8: "shrink
// a few instances at a time and watch workloads"): the group is down to its new size, every pod it
// displaced is running again, and no PodDisruptionBudget is short of healthy pods or newly at zero
// allowance. A pure function of the cluster's objects, so `migrate apply` polls it and tests feed
// it states.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "migrate/inventory.h"

namespace karpenter::migrate {

// What was already so before the batch, and so does not count against it.
struct SettleBaseline {
  std::set<std::string, std::less<>> pending;  // uids of pods pending before
  // namespace/name of budgets that allowed no disruption before (maxUnavailable: 0, or short).
  std::set<std::string, std::less<>> blocked_budgets;
};

SettleBaseline Baseline(const ClusterObjects& objects);

// What keeps the batch from having settled, one line each (empty: settled): nodes of `node_group`
// beyond `desired`, pods pending that were not before, budgets short of healthy pods or newly
// allowing no disruption.
std::vector<std::string> Unsettled(const ClusterObjects& objects, const std::string& node_group,
                                   int64_t desired, const SettleBaseline& baseline);

}  // namespace karpenter::migrate
