#include "simulate/kube_scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

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

  // A pod; with `owner`, one its ReplicaSet of that name created; with `priority_class`, of that
  // class (AddPriorityClass); with `node`, held to that node by its nodeSelector.
  void AddPod(const std::string& name, const std::string& cpu, const std::string& owner = "",
              const std::string& priority_class = "", const std::string& node = "") {
    Object pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", name}}}}},
        {"spec",
         {{"containers",
           Object::array({{{"name", "c"}, {"resources", {{"requests", {{"cpu", cpu}}}}}}})}}}};
    if (!priority_class.empty()) pod["spec"]["priorityClassName"] = priority_class;
    if (!node.empty()) pod["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", node}};
    if (!owner.empty()) {
      pod["metadata"]["ownerReferences"] = Object::array({{{"apiVersion", "apps/v1"},
                                                           {"kind", "ReplicaSet"},
                                                           {"name", owner},
                                                           {"uid", "uid-" + owner},
                                                           {"controller", true}}});
    }
    ASSERT_THAT(store_.Create(resources::kPods, pod, {}), IsOk());
  }

  void AddPriorityClass(const std::string& name, int value, const std::string& policy) {
    const Object priority_class = {{"apiVersion", "scheduling.k8s.io/v1"},
                                   {"kind", "PriorityClass"},
                                   {"metadata", {{"name", name}}},
                                   {"value", value},
                                   {"preemptionPolicy", policy}};
    ASSERT_THAT(store_.Create(resources::kPriorityClasses, priority_class, {}), IsOk());
  }

  // The pod's status.nominatedNodeName; "gone" when the pod is not there.
  std::string NominatedNodeOf(const std::string& pod) {
    Result<Object> object = store_.Get(resources::kPods, "default", pod);
    return object.ok() ? std::string(kube::StringAt(*object, {"status", "nominatedNodeName"}))
                       : "gone";
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
  std::vector<std::string> preemptions_;  // what the scheduler told of each
  KubeScheduler scheduler_{store_, cluster_, clock_, [this](std::string pod, std::string detail) {
                             preemptions_.push_back(pod + ": " + detail);
                           }};
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

  clock_.Advance(std::chrono::seconds(1));  // its first failure's backoff is over
  ASSERT_THAT(store_.Delete(resources::kPods, "default", "big", {}), IsOk());
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("waits"), "node-1");

  AddPod("later", "1500m");
  EXPECT_EQ(RunOnce(), 0U);
  clock_.Advance(std::chrono::seconds(1));
  AddNode("node-2", "2");
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("later"), "node-2");
}

// kube-scheduler's queue: a pod that failed again and again backs off (1 s, doubling, at most
// 10 s), and while it does, a pod that has just come takes the new node it was waiting for; once
// its backoff is over, it is tried again, first in line (it entered the queue before the
// newcomer), and the scheduler says when that is.
TEST_F(KubeSchedulerTest, APodBackingOffLosesANewNodeToANewerPodAndWinsTheNextOneAfter) {
  AddNode("full", "1");
  AddPod("filler", "1");
  EXPECT_EQ(RunOnce(), 1U);
  AddPod("old", "1");
  EXPECT_EQ(RunOnce(), 0U);                        // failed at 0 s: backs off until 1 s
  EXPECT_EQ(scheduler_.NextWake(), std::nullopt);  // parked: only an event brings it back
  // Each second a Node event brings it back; it fails at 1, 3 (2 s) and 7 s (4 s): until 15 s.
  for (int second = 1; second <= 7; ++second) {
    clock_.Set(TimePoint{} + std::chrono::seconds(second));
    AddNode("tiny-" + std::to_string(second), "100m");
    EXPECT_EQ(RunOnce(), 0U);
  }
  clock_.Set(TimePoint{} + std::chrono::seconds(9));
  AddPod("new", "1");
  AddNode("room-1", "1");
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("new"), "room-1");
  EXPECT_EQ(NodeOf("old"), "");
  EXPECT_EQ(scheduler_.NextWake(), TimePoint{} + std::chrono::seconds(15));

  clock_.Set(TimePoint{} + std::chrono::seconds(14));
  AddPod("newer", "1");
  AddNode("room-2", "1");
  EXPECT_EQ(RunOnce(), 1U);  // the newer one; the old one still backs off
  EXPECT_EQ(NodeOf("newer"), "room-2");
  AddNode("room-3", "1");
  clock_.Set(TimePoint{} + std::chrono::seconds(15));
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("old"), "room-3");
  EXPECT_EQ(scheduler_.NextWake(), std::nullopt);
}

