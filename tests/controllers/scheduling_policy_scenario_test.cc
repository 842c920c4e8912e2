// The scheduling policies on the virtual-clock world. PREFERENCE_POLICY: with Respect (the
// default) the controller gives pods that prefer hostname anti-affinity a node each; with Ignore
// the preference counts for nothing and they share one node. MIN_VALUES_POLICY: a minValues the
// catalog cannot meet leaves the pod pending (Strict) or launches with it lowered, which the
// NodeClaim, an Event and the created series say (BestEffort).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "api/labels.h"
#include "controllers/scenario_world.h"
#include "support/matchers.h"
#include "support/metrics_text.h"

namespace karpenter::scenario {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Not;
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
  World world(7, kCatalog,
              [](op::ManagerOptions& options) { options.scheduling.ignore_preferences = true; });
  StartShy(world);
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(1));
}

// A NodePool asking for 3 instance types to choose from, of the 2 the catalog has.
void StartWithUnmetMinValues(World& world) {
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  Object requirements =
      Object::array({Requirement(api::kLabelCapacityType, {"on-demand"}),
                     {{"key", api::kLabelInstanceType}, {"operator", "Exists"}, {"minValues", 3}}});
  world.Create(resources::kNodePools, NodePool("default", "default", requirements));
  world.Create(resources::kPods, Pod("web-1", "500m"));
  world.Start();
  world.RunFor(seconds(5));
}

TEST(MinValuesPolicyScenarioTest, StrictLeavesThePodPendingAndSaysWhy) {
  World world;
  StartWithUnmetMinValues(world);
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
  EXPECT_THAT(world.EventMessages("web-1", "FailedScheduling"), Not(IsEmpty()));
  EXPECT_THAT(world.EventMessages("web-1", "FailedScheduling").back(),
              HasSubstr("minValues 3 of node.kubernetes.io/instance-type not met"));
}

TEST(MinValuesPolicyScenarioTest, BestEffortLaunchesWithTheMinValuesLowered) {
  World world(7, kCatalog, [](op::ManagerOptions& options) {
    options.scheduling.min_values_best_effort = true;
  });
  StartWithUnmetMinValues(world);
  ASSERT_TRUE(world.PendingPods().empty());
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  ASSERT_THAT(claims, SizeIs(1));
  const std::string name(kube::Name(claims[0]));
  EXPECT_EQ(kube::Annotation(claims[0], api::kAnnotationMinValuesRelaxed), "true");
  bool lowered = false;
  for (const Object& requirement : claims[0]["spec"]["requirements"]) {
    if (requirement.value("key", "") == api::kLabelInstanceType) {
      lowered = requirement.value("minValues", 0) == 2;
    }
  }
  EXPECT_TRUE(lowered) << claims[0]["spec"]["requirements"].dump();
  EXPECT_THAT(world.EventMessages(name, "MinValuesRelaxed"),
              ElementsAre(HasSubstr("node.kubernetes.io/instance-type: 3 → 2")));
  EXPECT_EQ(support::Sum(world.Scrape(), "karpenter_nodeclaims_created_total",
                         {{"min_values_relaxed", "true"}, {"nodepool", "default"}}),
            1);
}

}  // namespace
}  // namespace karpenter::scenario
