// Static NodePools (spec.replicas, the StaticCapacity gate; docs/upstream-reference.md §16) on the
// virtual-clock world: the pool keeps its count with no pods at all, never consolidates, takes no
// pending pod's new claim, replaces a node that goes within limits.nodes, and scales down (the
// unlaunched and empty first, budgets aside, PDBs honoured); without the gate it is not Ready.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "controllers/scenario_world.h"
#include "support/matchers.h"

namespace karpenter::scenario {
namespace {

using controllers::ConditionStatus;
using std::chrono::minutes;
using testing::Contains;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::SizeIs;
using testing::UnorderedElementsAre;

void StaticOn(op::ManagerOptions& options) { options.static_capacity = true; }

// A static NodePool "static" of `replicas` over `requirements`, with `limits` unless null.
Object StaticPool(int64_t replicas, const Object& requirements = kOnDemand,
                  const Object& limits = nullptr) {
  Object pool = NodePool("static", "default", requirements, limits);
  pool["spec"]["replicas"] = replicas;
  return pool;
}

std::set<std::string> ClaimNames(World& world, std::string_view pool = "static") {
  std::set<std::string> names;
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    if (kube::Label(claim, api::kLabelNodePool) == pool) names.emplace(kube::Name(claim));
  }
  return names;
}

size_t LiveClaims(World& world, std::string_view pool = "static") {
  size_t live = 0;
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    if (kube::Label(claim, api::kLabelNodePool) == pool && kube::DeletionTimestamp(claim).empty()) {
      ++live;
    }
  }
  return live;
}

void SetReplicas(World& world, int64_t replicas) {
  ASSERT_THAT(world.client().Patch(resources::kNodePools, "", "static", kube::PatchType::kMerge,
                                   {{"spec", {{"replicas", replicas}}}}, kube::Subresource::kNone),
              IsOk());
}

std::string NodeOf(World& world, const std::string& claim) {
  return world.Get(resources::kNodeClaims, claim)["status"].value("nodeName", "");
}

TEST(StaticCapacityScenarioTest, KeepsItsReplicasWithoutPodsAndNeverConsolidates) {
  World world(7, kCatalog, StaticOn);
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, StaticPool(3));
  world.Start();
  ASSERT_TRUE(world.RunUntil([&] { return world.List(resources::kNodes).size() == 3; }));
  const std::set<std::string> claims = ClaimNames(world);
  ASSERT_THAT(claims, SizeIs(3));
  // Launched from the template alone: every type its requirements allow, cheapest first.
  for (const std::string& name : claims) {
    const Object claim = world.Get(resources::kNodeClaims, name);
    Object types;
    for (const Object& requirement : claim["spec"]["requirements"]) {
      if (requirement["key"] == api::kLabelInstanceType) types = requirement["values"];
    }
    EXPECT_EQ(types, Object::array({"small", "large"})) << name;
  }
  // Empty, and consolidateAfter 0s: a dynamic pool would have removed them at once.
  world.RunFor(minutes(10), std::chrono::seconds(5));
  EXPECT_EQ(ClaimNames(world), claims);
  EXPECT_EQ(world.Get(resources::kNodePools, "static")["status"].value("nodes", 0), 3);
}

TEST(StaticCapacityScenarioTest, PendingPodsLandOnItsNodesButNeverLaunchItsClaims) {
  World world(7, kCatalog, StaticOn);
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, StaticPool(1, kSmallOnly));
  world.Create(resources::kNodePools, NodePool("workers", "default", kSmallOnly));
  world.Start();
  ASSERT_TRUE(world.RunUntil([&] { return world.List(resources::kNodes).size() == 1; }));
  // Three pods of 1500m: one fits the static node, the others need nodes of their own, from
  // "workers" although "static" comes first by name.
  world.KeepReplicas("web", 3, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().empty(); }));
  EXPECT_THAT(ClaimNames(world), SizeIs(1));
  EXPECT_THAT(ClaimNames(world, "workers"), SizeIs(2));
  const std::string static_node = NodeOf(world, *ClaimNames(world).begin());
  std::vector<std::string> bound;
  for (const Object& pod : world.List(resources::kPods)) {
    bound.push_back(pod["spec"].value("nodeName", ""));
  }
  EXPECT_THAT(bound, Contains(static_node));
}

