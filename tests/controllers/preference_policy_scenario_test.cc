// PREFERENCE_POLICY on the virtual-clock world: with Respect (the default) the controller gives
// pods that prefer hostname anti-affinity a node each; with Ignore the preference counts for
// nothing and they share one node.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "controllers/scenario_world.h"
#include "support/matchers.h"

namespace karpenter::scenario {
namespace {

using testing::SizeIs;

// Four 300m pods that prefer not to share a node with each other.
void StartShy(World& world) {
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, NodePool("default", "default", kSmallOnly));
  for (int i = 1; i <= 4; ++i) {
    Object pod = Pod("shy-" + std::to_string(i), "300m");
    pod["metadata"]["labels"] = {{"app", "shy"}};
    pod["spec"]["affinity"] = {
        {"podAntiAffinity",
         {{"preferredDuringSchedulingIgnoredDuringExecution",
           {{{"weight", 100},
             {"podAffinityTerm",
              {{"topologyKey", "kubernetes.io/hostname"},
               {"labelSelector", {{"matchLabels", {{"app", "shy"}}}}}}}}}}}}};
    world.Create(resources::kPods, pod);
  }
  world.Start();
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().empty(); }, seconds(30)));
}

TEST(PreferencePolicyScenarioTest, RespectGivesEachShyPodItsOwnNode) {
  World world;
  StartShy(world);
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(4));
}

TEST(PreferencePolicyScenarioTest, IgnorePacksThemOnOneNode) {
  World world(7, kCatalog, [](op::ManagerOptions& options) { options.ignore_preferences = true; });
  StartShy(world);
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(1));
}

}  // namespace
}  // namespace karpenter::scenario
