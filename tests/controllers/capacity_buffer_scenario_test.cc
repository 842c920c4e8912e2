// CapacityBuffers (the CapacityBuffer gate; docs/upstream-reference.md §19) on the virtual-clock
// world: a buffer's copies get a node though no real pod waits; a real pod takes that room at once
// and the room is launched again; consolidation keeps a node that holds buffer room (and removes it
// once the buffer goes); a workload's share and a resource budget set the count; a buffer whose
// pod does not resolve says why and launches nothing; without the gate buffers change nothing.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "controllers/capacity_buffers.h"
#include "controllers/scenario_world.h"
#include "support/matchers.h"

namespace karpenter::scenario {
namespace {

using controllers::ConditionStatus;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::HasSubstr;
using testing::IsEmpty;

void BuffersOn(op::ManagerOptions& options) { options.capacity_buffers = true; }

// A PodTemplate "web" in "default" of one container requesting `cpu`.
Object PodTemplate(std::string_view cpu) {
  return {{"apiVersion", "v1"},
          {"kind", "PodTemplate"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}}},
          {"template",
           {{"metadata", {{"labels", {{"app", "web"}}}}},
            {"spec",
             {{"containers",
               {{{"name", "main"},
                 {"image", "registry.k8s.io/pause:3.10"},
                 {"resources", {{"requests", {{"cpu", cpu}, {"memory", "256Mi"}}}}}}}}}}}}};
}

Object Buffer(std::string_view name, const Object& spec) {
  return {{"apiVersion", "autoscaling.x-k8s.io/v1beta1"},
          {"kind", "CapacityBuffer"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", spec}};
}

Object WebBuffer(int replicas) {
  return Buffer("warm", {{"podTemplateRef", {{"name", "web"}}}, {"replicas", replicas}});
}

size_t LiveNodes(World& world) {
  size_t live = 0;
  for (const Object& node : world.List(resources::kNodes)) {
    if (kube::DeletionTimestamp(node).empty()) ++live;
  }
  return live;
}

Object BufferObject(World& world, std::string_view name = "warm") {
  return world.Get(resources::kCapacityBuffers, name, "default");
}

// The buffer's status; an empty object before the controller wrote one.
Object StatusOf(const Object& buffer) {
  return buffer.is_object() ? buffer.value("status", Object::object()) : Object::object();
}

std::string ConditionReason(const Object& object, std::string_view type) {
  for (const Object& condition : StatusOf(object).value("conditions", Object::array())) {
    if (condition.value("type", "") == type) return condition.value("reason", "");
  }
  return "";
}

void Start(World& world) {
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, NodePool("default", "default", kSmallOnly));
  world.Start();
}

TEST(CapacityBufferScenarioTest, RoomIsLaunchedWithoutPodsAndRefilledWhenTaken) {
  World world(7, kCatalog, BuffersOn);
  world.Create(resources::kPodTemplates, PodTemplate("1500m"));
  world.Create(resources::kCapacityBuffers, WebBuffer(1));
  Start(world);
  ASSERT_TRUE(world.RunUntil([&] { return LiveNodes(world) == 1; }, minutes(2)));
  EXPECT_THAT(world.PendingPods(), IsEmpty());
  ASSERT_TRUE(world.RunUntil(
      [&] {
        return ConditionReason(BufferObject(world), controllers::kConditionProvisioning) ==
               "FitsExistingCapacity";
      },
      minutes(2)));
  const Object buffer = BufferObject(world);
  EXPECT_EQ(StatusOf(buffer).value("replicas", -1), 1);
  EXPECT_EQ(StatusOf(buffer)["podTemplateRef"].value("name", ""), "web");
  EXPECT_EQ(ConditionStatus(buffer, controllers::kConditionReadyForProvisioning),
            api::kConditionTrue);

  // A real pod takes the room at once (no node boots for it), and the room is launched again.
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().empty(); }, seconds(5)));
  EXPECT_EQ(LiveNodes(world), 1U);
  ASSERT_TRUE(world.RunUntil([&] { return LiveNodes(world) == 2; }, minutes(2)));
}