// replicas 3 → 1 with a budget that allows no disruption: the user's scale-down goes ahead, empty
// nodes first; the node whose pod a PDB protects is the one kept.
TEST(StaticCapacityScenarioTest, ScalingDownRemovesEmptyNodesFirstWhateverTheBudget) {
  World world(7, kCatalog, StaticOn);
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  Object pool = StaticPool(3, kSmallOnly);
  pool["spec"]["disruption"] = {{"budgets", {{{"nodes", "0"}}}}};
  world.Create(resources::kNodePools, pool);
  world.Create(resources::kPodDisruptionBudgets, Pdb(0));
  world.Start();
  ASSERT_TRUE(world.RunUntil([&] { return world.List(resources::kNodes).size() == 3; }));
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().empty(); }));
  const std::string busy = world.List(resources::kPods).front()["spec"].value("nodeName", "");
  ASSERT_FALSE(busy.empty());

  SetReplicas(world, 1);
  ASSERT_TRUE(world.RunUntil([&] { return world.List(resources::kNodes).size() == 1; }));
  EXPECT_EQ(kube::Name(world.List(resources::kNodes).front()), busy);
  EXPECT_THAT(world.EventMessages("static", "ScaledDown"),
              UnorderedElementsAre(HasSubstr("has 3 NodeClaims for 1 replicas"),
                                   HasSubstr("has 3 NodeClaims for 1 replicas")));
  world.RunFor(minutes(2), std::chrono::seconds(5));
  EXPECT_EQ(LiveClaims(world), 1u);
}

// replicas 2 → 1 where both nodes run a pod a PDB protects: the NodeClaim chosen starts going, but
// its drain waits for the budget; the pool does not launch a replacement for it.
TEST(StaticCapacityScenarioTest, ScalingDownDrainsThroughPodDisruptionBudgets) {
  World world(7, kCatalog, StaticOn);
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, StaticPool(2, kSmallOnly));
  world.Create(resources::kPodDisruptionBudgets, Pdb(0));
  world.Start();
  ASSERT_TRUE(world.RunUntil([&] { return world.List(resources::kNodes).size() == 2; }));
  world.KeepReplicas("web", 2, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().empty(); }));

  SetReplicas(world, 1);
  world.RunFor(minutes(3), std::chrono::seconds(5));
  EXPECT_EQ(LiveClaims(world), 1u);
  EXPECT_THAT(ClaimNames(world), SizeIs(2));  // one draining, held by the PDB
  EXPECT_THAT(world.List(resources::kNodes), SizeIs(2));
  for (const Object& pod : world.List(resources::kPods)) {
    EXPECT_TRUE(kube::DeletionTimestamp(pod).empty()) << kube::Name(pod);
  }

  ASSERT_THAT(world.client().Delete(resources::kPodDisruptionBudgets, "default", "web", {}),
              IsOk());
  ASSERT_TRUE(world.RunUntil([&] { return ClaimNames(world).size() == 1; }));
  EXPECT_THAT(world.List(resources::kNodes), SizeIs(1));
}

