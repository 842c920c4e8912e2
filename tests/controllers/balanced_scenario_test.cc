// Balanced consolidation on the virtual-clock world: a move is made only when the share of the
// NodePool's cost it saves justifies the share of its disruption (pods weighed by
// controller.kubernetes.io/pod-deletion-cost and priority), with ConsolidationApproved/Rejected
// Events and the karpenter_consolidation_* series; without the BalancedConsolidation gate the
// NodePool says so and consolidates as WhenEmptyOrUnderutilized.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "controllers/conditions.h"
#include "controllers/scenario_world.h"
#include "support/metrics_text.h"

namespace karpenter::scenario {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::Contains;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::StartsWith;

// The highest pod-deletion-cost: a pod its owners would hate to see moved (eviction cost 10).
const Object kPrecious = {{"controller.kubernetes.io/pod-deletion-cost", "2147483647"}};

void GateOn(op::ManagerOptions& options) {
  options.disruption.engine.balanced_consolidation = true;
}

void StartBalanced(World& world) {
  Object pool = NodePool("default", "default");
  pool["spec"]["disruption"] = {{"consolidationPolicy", "Balanced"},
                                {"consolidateAfter", "0s"},
                                {"budgets", Object::array({{{"nodes", "100%"}}})}};
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, pool);
  world.Start();
}

// Two large nodes ($0.80/h): one left with a single 500m "web" pod (with `annotations`) — a tiny
// or small node could take it, saving at worst $0.30/h, 37.5 % of the pool's cost — and one full
// with a 7.5-CPU pod that nothing cheaper can run, and that no other node could take with it.
void WebAloneOnALargeNode(World& world, const Object& annotations) {
  world.KeepReplicas("big", 1, "5");
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world) && InstanceTypes(world).size() == 1; }));
  world.KeepReplicas("web", 1, "500m", annotations);
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }));
  world.KeepReplicas("full", 1, "7600m");
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world) && InstanceTypes(world).size() == 2; }));
  ASSERT_EQ(InstanceTypes(world), (std::vector<std::string>{"large", "large"}));
  world.KeepReplicas("big", 0, "5");
}

double Moves(World& world, std::string_view decision) {
  return support::Sum(
      world.Scrape(), "karpenter_consolidation_moves_total",
      {{"decision", std::string(decision)}, {"nodepool", "default"}, {"policy", "Balanced"}});
}

TEST(BalancedScenarioTest, AnOrdinaryPodMovesWhenTheSavingJustifiesIt) {
  World world(7, kThreeSizes, GateOn);
  StartBalanced(world);
  WebAloneOnALargeNode(world, Object::object());
  // 37.5 % of the cost for half the disruption (each node: 1 + its one pod): 0.75 >= 0.5.
  ASSERT_TRUE(world.RunUntil(
      [&] {
        return InstanceTypes(world) == std::vector<std::string>{"large", "small"} ||
               InstanceTypes(world) == std::vector<std::string>{"large", "tiny"};
      },
      minutes(5)));
  EXPECT_GE(Moves(world, "approved"), 1);
  EXPECT_EQ(Moves(world, "rejected"), 0);
  EXPECT_THAT(world.EventMessages(kube::Name(world.List(resources::kNodePools).at(0)),
                                  "ConsolidationApproved"),
              IsEmpty());  // a single node's move is told on the node, not the NodePool
  bool told = false;
  for (const Object& event : world.List(resources::kEvents)) {
    if (event.value("reason", "") == "ConsolidationApproved") {
      EXPECT_THAT(event.value("message", ""), StartsWith("score 0.75 >= threshold 0.50"));
      told = true;
    }
  }
  EXPECT_TRUE(told);
}

TEST(BalancedScenarioTest, APodCostlyToMoveKeepsItsNodeWhereTheSavingIsSmall) {
  World world(7, kThreeSizes, GateOn);
  StartBalanced(world);
  WebAloneOnALargeNode(world, kPrecious);
  // The same saving, but the web pod now weighs 10: 11 of the pool's 13 — 0.44 < 0.5.
  world.RunFor(minutes(5), seconds(1));
  EXPECT_EQ(InstanceTypes(world), (std::vector<std::string>{"large", "large"}));
  EXPECT_GE(Moves(world, "rejected"), 1);
  EXPECT_EQ(Moves(world, "approved"), 0);
  std::vector<std::string> rejected;
  for (const Object& event : world.List(resources::kEvents)) {
    if (event.value("reason", "") == "ConsolidationRejected") {
      rejected.push_back(event["involvedObject"].value("kind", "") + ": " +
                         event.value("message", ""));
    }
  }
  EXPECT_THAT(rejected, Contains(StartsWith("Node: score 0.44 < threshold 0.50")));
  EXPECT_THAT(rejected, Contains(StartsWith("NodeClaim: score 0.44 < threshold 0.50")));
  // The pool has no ConsolidationPolicyUnsupported condition: the gate is on.
  EXPECT_EQ(controllers::ConditionStatus(world.List(resources::kNodePools).at(0),
                                         api::kConditionConsolidationPolicyUnsupported),
            "");
}

TEST(BalancedScenarioTest, WithoutItsGateBalancedSaysSoAndConsolidatesAsUsual) {
  World world(7, kThreeSizes);
  StartBalanced(world);
  WebAloneOnALargeNode(world, kPrecious);
  const Object pool = world.List(resources::kNodePools).at(0);
  EXPECT_EQ(controllers::ConditionStatus(pool, api::kConditionConsolidationPolicyUnsupported),
            "True");
  EXPECT_THAT(pool["status"].dump(), HasSubstr("needs the BalancedConsolidation feature gate"));
  // As WhenEmptyOrUnderutilized: the precious pod moves all the same, and nothing is scored.
  ASSERT_TRUE(world.RunUntil(
      [&] {
        return InstanceTypes(world) != std::vector<std::string>{"large", "large"};
      },
      minutes(5)));
  EXPECT_EQ(Moves(world, "rejected") + Moves(world, "approved"), 0);
}

}  // namespace
}  // namespace karpenter::scenario
