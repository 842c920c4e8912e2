#include "simulate/kube_scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "common/clock.h"
#include "controllers/cluster_cache.h"
#include "kube/memory/memory_client.h"
#include "support/matchers.h"

namespace karpenter::simulate {
namespace {

using kube::Object;
namespace resources = kube::resources;

class KubeSchedulerTest : public testing::Test {
 protected:
  void SetUp() override {
    for (kube::Informer* informer : cluster_.all()) ASSERT_THAT(informer->Sync(), IsOk());
  }

  void AddNode(const std::string& name, const std::string& cpu) {
    const Object node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", {{"name", name}}},
        {"status",
         {{"allocatable", {{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}}},
          {"conditions", Object::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
    ASSERT_THAT(store_.Create(resources::kNodes, node, {}), IsOk());
  }

  void AddPod(const std::string& name, const std::string& cpu) {
    const Object pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"namespace", "default"}}},
        {"spec",
         {{"containers",
           Object::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", cpu}}}}}}})}}}};
    ASSERT_THAT(store_.Create(resources::kPods, pod, {}), IsOk());
  }

  // The informers catch up and the scheduler runs once; returns how many pods it bound.
  size_t RunOnce() {
    for (kube::Informer* informer : cluster_.all()) {
      EXPECT_THAT(informer->Pump(std::chrono::milliseconds(0)), IsOk());
    }
    Result<size_t> bound = scheduler_.Run();
    EXPECT_THAT(bound, IsOk());
    return bound.ok() ? *bound : 0;
  }

  // The node the pod is bound to; empty while it waits.
  std::string NodeOf(const std::string& pod) {
    Result<Object> object = store_.Get(resources::kPods, "default", pod);
    EXPECT_THAT(object, IsOk());
    return object.ok() ? std::string(kube::StringAt(*object, {"spec", "nodeName"})) : "";
  }

  VirtualClock clock_{TimePoint{}};
  kube::memory::MemoryClient store_{clock_};
  controllers::ClusterCache cluster_{store_};
  KubeScheduler scheduler_{store_, cluster_, clock_};
};

// A pod that fits nowhere waits, marked Unschedulable, while pods that fit are bound around it;
// the events that make room for it — a bound pod going away, a Node arriving — bind it.
TEST_F(KubeSchedulerTest, APodThatFitsNowhereWaitsUntilRoomIsMadeForIt) {
  AddNode("node-1", "2");
  AddPod("big", "1500m");
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("big"), "node-1");

  AddPod("waits", "1");
  EXPECT_EQ(RunOnce(), 0U);
  EXPECT_EQ(NodeOf("waits"), "");
  Result<Object> waiting = store_.Get(resources::kPods, "default", "waits");
  ASSERT_THAT(waiting, IsOk());
  EXPECT_EQ((*waiting)["status"]["conditions"][0]["reason"], "Unschedulable");

  AddPod("small", "100m");
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("small"), "node-1");
  EXPECT_EQ(NodeOf("waits"), "");

  ASSERT_THAT(store_.Delete(resources::kPods, "default", "big", {}), IsOk());
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("waits"), "node-1");

  AddPod("later", "1500m");
  EXPECT_EQ(RunOnce(), 0U);
  AddNode("node-2", "2");
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("later"), "node-2");
}

}  // namespace
}  // namespace karpenter::simulate