TEST(CapacityBufferScenarioTest, ConsolidationKeepsBufferRoomUntilTheBufferGoes) {
  World world(7, kCatalog, BuffersOn);
  world.Create(resources::kPodTemplates, PodTemplate("1500m"));
  world.Create(resources::kCapacityBuffers, WebBuffer(1));
  Start(world);
  ASSERT_TRUE(world.RunUntil([&] { return LiveNodes(world) == 1; }, minutes(2)));
  // An empty node as far as real pods go, for ten minutes: it stays.
  world.RunFor(minutes(10), seconds(1));
  EXPECT_EQ(LiveNodes(world), 1U);

  ASSERT_THAT(world.client().Delete(resources::kCapacityBuffers, "default", "warm", {}), IsOk());
  ASSERT_TRUE(world.RunUntil([&] { return LiveNodes(world) == 0; }, minutes(5)));
}

TEST(CapacityBufferScenarioTest, AWorkloadsShareAndABudgetSetTheCount) {
  World world(7, kCatalog, BuffersOn);
  Object deployment = {{"apiVersion", "apps/v1"},
                       {"kind", "Deployment"},
                       {"metadata", {{"name", "api"}, {"namespace", "default"}}},
                       {"spec",
                        {{"replicas", 10},
                         {"selector", {{"matchLabels", {{"app", "api"}}}}},
                         {"template", PodTemplate("500m")["template"]}}}};
  deployment["spec"]["template"]["metadata"]["labels"] = {{"app", "api"}};
  world.Create(resources::kDeployments, deployment);
  const Object share = {
      {"scalableRef", {{"apiGroup", "apps"}, {"kind", "Deployment"}, {"name", "api"}}},
      {"percentage", 25}};
  world.Create(resources::kCapacityBuffers, Buffer("share", share));
  Object capped = share;
  capped["limits"] = {{"cpu", "1"}};
  world.Create(resources::kCapacityBuffers, Buffer("capped", capped));
  Start(world);
  ASSERT_TRUE(world.RunUntil([&] {
    return StatusOf(BufferObject(world, "share")).value("replicas", -1) == 3 &&
           StatusOf(BufferObject(world, "capped")).value("replicas", -1) == 2;
  }));
  // 25 % of 10, rounded up; 1 CPU holds two 500m copies. No PodTemplate is named.
  EXPECT_FALSE(StatusOf(BufferObject(world, "share")).contains("podTemplateRef"));
}

TEST(CapacityBufferScenarioTest, ABufferWhosePodDoesNotResolveSaysWhyAndLaunchesNothing) {
  World world(7, kCatalog, BuffersOn);
  world.Create(resources::kCapacityBuffers, WebBuffer(2));
  Start(world);
  ASSERT_TRUE(world.RunUntil([&] {
    return ConditionReason(BufferObject(world), controllers::kConditionReadyForProvisioning) ==
           "PodTemplateNotFound";
  }));
  world.RunFor(minutes(1), seconds(1));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
  EXPECT_EQ(ConditionReason(BufferObject(world), controllers::kConditionProvisioning),
            "NotReadyForProvisioning");

  // The template arrives: within a resync the room is launched.
  world.Create(resources::kPodTemplates, PodTemplate("1500m"));
  ASSERT_TRUE(world.RunUntil([&] { return LiveNodes(world) == 2; }, minutes(2)));
}

TEST(CapacityBufferScenarioTest, WithoutTheGateBuffersChangeNothing) {
  World world(7, kCatalog);
  world.Create(resources::kPodTemplates, PodTemplate("1500m"));
  world.Create(resources::kCapacityBuffers, WebBuffer(1));
  Start(world);
  world.RunFor(minutes(2), seconds(1));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
  EXPECT_TRUE(StatusOf(BufferObject(world)).empty());
}

}  // namespace
}  // namespace karpenter::scenario
