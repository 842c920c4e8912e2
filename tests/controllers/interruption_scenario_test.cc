// Interruption on the virtual-clock world: an interrupted NodeClaim's Node is cordoned at once,
// capacity for its pods launches while it is still running them, and the drain starts once that
// capacity is ready (or once the hold runs out); provisioning also plans for the pods of any
// NodeClaim being deleted.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "api/condition.h"
#include "controllers/interruption.h"
#include "controllers/scenario_world.h"
#include "support/matchers.h"

namespace karpenter::scenario {
namespace {

using controllers::ConditionStatus;
using testing::Contains;
using testing::SizeIs;

constexpr std::string_view kWarning = "EC2 Spot Instance Interruption Warning";

// The NodePool "default" of small nodes only, never consolidating (nothing moves but what the
// test does), and three 600m web pods: one small node, nearly full.
void StartOneFullNode(World& world) {
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  Object pool = NodePool("default", "default", kSmallOnly);
  pool["spec"]["disruption"] = {{"consolidationPolicy", "WhenEmpty"},
                                {"consolidateAfter", "Never"}};
  world.Create(resources::kNodePools, pool);
  world.Start();
  world.KeepReplicas("web", 3, "600m");
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }));
  ASSERT_THAT(world.List(resources::kNodeClaims), SizeIs(1));
}

// The web pods bound to `node`, not terminating.
size_t RunningOn(World& world, std::string_view node) {
  size_t running = 0;
  for (const Object& pod : world.List(resources::kPods)) {
    if (pod["spec"].value("nodeName", "") == node && kube::DeletionTimestamp(pod).empty()) {
      ++running;
    }
  }
  return running;
}

// A NodeClaim other than `name` that is initialized.
bool OtherClaimInitialized(World& world, std::string_view name) {
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    if (kube::Name(claim) != name && ConditionStatus(claim, "Initialized") == "True") return true;
  }
  return false;
}

TEST(InterruptionScenarioTest, ReplacementComesUpBeforeTheInterruptedNodeDrains) {
  World world;
  StartOneFullNode(world);
  const Object claim = world.List(resources::kNodeClaims).front();
  const std::string name(kube::Name(claim));
  const std::string node = claim["status"].value("nodeName", "");
  const TimePoint interrupted = world.Now();

  ASSERT_THAT(controllers::DeleteInterruptedNodeClaim(world.client(), claim, kWarning, interrupted),
              IsOk());
  const Object marked = world.Get(resources::kNodeClaims, name);
  EXPECT_FALSE(kube::DeletionTimestamp(marked).empty());
  EXPECT_EQ(ConditionStatus(marked, api::kConditionDisruptionReason), "True");

  // Cordoned at once; its pods stay while their new capacity launches and initializes.
  std::optional<TimePoint> replacement_ready;
  std::optional<TimePoint> drain_started;
  for (int step = 0; step < 600 && !drain_started; ++step) {
    world.Step(milliseconds(100));
    if (!replacement_ready && OtherClaimInitialized(world, name)) replacement_ready = world.Now();
    if (RunningOn(world, node) < 3) drain_started = world.Now();
    if (step == 10) {
      EXPECT_THAT(TaintKeys(world.Get(resources::kNodes, node)),
                  Contains(std::string(api::kTaintDisrupted)));
    }
  }
  ASSERT_TRUE(replacement_ready.has_value());
  ASSERT_TRUE(drain_started.has_value());
  EXPECT_LE(*replacement_ready, *drain_started);
  EXPECT_LT(*drain_started, interrupted + controllers::kInterruptionDrainHold)
      << "the replacement ended the hold, not the hold's end";
  EXPECT_TRUE(world.PendingPods().empty()) << "no pod waited for capacity after its eviction";

  ASSERT_TRUE(world.RunUntil([&] { return world.Get(resources::kNodeClaims, name).is_null(); }));
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }));
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(1));
}

TEST(InterruptionScenarioTest, DrainStartsWhenTheHoldRunsOutWithoutAReplacement) {
  World world;
  StartOneFullNode(world);
  for (const char* zone : {"us-east-1a", "us-east-1b"}) {
    world.cloud().SetOfferingAvailable("small", zone, api::kCapacityTypeOnDemand, false);
  }
  const Object claim = world.List(resources::kNodeClaims).front();
  const std::string node = claim["status"].value("nodeName", "");
  const TimePoint interrupted = world.Now();
  ASSERT_THAT(controllers::DeleteInterruptedNodeClaim(world.client(), claim, kWarning, interrupted),
              IsOk());

  world.RunUntilTime(interrupted + controllers::kInterruptionDrainHold - seconds(1));
  EXPECT_EQ(RunningOn(world, node), 3u) << "held: the pods have nowhere to go yet";
  world.RunUntilTime(interrupted + controllers::kInterruptionDrainHold + seconds(5));
  EXPECT_EQ(RunningOn(world, node), 0u) << "drained once the hold ran out";
}

TEST(InterruptionScenarioTest, NodeClaimDeletedWhileBudgetsHoldItsPodsGetsTheirCapacityLaunched) {
  World world;
  StartOneFullNode(world);
  world.Create(resources::kPodDisruptionBudgets, Pdb(0));
  const Object claim = world.List(resources::kNodeClaims).front();
  const std::string name(kube::Name(claim));
  const std::string node = claim["status"].value("nodeName", "");

  // Not an interruption: the drain starts at once, and the budget refuses every eviction.
  ASSERT_THAT(world.client().Delete(resources::kNodeClaims, "", name, {}), IsOk());
  ASSERT_TRUE(world.RunUntil([&] { return OtherClaimInitialized(world, name); }, seconds(30)));
  EXPECT_EQ(RunningOn(world, node), 3u);
  EXPECT_TRUE(world.PendingPods().empty()) << "launched for pods that were still running";
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(2)) << "one new NodeClaim, not more";
}

}  // namespace
}  // namespace karpenter::scenario
