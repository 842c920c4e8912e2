// Node repair (the NodeRepair gate, docs/upstream-reference.md §15) on the virtual-clock world: a
// Node unhealthy past its policy's toleration has its NodeClaim force-terminated — its pods
// deleted, not evicted, so a PodDisruptionBudget does not hold it — and its pods find a new node;
// more than 20 % of a NodePool unhealthy holds every repair back with an Event; without the gate
// nothing is repaired.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "controllers/scenario_world.h"
#include "support/matchers.h"
#include "support/metrics_text.h"

namespace karpenter::scenario {
namespace {

using controllers::ConditionStatus;
using std::chrono::hours;
using std::chrono::minutes;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::SizeIs;

void RepairOn(op::ManagerOptions& options) { options.node_repair = true; }

// `replicas` pods of 1500m labelled app=web, each on a small node of its own, behind a PDB that
// allows no eviction.
void StartFleet(World& world, int replicas) {
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, NodePool("default", "default", kSmallOnly));
  world.Create(resources::kPodDisruptionBudgets, Pdb(0));
  world.KeepReplicas("web", replicas, "1500m");
  world.Start();
  ASSERT_TRUE(world.RunUntil(
      [&] {
        return world.PendingPods().empty() &&
               world.List(resources::kNodes).size() == static_cast<size_t>(replicas);
      },
      seconds(30)));
}

// Sets condition `type` of Node `name` to `status`, changed at `since` (none when null).
void SetNodeCondition(World& world, const std::string& name, const std::string& type,
                      const std::string& status, std::optional<TimePoint> since) {
  Object node = world.Get(resources::kNodes, name);
  ASSERT_FALSE(node.is_null()) << name;
  Object conditions = Object::array();
  for (const Object& condition : node["status"].value("conditions", Object::array())) {
    if (condition.value("type", "") != type) conditions.push_back(condition);
  }
  Object condition = {{"type", type}, {"status", status}, {"reason", "Test"}};
  if (since) condition["lastTransitionTime"] = FormatTime(*since);
  conditions.push_back(std::move(condition));
  ASSERT_THAT(world.client().Patch(resources::kNodes, "", name, kube::PatchType::kMerge,
                                   {{"status", {{"conditions", std::move(conditions)}}}},
                                   kube::Subresource::kStatus),
              IsOk());
}

std::string ClaimOfNode(World& world, const std::string& node) {
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    if (kube::StringAt(claim, {"status", "nodeName"}) == node)
      return std::string(kube::Name(claim));
  }
  return "";
}

double Counter(World& world, std::string_view name, const support::LabelFilter& labels) {
  return support::Sum(world.Scrape(), name, labels);
}

TEST(NodeRepairScenarioTest, ANotReadyNodeIsReplacedOnceItsTolerationIsOverDespiteItsPdb) {
  World world(7, kCatalog, RepairOn);
  StartFleet(world, 2);
  const std::string sick(kube::Name(world.List(resources::kNodes).front()));
  const std::string claim = ClaimOfNode(world, sick);
  ASSERT_FALSE(claim.empty());
  const TimePoint since = world.Now();
  SetNodeCondition(world, sick, "Ready", "False", since);

  // Ready=False tolerates 30 minutes.
  world.RunUntilTime(since + minutes(29) + seconds(50), seconds(10));
  EXPECT_FALSE(world.Get(resources::kNodeClaims, claim).is_null());
  EXPECT_THAT(world.EventMessages(sick, "NodeRepair"), IsEmpty());

  world.RunUntilTime(since + minutes(30) + seconds(15), seconds(1));
  EXPECT_THAT(world.EventMessages(sick, "NodeRepair"),
              ElementsAre(HasSubstr("Node condition Ready has been False for 30m, past its "
                                    "toleration of 30m")));
  // Gone without a drain: the PDB allows no eviction, and the pod was deleted all the same.
  ASSERT_TRUE(world.RunUntil(
      [&] {
        return world.Get(resources::kNodeClaims, claim).is_null() &&
               world.Get(resources::kNodes, sick).is_null() && world.PendingPods().empty() &&
               world.List(resources::kNodes).size() == 2;
      },
      seconds(60)));
  for (const Object& pod : world.List(resources::kPods)) {
    EXPECT_NE(pod["spec"].value("nodeName", ""), sick);
  }
  EXPECT_EQ(
      Counter(world, "karpenter_nodeclaims_unhealthy_disrupted_total",
              {{"condition", "ready"}, {"nodepool", "default"}, {"capacity_type", "on-demand"}}),
      1);
  EXPECT_EQ(Counter(world, "karpenter_nodeclaims_disrupted_total",
                    {{"reason", "unhealthy"}, {"nodepool", "default"}}),
            1);
}

