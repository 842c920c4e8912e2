// A NodePool's NodeRegistrationHealthy condition (docs/upstream-reference.md §17) on the
// virtual-clock world: Unknown until a NodeClaim of it registers, True then, Unknown again when
// its template changes, and False when the next NodeClaim's Node never registers.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "api/condition.h"
#include "controllers/scenario_world.h"
#include "support/matchers.h"

namespace karpenter::scenario {
namespace {

using controllers::ConditionStatus;
using std::chrono::minutes;
using testing::HasSubstr;

std::string Health(World& world) {
  return std::string(ConditionStatus(world.Get(resources::kNodePools, "default"),
                                     api::kConditionNodeRegistrationHealthy));
}

TEST(RegistrationHealthScenarioTest, FollowsTheNodePoolsRegistrations) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, NodePool("default", "default", kSmallOnly));
  world.Start();
  world.RunFor(seconds(5));
  EXPECT_EQ(Health(world), api::kConditionUnknown);

  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().empty(); }));
  ASSERT_TRUE(world.RunUntil([&] { return Health(world) == api::kConditionTrue; }));

  // A new template deserves a new verdict.
  ASSERT_THAT(world.client().Patch(
                  resources::kNodePools, "", "default", kube::PatchType::kMerge,
                  {{"spec", {{"template", {{"metadata", {{"labels", {{"team", "a"}}}}}}}}}},
                  kube::Subresource::kNone),
              IsOk());
  ASSERT_TRUE(world.RunUntil([&] { return Health(world) == api::kConditionUnknown; }));

  // The next NodeClaim's Node never reaches the controller: registration times out.
  world.Hold(resources::kNodes);
  world.KeepReplicas("batch", 2, "1500m");
  world.RunFor(minutes(16), seconds(10));
  EXPECT_EQ(Health(world), api::kConditionFalse);
  const Object pool = world.Get(resources::kNodePools, "default");
  EXPECT_THAT(pool.dump(), HasSubstr("RegistrationFailed"));
}

}  // namespace
}  // namespace karpenter::scenario
