// NodeOverlays (the NodeOverlay gate; docs/upstream-reference.md §18) on the virtual-clock world:
// a price overlay changes which type and which zone a launch takes (the bill stays the catalog's),
// a capacity overlay makes pods that ask for an extended resource schedulable, consolidation
// replaces nodes the overlay made dearer, overlays of one weight that change the same price
// conflict (status says so, the later name wins), an overlay that does not decode is reported, and
// without the gate overlays change nothing.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
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
using testing::AllOf;
using testing::Each;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;

void OverlaysOn(op::ManagerOptions& options) { options.node_overlays = true; }

Object Overlay(std::string_view name, const Object& spec) {
  return {{"apiVersion", "karpenter.sh/v1alpha1"},
          {"kind", "NodeOverlay"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

// The instance types of the Nodes, sorted.
std::vector<std::string> NodeTypes(World& world) {
  std::vector<std::string> types;
  for (const Object& node : world.List(resources::kNodes)) {
    if (kube::DeletionTimestamp(node).empty()) {
      types.emplace_back(kube::Label(node, api::kLabelInstanceType));
    }
  }
  std::sort(types.begin(), types.end());
  return types;
}

std::vector<std::string> NodeZones(World& world) {
  std::vector<std::string> zones;
  for (const Object& node : world.List(resources::kNodes)) {
    zones.emplace_back(kube::Label(node, api::kLabelZone));
  }
  return zones;
}

// Starts the world with a NodePool over small and large, `overlays` and `replicas` pods of 1500m
// (one fits a small node, the cheapest at catalog prices).
void StartWith(World& world, const std::vector<Object>& overlays, int replicas) {
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, NodePool("default", "default"));
  for (const Object& overlay : overlays) world.Create(resources::kNodeOverlays, overlay);
  world.KeepReplicas("web", replicas, "1500m");
  world.Start();
}

bool AllRunning(World& world) { return world.PendingPods().empty(); }

// Makes a large node (0.40 at list price) look cheaper than a small one (0.10).
Object LargeDiscount() {
  return Overlay(
      "large-discount",
      {{"requirements", {Requirement(api::kLabelInstanceType, {"large"})}}, {"price", "0.05"}});
}

TEST(NodeOverlayScenarioTest, APriceOverlayChoosesTheTypeButNotTheBill) {
  World without(7, kCatalog, OverlaysOn);
  StartWith(without, {}, 1);
  ASSERT_TRUE(without.RunUntil([&] { return AllRunning(without); }));
  EXPECT_THAT(NodeTypes(without), ElementsAre("small"));

  World world(7, kCatalog, OverlaysOn);
  StartWith(world, {LargeDiscount()}, 1);
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  EXPECT_THAT(NodeTypes(world), ElementsAre("large"));
  // What the machine costs is EC2's price, whatever the overlay made the choice believe.
  Result<std::vector<cloud::Instance>> instances = world.cloud().List();
  ASSERT_THAT(instances, IsOk());
  ASSERT_EQ(instances->size(), 1u);
  EXPECT_DOUBLE_EQ(instances->front().price, 0.40);
  const Object overlay = world.Get(resources::kNodeOverlays, "large-discount");
  EXPECT_EQ(ConditionStatus(overlay, api::kConditionValidationSucceeded), api::kConditionTrue);
  EXPECT_EQ(ConditionStatus(overlay, api::kConditionReady), api::kConditionTrue);
}

TEST(NodeOverlayScenarioTest, ZoneAndCapacityTypeSelectOfferings) {
  World world(7, kCatalog, OverlaysOn);
  StartWith(world,
            {Overlay("cheap-b", {{"requirements",
                                  {Requirement(api::kLabelZone, {"us-east-1b"}),
                                   Requirement(api::kLabelCapacityType, {"on-demand"})}},
                                 {"priceAdjustment", "-50%"}})},
            3);
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  EXPECT_THAT(NodeZones(world), AllOf(testing::Not(IsEmpty()), Each("us-east-1b")));
}

Object FusePod(std::string_view name) {
  Object pod = Pod(name, "500m");
  pod["spec"]["containers"][0]["resources"]["requests"]["smarter-devices/fuse"] = "1";
  pod["spec"]["containers"][0]["resources"]["limits"] = {{"smarter-devices/fuse", "1"}};
  return pod;
}

TEST(NodeOverlayScenarioTest, CapacityOverlayMakesExtendedResourcePodsSchedulable) {
  World world(7, kCatalog, OverlaysOn);
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, NodePool("default", "default"));
  world.Create(resources::kPods, FusePod("fuse-1"));
  world.Start();
  world.RunFor(std::chrono::seconds(30));
  // No type reports the resource: nothing to launch.
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());

  world.Create(resources::kNodeOverlays,
               Overlay("fuse", {{"requirements", {Requirement(api::kLabelInstanceType, {"large"})}},
                                {"capacity", {{"smarter-devices/fuse", "4"}}}}));
  ASSERT_TRUE(world.RunUntil([&] { return !world.List(resources::kNodeClaims).empty(); }));
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  ASSERT_EQ(claims.size(), 1u);
  ASSERT_TRUE(world.RunUntil([&] {
    return !world.Get(resources::kNodeClaims, kube::Name(claims[0]))["status"]["capacity"]
                .is_null();
  }));
  const Object claim = world.Get(resources::kNodeClaims, kube::Name(claims[0]));
  EXPECT_EQ(claim["status"]["capacity"].value("smarter-devices/fuse", ""), "4");
  EXPECT_EQ(kube::Label(claim, api::kLabelInstanceType), "large");
}

