// The provisioner's building blocks: the batching window and which pods it provisions for. The
// provisioning pass itself runs in scenario_test.cc.

#include "controllers/provisioner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace karpenter::controllers {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr MonoTime kT0{seconds(1767225600)};
constexpr BatchOptions kOptions{milliseconds(1000), milliseconds(10000)};

TEST(BatcherTest, ClosedUntilTriggered) {
  Batcher batcher(kOptions);
  EXPECT_FALSE(batcher.Ready(kT0));
  EXPECT_FALSE(batcher.Ready(kT0 + seconds(3600)));
  EXPECT_EQ(batcher.Deadline(), std::nullopt);
}

TEST(BatcherTest, ClosesAfterTheIdleWindowAndResets) {
  Batcher batcher(kOptions);
  batcher.Trigger(kT0);
  EXPECT_EQ(batcher.Deadline(), kT0 + milliseconds(1000));
  EXPECT_FALSE(batcher.Ready(kT0));
  EXPECT_FALSE(batcher.Ready(kT0 + milliseconds(999)));
  EXPECT_TRUE(batcher.Ready(kT0 + milliseconds(1000)));
  // Ready once per window.
  EXPECT_FALSE(batcher.Ready(kT0 + milliseconds(1000)));
  EXPECT_FALSE(batcher.Ready(kT0 + seconds(60)));
  EXPECT_EQ(batcher.Deadline(), std::nullopt);
}

TEST(BatcherTest, EachTriggerExtendsTheIdleWindow) {
  Batcher batcher(kOptions);
  batcher.Trigger(kT0);
  batcher.Trigger(kT0 + milliseconds(600));
  EXPECT_EQ(batcher.Deadline(), kT0 + milliseconds(1600));
  EXPECT_FALSE(batcher.Ready(kT0 + milliseconds(1000)));
  batcher.Trigger(kT0 + milliseconds(1200));
  EXPECT_FALSE(batcher.Ready(kT0 + milliseconds(2199)));
  EXPECT_TRUE(batcher.Ready(kT0 + milliseconds(2200)));
}

TEST(BatcherTest, MaxWindowClosesEvenWhileTriggersContinue) {
  Batcher batcher(kOptions);
  MonoTime now = kT0;
  for (; now < kT0 + seconds(10); now += milliseconds(500)) {
    batcher.Trigger(now);
    EXPECT_FALSE(batcher.Ready(now)) << (now - kT0).count();
  }
  // The last trigger was 500ms ago, but the window opened 10s ago.
  EXPECT_EQ(batcher.Deadline(), kT0 + seconds(10));
  EXPECT_TRUE(batcher.Ready(kT0 + seconds(10)));
}

TEST(BatcherTest, TriggerAfterCloseOpensAFreshWindow) {
  Batcher batcher(kOptions);
  batcher.Trigger(kT0);
  ASSERT_TRUE(batcher.Ready(kT0 + seconds(2)));
  batcher.Trigger(kT0 + seconds(30));
  // The max window counts from the new first trigger, not the old one.
  EXPECT_EQ(batcher.Deadline(), kT0 + seconds(31));
  EXPECT_FALSE(batcher.Ready(kT0 + milliseconds(30999)));
  EXPECT_TRUE(batcher.Ready(kT0 + seconds(31)));
}

TEST(BatcherTest, DeadlineIsTheEarlierOfIdleAndMax) {
  Batcher batcher(BatchOptions{milliseconds(5000), milliseconds(3000)});
  batcher.Trigger(kT0);
  EXPECT_EQ(batcher.Deadline(), kT0 + milliseconds(3000));
  EXPECT_FALSE(batcher.Ready(kT0 + milliseconds(2999)));
  EXPECT_TRUE(batcher.Ready(kT0 + milliseconds(3000)));
}

api::Pod UnschedulablePod() {
  api::Pod pod;
  pod.metadata.name = "web-1";
  pod.metadata.namespace_ = "default";
  pod.status.phase = "Pending";
  pod.status.conditions.push_back({"PodScheduled", "False", "Unschedulable", ""});
  return pod;
}

TEST(IsProvisionableTest, UnschedulablePendingPod) {
  EXPECT_TRUE(IsProvisionable(UnschedulablePod()));
}

TEST(IsProvisionableTest, NotYetSeenByTheScheduler) {
  api::Pod pod = UnschedulablePod();
  pod.status.conditions.clear();
  EXPECT_FALSE(IsProvisionable(pod));
}

TEST(IsProvisionableTest, OnlyTheUnschedulableReasonCounts) {
  api::Pod pod = UnschedulablePod();
  pod.status.conditions[0].reason = "SchedulerError";
  EXPECT_FALSE(IsProvisionable(pod));
  pod.status.conditions[0] = {"PodScheduled", "True", "", ""};
  EXPECT_FALSE(IsProvisionable(pod));
  pod.status.conditions[0] = {"PodScheduled", "Unknown", "Unschedulable", ""};
  EXPECT_FALSE(IsProvisionable(pod));
}

TEST(IsProvisionableTest, OtherConditionsDoNotMatter) {
  api::Pod pod = UnschedulablePod();
  pod.status.conditions.insert(pod.status.conditions.begin(), {"Ready", "False", "", ""});
  EXPECT_TRUE(IsProvisionable(pod));
  // The reason counts only on PodScheduled.
  pod.status.conditions[0] = {"Initialized", "False", "Unschedulable", ""};
  pod.status.conditions[1].reason = "Other";
  EXPECT_FALSE(IsProvisionable(pod));
}

TEST(IsProvisionableTest, BoundPod) {
  api::Pod pod = UnschedulablePod();
  pod.spec.node_name = "node-1";
  EXPECT_FALSE(IsProvisionable(pod));
}

TEST(IsProvisionableTest, PreemptingPodWaitsForItsNominatedNode) {
  // kube-scheduler marks a preemptor Unschedulable and nominates the node it evicts pods from.
  api::Pod pod = UnschedulablePod();
  pod.status.nominated_node_name = "node-1";
  EXPECT_FALSE(IsProvisionable(pod));
}

TEST(IsProvisionableTest, DeletingPod) {
  api::Pod pod = UnschedulablePod();
  pod.metadata.deletion_timestamp = "2026-01-01T00:00:00Z";
  EXPECT_FALSE(IsProvisionable(pod));
}

TEST(IsProvisionableTest, TerminalPods) {
  for (const char* phase : {"Succeeded", "Failed"}) {
    api::Pod pod = UnschedulablePod();
    pod.status.phase = phase;
    EXPECT_FALSE(IsProvisionable(pod)) << phase;
  }
  api::Pod unknown = UnschedulablePod();
  unknown.status.phase = "";
  EXPECT_TRUE(IsProvisionable(unknown));
}

TEST(IsProvisionableTest, DaemonSetPodsAreLeftToTheirDaemonSet) {
  api::Pod pod = UnschedulablePod();
  pod.metadata.owner_references.push_back({"apps/v1", "DaemonSet", "agent", "uid-1", true});
  EXPECT_FALSE(IsProvisionable(pod));
  // Only the controlling owner decides.
  pod.metadata.owner_references[0].controller = false;
  EXPECT_TRUE(IsProvisionable(pod));
  pod.metadata.owner_references[0] = {"apps/v1", "ReplicaSet", "web-5d4f", "uid-2", true};
  EXPECT_TRUE(IsProvisionable(pod));
}

}  // namespace
}  // namespace karpenter::controllers