// Two ReplicaSets create their pods at once, each in slow-start batches of 1, 2 and 4: the queue
// holds each batch as one run, the first batches before the second ones, so a node with room for
// four takes both first pods and one ReplicaSet's second batch whole (not a pod of each).
TEST_F(KubeSchedulerTest, ASlowStartBatchReachesTheQueueAsOneRun) {
  AddNode("room-for-4", "4");
  for (int i = 0; i < 7; ++i) {
    AddPod("a-" + std::to_string(i), "1", "a");
    AddPod("b-" + std::to_string(i), "1", "b");
  }
  EXPECT_EQ(RunOnce(), 4U);
  EXPECT_EQ(NodeOf("a-0"), "room-for-4");
  EXPECT_EQ(NodeOf("b-0"), "room-for-4");
  const bool a_second = !NodeOf("a-1").empty();
  EXPECT_EQ(NodeOf("a-2").empty(), !a_second);
  EXPECT_EQ(NodeOf("b-1").empty(), a_second);
  EXPECT_EQ(NodeOf("b-2").empty(), a_second);
  for (int i = 3; i < 7; ++i) {
    EXPECT_EQ(NodeOf("a-" + std::to_string(i)), "");
    EXPECT_EQ(NodeOf("b-" + std::to_string(i)), "");
  }
}

// Pods that fail in one sweep fail a turn apart, as one-at-a-time tries do, and their backoffs
// end as far apart: a node that joins just after the first one's backoff is over goes to that
// pod alone; the next one comes with the next event or the next flush of the backoff queue.
TEST_F(KubeSchedulerTest, PodsFailingInOneSweepComeBackOneTurnApart) {
  AddNode("full", "1");
  AddPod("filler", "1");
  EXPECT_EQ(RunOnce(), 1U);
  AddPod("first", "1");
  AddPod("second", "1");
  EXPECT_EQ(RunOnce(), 0U);  // both fail at 0 s, the second a turn later
  clock_.Set(TimePoint{} + std::chrono::seconds(1) + std::chrono::milliseconds(2));
  AddNode("roomy", "4");
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("first"), "roomy");
  EXPECT_EQ(NodeOf("second"), "");
  // Its backoff is over 3 ms later; the next flush of the backoff queue, at 2 s, brings it.
  EXPECT_EQ(scheduler_.NextWake(), TimePoint{} + std::chrono::seconds(2));
  clock_.Set(TimePoint{} + std::chrono::seconds(1) + std::chrono::milliseconds(5));
  AddNode("other", "1");  // an event after its backoff is over brings it at once
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_NE(NodeOf("second"), "");
}

// Preemption: a pod of higher priority that fits nowhere deletes the fewest pods it must, of the
// lowest priority it can, on one node, and is nominated there; once its backoff is over it binds
// there. The pod of the same node that it can run beside stays.
TEST_F(KubeSchedulerTest, APodOfHigherPriorityPreemptsTheLeastImportantPodsItMust) {
  AddPriorityClass("low", 10, "PreemptLowerPriority");
  AddPriorityClass("mid", 100, "PreemptLowerPriority");
  AddPriorityClass("high", 1000, "PreemptLowerPriority");
  AddNode("node-1", "4");
  AddNode("node-2", "4");
  AddPod("low-1", "1", "", "low");
  AddPod("low-2", "2", "", "low");
  AddPod("mid-1", "3", "", "mid");
  EXPECT_EQ(RunOnce(), 3U);
  ASSERT_EQ(NodeOf("low-1"), NodeOf("low-2"));
  const std::string node = NodeOf("low-1");

  AddPod("urgent", "2", "", "high");
  EXPECT_EQ(RunOnce(), 0U);
  EXPECT_EQ(NominatedNodeOf("urgent"), node);
  EXPECT_EQ(NominatedNodeOf("low-2"), "gone") << "the victim is deleted";
  EXPECT_EQ(NodeOf("low-1"), node) << "1 CPU of low priority can stay beside it";
  EXPECT_FALSE(NodeOf("mid-1").empty());
  ASSERT_EQ(preemptions_.size(), 1U);
  EXPECT_EQ(preemptions_[0],
            "default/urgent: preempted default/low-2 on " + node + " (priority 1000 over 10)");

  clock_.Advance(std::chrono::seconds(1));
  EXPECT_EQ(RunOnce(), 1U);
  EXPECT_EQ(NodeOf("urgent"), node);
}

