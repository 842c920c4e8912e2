#include "simulate/disruption_audit.h"

#include <gtest/gtest.h>

#include <string>

#include "common/clock.h"
#include "kube/memory/memory_client.h"
#include "support/matchers.h"

namespace karpenter::simulate {
namespace {

using kube::Object;
namespace resources = kube::resources;

class DisruptionAuditTest : public testing::Test {
 protected:
  // A Ready pod "web-<i>" labelled app=web, bound to node-1 unless `bound` is false.
  void AddPod(int i, bool bound = true, std::string_view owner_kind = "ReplicaSet") {
    Object pod = {{"apiVersion", "v1"},
                  {"kind", "Pod"},
                  {"metadata",
                   {{"name", "web-" + std::to_string(i)},
                    {"namespace", "default"},
                    {"labels", {{"app", "web"}}},
                    {"ownerReferences", Object::array({{{"apiVersion", "apps/v1"},
                                                        {"kind", owner_kind},
                                                        {"name", "web"},
                                                        {"uid", "u"},
                                                        {"controller", true}}})}}},
                  {"spec", {{"containers", Object::array({{{"name", "c"}, {"image", "i"}}})}}}};
    if (bound) pod["spec"]["nodeName"] = "node-1";
    Result<Object> created = store_.Create(resources::kPods, pod, {});
    ASSERT_THAT(created, IsOk());
    Result<Object> ready = store_.Patch(
        resources::kPods, "default", "web-" + std::to_string(i), kube::PatchType::kMerge,
        {{"status",
          {{"phase", "Running"},
           {"conditions", Object::array({{{"type", "Ready"}, {"status", "True"}}})}}}},
        kube::Subresource::kStatus);
    ASSERT_THAT(ready, IsOk());
  }

  void AddBudget(int min_available) {
    const Object budget = {
        {"apiVersion", "policy/v1"},
        {"kind", "PodDisruptionBudget"},
        {"metadata", {{"name", "web"}, {"namespace", "default"}}},
        {"spec",
         {{"minAvailable", min_available}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
    ASSERT_THAT(store_.Create(resources::kPodDisruptionBudgets, budget, {}), IsOk());
  }

  VirtualClock clock_{TimePoint{}};
  kube::memory::MemoryClient store_{clock_};
  DisruptionAudit audit_{store_};
};

TEST_F(DisruptionAuditTest, EvictionsCountAsDisruptionsAndRefusedOnesDoNot) {
  AddPod(1);
  AddPod(2);
  AddPod(3);
  AddBudget(2);
  ASSERT_THAT(audit_.Evict("default", "web-1", {}), IsOk());
  EXPECT_EQ(audit_.pods_disrupted(), 1u);
  const Status refused = audit_.Evict("default", "web-2", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().status, 429);
  EXPECT_EQ(audit_.pods_disrupted(), 1u);
  EXPECT_EQ(audit_.pdb_violations(), 0u);
}

TEST_F(DisruptionAuditTest, DeletingAProtectedRunningPodIsAViolation) {
  AddPod(1);
  AddPod(2);
  AddBudget(2);
  ASSERT_THAT(audit_.Delete(resources::kPods, "default", "web-1", {}), IsOk());
  EXPECT_EQ(audit_.pods_disrupted(), 1u);
  EXPECT_EQ(audit_.pdb_violations(), 1u);
  EXPECT_FALSE(store_.Get(resources::kPods, "default", "web-1").ok());
}

TEST_F(DisruptionAuditTest, DeletingWhatTheBudgetAllowsIsNoViolation) {
  AddPod(1);
  AddPod(2);
  AddPod(3);
  AddBudget(2);
  ASSERT_THAT(audit_.Delete(resources::kPods, "default", "web-1", {}), IsOk());
  EXPECT_EQ(audit_.pods_disrupted(), 1u);
  EXPECT_EQ(audit_.pdb_violations(), 0u);
}

TEST_F(DisruptionAuditTest, PendingAndDaemonSetPodsAreNotCounted) {
  AddPod(1, /*bound=*/false);
  AddPod(2, /*bound=*/true, "DaemonSet");
  AddBudget(2);
  ASSERT_THAT(audit_.Delete(resources::kPods, "default", "web-1", {}), IsOk());
  ASSERT_THAT(audit_.Delete(resources::kPods, "default", "web-2", {}), IsOk());
  EXPECT_EQ(audit_.pods_disrupted(), 0u);
  EXPECT_EQ(audit_.pdb_violations(), 0u);
}

TEST_F(DisruptionAuditTest, LosingAProtectedPodWithItsNodeIsAViolation) {
  AddPod(1);
  AddBudget(1);
  Result<Object> pod = store_.Get(resources::kPods, "default", "web-1");
  ASSERT_THAT(pod, IsOk());
  audit_.RecordLoss(*pod);
  EXPECT_EQ(audit_.pods_disrupted(), 1u);
  EXPECT_EQ(audit_.pdb_violations(), 1u);
}

TEST_F(DisruptionAuditTest, OtherResourcesPassThrough) {
  const Object node = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n"}}}};
  ASSERT_THAT(audit_.Create(resources::kNodes, node, {}), IsOk());
  EXPECT_THAT(store_.Get(resources::kNodes, "", "n"), IsOk());
  ASSERT_THAT(audit_.Delete(resources::kNodes, "", "n", {}), IsOk());
  EXPECT_FALSE(store_.Get(resources::kNodes, "", "n").ok());
  EXPECT_EQ(audit_.pods_disrupted(), 0u);
}

}  // namespace
}  // namespace karpenter::simulate
