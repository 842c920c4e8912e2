#include "kube/disruption_budget.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/matchers.h"

namespace karpenter::kube::memory {
namespace {

Object Pod(std::string_view name, bool ready, std::string_view app = "web") {
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", app}}}}},
          {"status",
           {{"phase", "Running"},
            {"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
}

Object Budget(const Object& spec) {
  return {{"metadata", {{"name", "web"}, {"namespace", "default"}}}, {"spec", spec}};
}

Object WebSelector() { return {{"matchLabels", {{"app", "web"}}}}; }

// The pods as a list or an informer holds them.
std::vector<SharedObject> Shared(const std::vector<Object>& pods) {
  std::vector<SharedObject> shared;
  for (const Object& pod : pods) shared.push_back(std::make_shared<const Object>(pod));
  return shared;
}

DisruptionBudgetStatus Compute(const Object& spec, const std::vector<Object>& pods) {
  const Result<DisruptionBudgetStatus> status = ComputeDisruptionBudget(Budget(spec), Shared(pods));
  EXPECT_THAT(status, IsOk());
  return status.ok() ? *status : DisruptionBudgetStatus{};
}

// Four web pods, three of them ready, and a ready pod of another app.
std::vector<Object> ThreeReadyOneNot() {
  return {Pod("a", true), Pod("b", true), Pod("c", true), Pod("d", false),
          Pod("other", true, "db")};
}

TEST(DisruptionBudget, MinAvailableCount) {
  EXPECT_EQ(Compute({{"minAvailable", 2}, {"selector", WebSelector()}}, ThreeReadyOneNot()),
            (DisruptionBudgetStatus{4, 2, 3, 1}));
}

TEST(DisruptionBudget, MinAvailablePercentRoundsUp) {
  EXPECT_EQ(Compute({{"minAvailable", "50%"}, {"selector", WebSelector()}}, ThreeReadyOneNot()),
            (DisruptionBudgetStatus{4, 2, 3, 1}));
  EXPECT_EQ(Compute({{"minAvailable", "51%"}, {"selector", WebSelector()}}, ThreeReadyOneNot()),
            (DisruptionBudgetStatus{4, 3, 3, 0}));
}

TEST(DisruptionBudget, MaxUnavailable) {
  EXPECT_EQ(Compute({{"maxUnavailable", 1}, {"selector", WebSelector()}}, ThreeReadyOneNot()),
            (DisruptionBudgetStatus{4, 3, 3, 0}));
  // 26% of 4 rounds up to 2 unavailable.
  EXPECT_EQ(Compute({{"maxUnavailable", "26%"}, {"selector", WebSelector()}}, ThreeReadyOneNot()),
            (DisruptionBudgetStatus{4, 2, 3, 1}));
  EXPECT_EQ(Compute({{"maxUnavailable", 9}, {"selector", WebSelector()}}, ThreeReadyOneNot()),
            (DisruptionBudgetStatus{4, 0, 3, 3}));
}

TEST(DisruptionBudget, PodsBeingDeletedAreNotHealthy) {
  std::vector<Object> pods = {Pod("a", true), Pod("b", true)};
  pods[1]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  EXPECT_EQ(Compute({{"minAvailable", 1}, {"selector", WebSelector()}}, pods),
            (DisruptionBudgetStatus{2, 1, 1, 0}));
}

TEST(DisruptionBudget, EmptySelectorSelectsTheWholeNamespaceAndMissingNone) {
  EXPECT_EQ(Compute({{"minAvailable", 0}, {"selector", Object::object()}}, ThreeReadyOneNot()),
            (DisruptionBudgetStatus{5, 0, 4, 4}));
  EXPECT_EQ(Compute({{"minAvailable", 0}}, ThreeReadyOneNot()), (DisruptionBudgetStatus{}));
  Object elsewhere = Pod("x", true);
  elsewhere["metadata"]["namespace"] = "other";
  EXPECT_FALSE(SelectsPod(Budget({{"selector", Object::object()}}), elsewhere));
}

TEST(DisruptionBudget, NoSelectedPodsAllowsNothing) {
  EXPECT_EQ(Compute({{"maxUnavailable", 1}, {"selector", WebSelector()}}, {}),
            (DisruptionBudgetStatus{0, 0, 0, 0}));
}

TEST(DisruptionBudget, RefusesValuesThatAreNeitherCountsNorPercentages) {
  for (const Object& value : {Object("half"), Object("5"), Object("%"), Object(1.5)}) {
    const Result<DisruptionBudgetStatus> status = ComputeDisruptionBudget(
        Budget({{"minAvailable", value}, {"selector", WebSelector()}}), Shared(ThreeReadyOneNot()));
    EXPECT_FALSE(status.ok()) << value.dump();
  }
}

TEST(DisruptionBudget, ReadyMeansTheReadyConditionIsTrue) {
  EXPECT_TRUE(IsPodReady(Pod("a", true)));
  EXPECT_FALSE(IsPodReady(Pod("a", false)));
  EXPECT_FALSE(IsPodReady(Object{{"status", nullptr}}));
}

}  // namespace
}  // namespace karpenter::kube::memory