// A NodeClaim that goes (a user's delete; expiry and interruption alike) is replaced as soon as
// it starts going — when limits.nodes, which counts it until it is gone, leaves room.
TEST(StaticCapacityScenarioTest, AGoingNodeIsReplacedWithinLimitsNodes) {
  World world(7, kCatalog, StaticOn);
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, StaticPool(2, kSmallOnly, {{"nodes", "2"}}));
  world.Create(resources::kPodDisruptionBudgets, Pdb(0));
  world.Start();
  ASSERT_TRUE(world.RunUntil([&] { return world.List(resources::kNodes).size() == 2; }));
  world.KeepReplicas("web", 2, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().empty(); }));
  const std::set<std::string> before = ClaimNames(world);
  const std::string going = *before.begin();
  ASSERT_THAT(world.client().Delete(resources::kNodeClaims, "", going, {}), IsOk());

  // Its pod's PDB holds the drain: 2 NodeClaims exist, the limit allows no third.
  world.RunFor(minutes(2), std::chrono::seconds(5));
  EXPECT_EQ(ClaimNames(world), before);
  EXPECT_THAT(world.EventMessages("static", "ReplicasNotMet"),
              Contains(HasSubstr("can launch 0 of the 1 NodeClaims its replicas ask for")));

  // Room for one more: the replacement launches while the old node still drains.
  ASSERT_THAT(
      world.client().Patch(resources::kNodePools, "", "static", kube::PatchType::kMerge,
                           {{"spec", {{"limits", {{"nodes", "3"}}}}}}, kube::Subresource::kNone),
      IsOk());
  ASSERT_TRUE(world.RunUntil([&] { return LiveClaims(world) == 2; }));
  EXPECT_THAT(ClaimNames(world), SizeIs(3));
  EXPECT_TRUE(ClaimNames(world).contains(going));
}

// A template change drifts every node; drift replaces them within the budget (one at a time)
// although no other capacity could take their pods — the pool's replacement does — and the pool
// keeps its count throughout.
TEST(StaticCapacityScenarioTest, DriftedNodesAreReplacedWithinTheBudget) {
  World world(7, kCatalog, StaticOn);
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  Object pool = StaticPool(2, kSmallOnly);
  pool["spec"]["disruption"] = {{"budgets", {{{"nodes", "1"}}}}};
  world.Create(resources::kNodePools, pool);
  world.Start();
  ASSERT_TRUE(world.RunUntil([&] { return world.List(resources::kNodes).size() == 2; }));
  world.KeepReplicas("web", 2, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().empty(); }));
  const std::set<std::string> before = ClaimNames(world);
  ASSERT_THAT(world.client().Patch(
                  resources::kNodePools, "", "static", kube::PatchType::kMerge,
                  {{"spec", {{"template", {{"metadata", {{"labels", {{"team", "a"}}}}}}}}}},
                  kube::Subresource::kNone),
              IsOk());
  size_t most_going = 0;
  ASSERT_TRUE(world.RunUntil(
      [&] {
        most_going = std::max(most_going, ClaimNames(world).size() - LiveClaims(world));
        const std::set<std::string> now = ClaimNames(world);
        return now.size() == 2 && world.PendingPods().empty() &&
               std::none_of(now.begin(), now.end(),
                            [&](const auto& name) { return before.contains(name); });
      },
      minutes(10)));
  EXPECT_EQ(most_going, 1u);
  for (const Object& node : world.List(resources::kNodes)) {
    EXPECT_EQ(kube::Label(node, "team"), "a");
  }
}

// What it launched counts before the informer shows it: passes while the NodeClaim watch lags (the
// NodePool's own status writes bring it back again and again) launch nothing more.
TEST(StaticCapacityScenarioTest, ALaggingCacheDoesNotLaunchTwice) {
  World world(7, kCatalog, StaticOn);
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Start();
  world.Hold(resources::kNodeClaims);
  world.Create(resources::kNodePools, StaticPool(2));
  world.RunFor(std::chrono::seconds(30), std::chrono::seconds(1));
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(2));
  SetReplicas(world, 3);
  world.RunFor(std::chrono::seconds(30), std::chrono::seconds(1));
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(3));
  world.Release(resources::kNodeClaims);
  ASSERT_TRUE(world.RunUntil([&] { return world.List(resources::kNodes).size() == 3; }));
  world.RunFor(minutes(1), std::chrono::seconds(5));
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(3));
}

TEST(StaticCapacityScenarioTest, WithoutTheGateItIsNotReadyAndLaunchesNothing) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, StaticPool(2));
  world.Start();
  world.RunFor(minutes(1), std::chrono::seconds(5));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
  const Object pool = world.Get(resources::kNodePools, "static");
  EXPECT_EQ(ConditionStatus(pool, api::kConditionReady), api::kConditionFalse);
  EXPECT_THAT(pool.dump(), HasSubstr("spec.replicas needs the StaticCapacity feature gate"));
}

}  // namespace
}  // namespace karpenter::scenario