TEST(NodeOverlayScenarioTest, ConsolidationReplacesNodesAnOverlayMadeDearer) {
  World world(7, kCatalog, OverlaysOn);
  StartWith(world, {}, 1);
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  ASSERT_THAT(NodeTypes(world), ElementsAre("small"));

  // A licence fee per small node: it now costs more than a large one.
  world.Create(
      resources::kNodeOverlays,
      Overlay("small-fee", {{"requirements", {Requirement(api::kLabelInstanceType, {"small"})}},
                            {"priceAdjustment", "+0.5"}}));
  ASSERT_TRUE(world.RunUntil(
      [&] { return NodeTypes(world) == std::vector<std::string>{"large"} && AllRunning(world); },
      minutes(10)));
}

TEST(NodeOverlayScenarioTest, EqualWeightsConflictAndTheLaterNameWins) {
  World world(7, kCatalog, OverlaysOn);
  const Object large = Object::array({Requirement(api::kLabelInstanceType, {"large"})});
  StartWith(
      world,
      {Overlay("overlay-a", {{"weight", 10}, {"requirements", large}, {"price", "0.01"}}),
       Overlay("overlay-b",
               {{"weight", 10}, {"requirements", Object::array()}, {"priceAdjustment", "+10%"}})},
      1);
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  const Object loser = world.Get(resources::kNodeOverlays, "overlay-a");
  EXPECT_EQ(ConditionStatus(loser, api::kConditionValidationSucceeded), api::kConditionFalse);
  EXPECT_EQ(ConditionStatus(loser, api::kConditionReady), api::kConditionFalse);
  const Object* condition = nullptr;
  for (const Object& c : loser["status"]["conditions"]) {
    if (c.value("type", "") == api::kConditionValidationSucceeded) condition = &c;
  }
  ASSERT_NE(condition, nullptr);
  EXPECT_EQ(condition->value("reason", ""), "Conflict");
  EXPECT_THAT(condition->value("message", ""),
              AllOf(HasSubstr("overlay-b"), HasSubstr("the price of large")));
  EXPECT_EQ(ConditionStatus(world.Get(resources::kNodeOverlays, "overlay-b"),
                            api::kConditionValidationSucceeded),
            api::kConditionTrue);
  // overlay-a's price would have made large the choice: it applied nowhere.
  EXPECT_THAT(NodeTypes(world), ElementsAre("small"));

  // Without the winner, the other applies.
  ASSERT_THAT(world.client().Delete(resources::kNodeOverlays, "", "overlay-b", {}), IsOk());
  ASSERT_TRUE(world.RunUntil([&] {
    return ConditionStatus(world.Get(resources::kNodeOverlays, "overlay-a"),
                           api::kConditionValidationSucceeded) == api::kConditionTrue;
  }));
}

TEST(NodeOverlayScenarioTest, AnOverlayThatDoesNotDecodeIsReportedAndChangesNothing) {
  World world(7, kCatalog, OverlaysOn);
  // The in-memory API server has no CRD schema: what a webhook-less cluster might let through.
  StartWith(world,
            {Overlay("unsigned", {{"requirements", Object::array()}, {"priceAdjustment", "10%"}})},
            1);
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  const Object overlay = world.Get(resources::kNodeOverlays, "unsigned");
  EXPECT_EQ(ConditionStatus(overlay, api::kConditionValidationSucceeded), api::kConditionFalse);
  std::string message;
  for (const Object& c : overlay["status"]["conditions"]) {
    if (c.value("type", "") == api::kConditionReady) {
      EXPECT_EQ(c.value("reason", ""), "RuntimeValidation");
      message = c.value("message", "");
    }
  }
  EXPECT_THAT(message, HasSubstr("spec.priceAdjustment: invalid priceAdjustment \"10%\""));
}

TEST(NodeOverlayScenarioTest, WithoutTheGateOverlaysChangeNothing) {
  World world(7, kCatalog);
  StartWith(world, {LargeDiscount()}, 1);
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  EXPECT_THAT(NodeTypes(world), ElementsAre("small"));
  EXPECT_TRUE(world.Get(resources::kNodeOverlays, "large-discount")["status"].is_null());
}

}  // namespace
}  // namespace karpenter::scenario