// A pod held to one node by its nodeSelector preempts there or nowhere.
TEST_F(KubeSchedulerTest, APodHeldToANodePreemptsOnlyThere) {
  AddPriorityClass("low", 10, "PreemptLowerPriority");
  AddPriorityClass("high", 1000, "PreemptLowerPriority");
  AddNode("node-1", "2");
  AddNode("node-2", "2");
  AddPod("low-1", "2", "", "low");
  AddPod("high-1", "2", "", "high");
  EXPECT_EQ(RunOnce(), 2U);
  const std::string low_node = NodeOf("low-1");
  const std::string other = low_node == "node-1" ? "node-2" : "node-1";
  AddPod("held", "1", "", "high", other);
  EXPECT_EQ(RunOnce(), 0U);
  EXPECT_EQ(NodeOf("low-1"), low_node) << "the pod of lower priority is on the other node";
  EXPECT_EQ(NominatedNodeOf("held"), "");
  EXPECT_TRUE(preemptions_.empty());
}

// preemptionPolicy Never: the pod waits for room, and pods of equal priority are never victims.
TEST_F(KubeSchedulerTest, APodThatNeverPreemptsOrMeetsNoLowerPriorityWaits) {
  AddPriorityClass("low", 10, "PreemptLowerPriority");
  AddPriorityClass("patient", 1000, "Never");
  AddNode("node-1", "2");
  AddPod("low-1", "2", "", "low");
  EXPECT_EQ(RunOnce(), 1U);
  AddPod("patient", "1", "", "patient");
  AddPod("peer", "1", "", "low");
  EXPECT_EQ(RunOnce(), 0U);
  EXPECT_EQ(NodeOf("low-1"), "node-1");
  EXPECT_EQ(NominatedNodeOf("patient"), "");
  EXPECT_EQ(NominatedNodeOf("peer"), "");
  EXPECT_TRUE(preemptions_.empty());
}

// Of the pods that could go, one a PodDisruptionBudget protects comes back first: the free one is
// the victim, though it comes first in the node's list.
TEST_F(KubeSchedulerTest, PreemptionSparesAPodItsBudgetProtects) {
  AddPriorityClass("low", 10, "PreemptLowerPriority");
  AddPriorityClass("high", 1000, "PreemptLowerPriority");
  AddNode("node-1", "4");
  AddPod("a-free", "2", "", "low");
  AddPod("b-protected", "2", "", "low");
  EXPECT_EQ(RunOnce(), 2U);
  const Object budget = {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", "b"}, {"namespace", "default"}}},
      {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "b-protected"}}}}}}}};
  Result<Object> created = store_.Create(resources::kPodDisruptionBudgets, budget, {});
  ASSERT_THAT(created, IsOk());
  (*created)["status"] = {{"disruptionsAllowed", 0},
                          {"currentHealthy", 1},
                          {"desiredHealthy", 1},
                          {"expectedPods", 1},
                          {"observedGeneration", 1}};
  ASSERT_THAT(store_.Update(resources::kPodDisruptionBudgets, *created, kube::Subresource::kStatus),
              IsOk());

  AddPod("urgent", "2", "", "high");
  EXPECT_EQ(RunOnce(), 0U);
  EXPECT_EQ(NominatedNodeOf("a-free"), "gone");
  EXPECT_EQ(NodeOf("b-protected"), "node-1");
  EXPECT_EQ(NominatedNodeOf("urgent"), "node-1");
}

}  // namespace
}  // namespace karpenter::simulate
