#include "aws/nodeclass/status_conditions.h"

#include <gtest/gtest.h>

#include <chrono>

namespace karpenter::aws {
namespace {

const TimePoint kStart = std::chrono::sys_days{std::chrono::year{2026} / 12 / 1};

TEST(SetStatusCondition, AppendsANewConditionWithTheTime) {
  std::vector<api::Condition> conditions;
  EXPECT_TRUE(SetStatusCondition(conditions, "SubnetsReady", true, "SubnetsReady", "", kStart, 3));
  ASSERT_EQ(conditions.size(), 1U);
  EXPECT_EQ(conditions[0].type, "SubnetsReady");
  EXPECT_EQ(conditions[0].status, "True");
  EXPECT_EQ(conditions[0].last_transition_time, "2026-12-01T00:00:00Z");
  EXPECT_EQ(conditions[0].observed_generation, 3);
}

TEST(SetStatusCondition, KeepsTheTransitionTimeWhileTheStatusHolds) {
  std::vector<api::Condition> conditions;
  ASSERT_TRUE(SetStatusCondition(conditions, "Ready", false, "A", "first", kStart, 1));
  const TimePoint later = kStart + std::chrono::minutes(5);
  EXPECT_FALSE(SetStatusCondition(conditions, "Ready", false, "A", "first", later, 1));
  EXPECT_TRUE(SetStatusCondition(conditions, "Ready", false, "B", "second", later, 2));
  EXPECT_EQ(conditions[0].reason, "B");
  EXPECT_EQ(conditions[0].message, "second");
  EXPECT_EQ(conditions[0].observed_generation, 2);
  EXPECT_EQ(conditions[0].last_transition_time, "2026-12-01T00:00:00Z");
  EXPECT_TRUE(SetStatusCondition(conditions, "Ready", true, "Ready", "", later, 2));
  EXPECT_EQ(conditions[0].status, "True");
  EXPECT_EQ(conditions[0].last_transition_time, "2026-12-01T00:05:00Z");
  EXPECT_EQ(conditions.size(), 1U);
}

}  // namespace
}  // namespace karpenter::aws