// Each policy has its own toleration: AcceleratedHardwareReady=False 10 minutes. A condition
// without a lastTransitionTime counts from when repair first saw it. Two of ten Nodes unhealthy is
// within the 20 %.
TEST(NodeRepairScenarioTest,
     EachPolicyHasItsOwnTolerationAndAMissingTransitionCountsFromFirstSeen) {
  World world(7, kCatalog, RepairOn);
  StartFleet(world, 10);
  const std::vector<Object> nodes = world.List(resources::kNodes);
  const std::string accelerator(kube::Name(nodes[0]));
  const std::string runtime(kube::Name(nodes[1]));
  const TimePoint since = world.Now();
  SetNodeCondition(world, accelerator, "AcceleratedHardwareReady", "False", since);
  SetNodeCondition(world, runtime, "ContainerRuntimeReady", "False", std::nullopt);
  // Pressure is not repaired.
  SetNodeCondition(world, runtime, "MemoryPressure", "True", since - hours(2));

  world.RunUntilTime(since + minutes(10) + seconds(15), seconds(5));
  EXPECT_THAT(world.EventMessages(accelerator, "NodeRepair"),
              ElementsAre(HasSubstr("AcceleratedHardwareReady has been False")));
  EXPECT_THAT(world.EventMessages(runtime, "NodeRepair"), IsEmpty());
  world.RunUntilTime(since + minutes(29) + seconds(50), seconds(10));
  EXPECT_THAT(world.EventMessages(runtime, "NodeRepair"), IsEmpty());
  world.RunUntilTime(since + minutes(30) + seconds(30), seconds(5));
  EXPECT_THAT(world.EventMessages(runtime, "NodeRepair"),
              ElementsAre(HasSubstr("ContainerRuntimeReady has been False")));
  EXPECT_EQ(Counter(world, "karpenter_nodeclaims_unhealthy_disrupted_total",
                    {{"condition", "accelerated_hardware_ready"}}),
            1);
  EXPECT_EQ(Counter(world, "karpenter_nodeclaims_unhealthy_disrupted_total",
                    {{"condition", "container_runtime_ready"}}),
            1);
}

// 2 of 5 Nodes unhealthy is more than 20 % (ceil(0.2 × 5) = 1): nothing is repaired and each Node
// due gets a NodeRepairBlocked Event; once one is healthy again, the other is repaired.
TEST(NodeRepairScenarioTest, MoreThanAFifthOfANodePoolUnhealthyBlocksRepairWithAnEvent) {
  World world(7, kCatalog, RepairOn);
  StartFleet(world, 5);
  const std::vector<Object> nodes = world.List(resources::kNodes);
  const std::string first(kube::Name(nodes[0]));
  const std::string second(kube::Name(nodes[1]));
  SetNodeCondition(world, first, "Ready", "Unknown", world.Now() - hours(1));
  SetNodeCondition(world, second, "Ready", "False", world.Now() - hours(1));
  world.RunFor(minutes(5), seconds(5));
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(5));
  for (const std::string& node : {first, second}) {
    EXPECT_THAT(world.EventMessages(node, "NodeRepairBlocked"),
                ElementsAre(HasSubstr("more than 20% of the nodes of NodePool \"default\" are "
                                      "unhealthy (2 of 5)")))
        << node;
    EXPECT_THAT(world.EventMessages(node, "NodeRepair"), IsEmpty()) << node;
  }

  SetNodeCondition(world, second, "Ready", "True", world.Now());
  const std::string claim = ClaimOfNode(world, first);
  ASSERT_TRUE(world.RunUntil([&] { return world.Get(resources::kNodeClaims, claim).is_null(); },
                             seconds(30)));
  EXPECT_THAT(world.EventMessages(first, "NodeRepair"), SizeIs(1));
  EXPECT_FALSE(world.Get(resources::kNodes, second).is_null());
}

TEST(NodeRepairScenarioTest, WithoutTheGateNothingIsRepaired) {
  World world;
  StartFleet(world, 2);
  const std::string sick(kube::Name(world.List(resources::kNodes).front()));
  const std::string claim = ClaimOfNode(world, sick);
  SetNodeCondition(world, sick, "Ready", "False", world.Now() - hours(2));
  world.RunFor(minutes(2), seconds(5));
  EXPECT_FALSE(world.Get(resources::kNodeClaims, claim).is_null());
  EXPECT_THAT(world.EventMessages(sick, "NodeRepair"), IsEmpty());
}

}  // namespace
}  // namespace karpenter::scenario
