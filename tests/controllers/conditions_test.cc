#include "controllers/conditions.h"

#include <gtest/gtest.h>

#include <chrono>

namespace karpenter::controllers {
namespace {

using std::chrono::seconds;

constexpr TimePoint kT0{seconds(1767225600)};  // 2026-01-01T00:00:00Z

const kube::Object* Find(const kube::Object& conditions, std::string_view type) {
  for (const kube::Object& condition : conditions) {
    if (condition.value("type", "") == type) return &condition;
  }
  return nullptr;
}

TEST(SetConditionTest, AddsToNullOrEmpty) {
  kube::Object conditions;  // null, as when status.conditions is absent
  EXPECT_TRUE(SetCondition(conditions, "Ready", true, "Ready", "", kT0, 3));
  ASSERT_TRUE(conditions.is_array());
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0], kube::Object::parse(R"({"type": "Ready", "status": "True",
      "reason": "Ready", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z",
      "observedGeneration": 3})"));
}

TEST(SetConditionTest, UnchangedReturnsFalseAndKeepsEverything) {
  kube::Object conditions = kube::Object::array();
  ASSERT_TRUE(SetCondition(conditions, "Ready", false, "NotReady", "waiting", kT0, 1));
  const kube::Object before = conditions;
  EXPECT_FALSE(
      SetCondition(conditions, "Ready", false, "NotReady", "waiting", kT0 + seconds(60), 1));
  EXPECT_EQ(conditions, before);
}

TEST(SetConditionTest, SameStatusKeepsLastTransitionTime) {
  kube::Object conditions = kube::Object::array();
  ASSERT_TRUE(SetCondition(conditions, "Ready", false, "NotReady", "waiting", kT0, 1));
  // Another reason, message and generation, but the status stays False.
  EXPECT_TRUE(SetCondition(conditions, "Ready", false, "StillNotReady", "still waiting",
                           kT0 + seconds(60), 2));
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0]["lastTransitionTime"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(conditions[0]["reason"], "StillNotReady");
  EXPECT_EQ(conditions[0]["message"], "still waiting");
  EXPECT_EQ(conditions[0]["observedGeneration"], 2);
  // Only the generation changes: still a change.
  EXPECT_TRUE(SetCondition(conditions, "Ready", false, "StillNotReady", "still waiting",
                           kT0 + seconds(90), 3));
  EXPECT_EQ(conditions[0]["lastTransitionTime"], "2026-01-01T00:00:00Z");
}

TEST(SetConditionTest, StatusChangeMovesLastTransitionTime) {
  kube::Object conditions = kube::Object::array();
  ASSERT_TRUE(SetCondition(conditions, "Ready", false, "NotReady", "", kT0, 1));
  EXPECT_TRUE(SetCondition(conditions, "Ready", true, "Ready", "", kT0 + seconds(60), 1));
  EXPECT_EQ(conditions[0]["status"], "True");
  EXPECT_EQ(conditions[0]["lastTransitionTime"], "2026-01-01T00:01:00Z");
  EXPECT_TRUE(SetCondition(conditions, "Ready", false, "NotReady", "", kT0 + seconds(120), 1));
  EXPECT_EQ(conditions[0]["status"], "False");
  EXPECT_EQ(conditions[0]["lastTransitionTime"], "2026-01-01T00:02:00Z");
}

TEST(SetConditionTest, TypesAreIndependent) {
  kube::Object conditions = kube::Object::array();
  ASSERT_TRUE(SetCondition(conditions, "Launched", true, "Launched", "", kT0, 1));
  ASSERT_TRUE(SetCondition(conditions, "Registered", false, "Pending", "", kT0, 1));
  EXPECT_TRUE(SetCondition(conditions, "Registered", true, "Registered", "", kT0 + seconds(5), 1));
  ASSERT_EQ(conditions.size(), 2u);
  const kube::Object* launched = Find(conditions, "Launched");
  const kube::Object* registered = Find(conditions, "Registered");
  ASSERT_NE(launched, nullptr);
  ASSERT_NE(registered, nullptr);
  EXPECT_EQ((*launched)["lastTransitionTime"], "2026-01-01T00:00:00Z");
  EXPECT_EQ((*registered)["lastTransitionTime"], "2026-01-01T00:00:05Z");
  EXPECT_EQ((*registered)["status"], "True");
}

TEST(SetConditionTest, KeepsFieldsItDoesNotManage) {
  kube::Object conditions = kube::Object::parse(R"([{"type": "Ready", "status": "False",
      "reason": "Old", "message": "", "lastTransitionTime": "2025-06-01T00:00:00Z",
      "observedGeneration": 1, "severity": "Info"}])");
  EXPECT_TRUE(SetCondition(conditions, "Ready", true, "Ready", "", kT0, 1));
  EXPECT_EQ(conditions[0]["severity"], "Info");
  EXPECT_EQ(conditions[0]["lastTransitionTime"], "2026-01-01T00:00:00Z");
}

TEST(ConditionStatusTest, ReadsStatusOfType) {
  const kube::Object object = kube::Object::parse(R"({"status": {"conditions": [
      {"type": "Launched", "status": "True"}, {"type": "Ready", "status": "Unknown"},
      {"type": "Registered", "status": "False"}]}})");
  EXPECT_EQ(ConditionStatus(object, "Launched"), "True");
  EXPECT_EQ(ConditionStatus(object, "Ready"), "Unknown");
  EXPECT_EQ(ConditionStatus(object, "Registered"), "False");
  EXPECT_EQ(ConditionStatus(object, "Initialized"), "");
}

TEST(ConditionStatusTest, EmptyForMissingOrMalformedStatus) {
  EXPECT_EQ(ConditionStatus(kube::Object::object(), "Ready"), "");
  EXPECT_EQ(ConditionStatus(kube::Object::parse(R"({"status": "Ready"})"), "Ready"), "");
  EXPECT_EQ(ConditionStatus(kube::Object::parse(R"({"status": {"conditions": {}}})"), "Ready"), "");
  EXPECT_EQ(ConditionStatus(kube::Object::parse(R"({"status": {"conditions": [
      {"type": "Ready", "status": true}]}})"),
                            "Ready"),
            "");
  EXPECT_EQ(ConditionStatus(kube::Object::parse(R"({"status": {"conditions": [
      {"type": 7, "status": "True"}, {"type": "Ready", "status": "True"}]}})"),
                            "Ready"),
            "True");
}

TEST(ConditionStatusTest, ReadsWhatSetConditionWrote) {
  kube::Object object = {{"status", {{"conditions", nullptr}}}};
  SetCondition(object["status"]["conditions"], "Initialized", true, "Initialized", "", kT0, 1);
  EXPECT_EQ(ConditionStatus(object, "Initialized"), "True");
  SetCondition(object["status"]["conditions"], "Initialized", false, "Lost", "", kT0, 1);
  EXPECT_EQ(ConditionStatus(object, "Initialized"), "False");
}

}  // namespace
}  // namespace karpenter::controllers
