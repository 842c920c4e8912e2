#include "disruption/budgets.h"

#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/duration.h"
#include "support/matchers.h"
#include "support/param_name.h"

namespace karpenter::disruption {
namespace {

using api::Budget;
using api::DisruptionReason;
using api::NodePool;
using std::chrono::hours;
using std::chrono::minutes;

constexpr DisruptionReason kAllReasons[] = {DisruptionReason::kUnderutilized,
                                            DisruptionReason::kEmpty, DisruptionReason::kDrifted};

TimePoint At(std::string_view rfc3339) { return ParseTime(rfc3339).value(); }

// 2024-03-10T12:00:00Z; any time will do for budgets without a schedule.
constexpr TimePoint kNow{std::chrono::seconds(1710072000)};

Budget Nodes(std::string nodes, std::vector<DisruptionReason> reasons = {}) {
  Budget budget;
  budget.nodes = std::move(nodes);
  budget.reasons = std::move(reasons);
  return budget;
}

Budget Scheduled(std::string nodes, std::string schedule, std::chrono::milliseconds duration) {
  Budget budget = Nodes(std::move(nodes));
  budget.schedule = std::move(schedule);
  budget.duration = Duration::Of(duration);
  return budget;
}

NodePool Pool(std::vector<Budget> budgets) {
  NodePool pool;
  pool.metadata.name = "default";
  pool.spec.disruption.budgets = std::move(budgets);
  return pool;
}

// The allowed disruptions, failing the test (by the exception value() throws) on an error.
int Allowed(const NodePool& pool, TimePoint now, int total,
            DisruptionReason reason = DisruptionReason::kUnderutilized) {
  Result<int> allowed = AllowedDisruptions(pool, reason, now, total);
  EXPECT_THAT(allowed, IsOk());
  return allowed.value();
}

std::string ErrorOf(const NodePool& pool, DisruptionReason reason = DisruptionReason::kEmpty) {
  const Result<int> allowed = AllowedDisruptions(pool, reason, kNow, 10);
  return allowed.ok() ? "no error" : allowed.error().message;
}

TEST(ReasonNameTest, NamesEachReasonAsTheApiWritesIt) {
  EXPECT_EQ(ReasonName(DisruptionReason::kUnderutilized), "Underutilized");
  EXPECT_EQ(ReasonName(DisruptionReason::kEmpty), "Empty");
  EXPECT_EQ(ReasonName(DisruptionReason::kDrifted), "Drifted");
}

// ---- nodes: a count or a percentage -----------------------------------------------------------

struct NodesCase {
  std::string_view nodes;
  int total;
  int allowed;
};

void PrintTo(const NodesCase& c, std::ostream* os) { *os << c.nodes << " of " << c.total; }

class BudgetNodesTest : public testing::TestWithParam<NodesCase> {};

TEST_P(BudgetNodesTest, ScalesToTheNodePool) {
  const NodesCase& c = GetParam();
  EXPECT_EQ(Allowed(Pool({Nodes(std::string(c.nodes))}), kNow, c.total), c.allowed)
      << c.nodes << " of " << c.total;
}

INSTANTIATE_TEST_SUITE_P(Count, BudgetNodesTest,
                         testing::Values(NodesCase{"5", 100, 5}, NodesCase{"0", 100, 0},
                                         NodesCase{"1", 0, 1},
                                         // A count is not capped at the nodes there are.
                                         NodesCase{"5", 3, 5}),
                         ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(PercentRoundedUp, BudgetNodesTest,
                         testing::Values(NodesCase{"10%", 15, 2}, NodesCase{"10%", 1, 1},
                                         NodesCase{"10%", 10, 1}, NodesCase{"10%", 11, 2},
                                         NodesCase{"10%", 0, 0}, NodesCase{"50%", 3, 2},
                                         NodesCase{"0%", 100, 0}, NodesCase{"1%", 1000, 10},
                                         NodesCase{"100%", 7, 7}));

TEST(AllowedDisruptionsTest, WithoutBudgetsTheDefaultIsTenPercent) {
  const NodePool pool = Pool({});
  for (const DisruptionReason reason : kAllReasons) {
    EXPECT_EQ(Allowed(pool, kNow, 15, reason), 2) << ReasonName(reason);
    EXPECT_EQ(Allowed(pool, kNow, 100, reason), 10) << ReasonName(reason);
  }
}

// ---- reasons and the minimum ------------------------------------------------------------------

TEST(AllowedDisruptionsTest, ABudgetWithoutReasonsAppliesToEveryReason) {
  const NodePool pool = Pool({Nodes("3")});
  for (const DisruptionReason reason : kAllReasons) {
    EXPECT_EQ(Allowed(pool, kNow, 50, reason), 3) << ReasonName(reason);
  }
}

TEST(AllowedDisruptionsTest, ABudgetWithReasonsAppliesOnlyToThem) {
  const NodePool pool =
      Pool({Nodes("0", {DisruptionReason::kDrifted}),
            Nodes("2", {DisruptionReason::kEmpty, DisruptionReason::kUnderutilized}), Nodes("5")});
  EXPECT_EQ(Allowed(pool, kNow, 50, DisruptionReason::kDrifted), 0);
  EXPECT_EQ(Allowed(pool, kNow, 50, DisruptionReason::kEmpty), 2);
  EXPECT_EQ(Allowed(pool, kNow, 50, DisruptionReason::kUnderutilized), 2);
}

TEST(AllowedDisruptionsTest, TheLeastOfTheApplyingBudgetsWins) {
  EXPECT_EQ(Allowed(Pool({Nodes("20%"), Nodes("3"), Nodes("50%")}), kNow, 100), 3);
  EXPECT_EQ(Allowed(Pool({Nodes("20%"), Nodes("30"), Nodes("50%")}), kNow, 100), 20);
  // Rounded up before the minimum: 10% of 5 is 1, less than 2.
  EXPECT_EQ(Allowed(Pool({Nodes("2"), Nodes("10%")}), kNow, 5), 1);
}

TEST(AllowedDisruptionsTest, UnlimitedWhenNoBudgetApplies) {
  const NodePool pool = Pool({Nodes("1", {DisruptionReason::kDrifted})});
  EXPECT_EQ(Allowed(pool, kNow, 40, DisruptionReason::kEmpty), 40);
  EXPECT_EQ(Allowed(pool, kNow, 40, DisruptionReason::kDrifted), 1);
}

// ---- schedules --------------------------------------------------------------------------------

TEST(AllowedDisruptionsTest, AScheduledBudgetIsActiveFromEachFireForItsDuration) {
  // Business hours: nothing may be disrupted 09:00-17:00 UTC.
  const NodePool pool = Pool({Scheduled("0", "0 9 * * *", hours(8)), Nodes("10")});
  EXPECT_EQ(Allowed(pool, At("2024-03-10T08:59:59Z"), 100), 10);  // before
  EXPECT_EQ(Allowed(pool, At("2024-03-10T09:00:00Z"), 100), 0);   // at the fire
  EXPECT_EQ(Allowed(pool, At("2024-03-10T12:30:00Z"), 100), 0);   // inside
  EXPECT_EQ(Allowed(pool, At("2024-03-10T16:59:59.999Z"), 100), 0);
  EXPECT_EQ(Allowed(pool, At("2024-03-10T17:00:00Z"), 100), 10);  // the exact end: inactive
}

TEST(AllowedDisruptionsTest, AnInactiveScheduledBudgetLeavesTheNodePoolUnlimited) {
  const NodePool pool = Pool({Scheduled("0", "0 9 * * *", hours(8))});
  EXPECT_EQ(Allowed(pool, At("2024-03-10T18:00:00Z"), 100), 100);
  EXPECT_EQ(Allowed(pool, At("2024-03-10T10:00:00Z"), 100), 0);
}

TEST(AllowedDisruptionsTest, AWindowRunsPastMidnightAndAcrossDays) {
  const NodePool nightly = Pool({Scheduled("0", "0 22 * * *", hours(4))});
  EXPECT_EQ(Allowed(nightly, At("2024-12-31T23:00:00Z"), 10), 0);
  EXPECT_EQ(Allowed(nightly, At("2025-01-01T01:59:00Z"), 10), 0);
  EXPECT_EQ(Allowed(nightly, At("2025-01-01T02:00:00Z"), 10), 10);
  // Weekends: from Saturday 00:00 for 48 hours (2024-01-06 is a Saturday).
  const NodePool weekend = Pool({Scheduled("0", "0 0 * * sat", hours(48))});
  EXPECT_EQ(Allowed(weekend, At("2024-01-05T23:59:00Z"), 10), 10);
  EXPECT_EQ(Allowed(weekend, At("2024-01-07T23:59:59Z"), 10), 0);
  EXPECT_EQ(Allowed(weekend, At("2024-01-08T00:00:00Z"), 10), 10);
}

TEST(AllowedDisruptionsTest, AWindowOfMinutesEndsMidMinute) {
  // 1h30m from 10:15: active until 11:45 exactly.
  const NodePool pool = Pool({Scheduled("0", "15 10 * * *", hours(1) + minutes(30))});
  EXPECT_EQ(Allowed(pool, At("2024-03-10T11:44:59Z"), 10), 0);
  EXPECT_EQ(Allowed(pool, At("2024-03-10T11:45:00Z"), 10), 10);
}

TEST(AllowedDisruptionsTest, ScheduledAndReasonFilteredBudgetsCombine) {
  Budget drift_freeze = Scheduled("0", "@daily", hours(6));
  drift_freeze.reasons = {DisruptionReason::kDrifted};
  const NodePool pool = Pool({drift_freeze, Nodes("20%")});
  const TimePoint night = At("2024-03-10T03:00:00Z");
  EXPECT_EQ(Allowed(pool, night, 20, DisruptionReason::kDrifted), 0);
  EXPECT_EQ(Allowed(pool, night, 20, DisruptionReason::kEmpty), 4);
  EXPECT_EQ(Allowed(pool, At("2024-03-10T06:00:00Z"), 20, DisruptionReason::kDrifted), 4);
}

// ---- remaining ----------------------------------------------------------------------------------

TEST(RemainingDisruptionsTest, SubtractsTheNodesAlreadyDisruptingAndNeverGoesNegative) {
  const NodePool pool = Pool({Nodes("5")});
  const auto remaining = [&](int disrupting) {
    Result<int> left = RemainingDisruptions(pool, DisruptionReason::kEmpty, kNow, 100, disrupting);
    EXPECT_THAT(left, IsOk());
    return left.value();
  };
  EXPECT_EQ(remaining(0), 5);
  EXPECT_EQ(remaining(2), 3);
  EXPECT_EQ(remaining(5), 0);
  EXPECT_EQ(remaining(7), 0);
  const Result<int> blocked =
      RemainingDisruptions(Pool({Nodes("0%")}), DisruptionReason::kEmpty, kNow, 100, 0);
  ASSERT_THAT(blocked, IsOk());
  EXPECT_EQ(*blocked, 0);
  // Unlimited: everything not yet disrupting.
  const Result<int> unlimited = RemainingDisruptions(
      Pool({Nodes("1", {DisruptionReason::kDrifted})}), DisruptionReason::kEmpty, kNow, 12, 4);
  ASSERT_THAT(unlimited, IsOk());
  EXPECT_EQ(*unlimited, 8);
}

// ---- errors -------------------------------------------------------------------------------------

TEST(BudgetErrorsTest, NameTheNodePoolTheBudgetAndTheField) {
  EXPECT_EQ(ErrorOf(Pool({Nodes("5"), Scheduled("0", "61 * * * *", hours(1))})),
            R"(nodepool "default": spec.disruption.budgets[1].schedule: schedule "61 * * * *": )"
            R"(minute 61 is out of range 0-59)");
  EXPECT_EQ(ErrorOf(Pool({Nodes("ten")})),
            R"(nodepool "default": spec.disruption.budgets[0].nodes: invalid value "ten": must )"
            R"(be a node count such as "5" or a percentage such as "10%")");
  EXPECT_EQ(ErrorOf(Pool({Nodes("5"), Nodes("3"), Nodes("-1")})),
            R"(nodepool "default": spec.disruption.budgets[2].nodes: invalid value "-1": must )"
            R"(be a node count such as "5" or a percentage such as "10%")");
  EXPECT_EQ(ErrorOf(Pool({Nodes("%")})),
            R"(nodepool "default": spec.disruption.budgets[0].nodes: invalid value "%": must )"
            R"(be a node count such as "5" or a percentage such as "10%")");
  EXPECT_EQ(ErrorOf(Pool({Nodes("150%")})),
            R"(nodepool "default": spec.disruption.budgets[0].nodes: invalid value "150%": a )"
            R"(percentage must be at most 100%)");
}

TEST(BudgetErrorsTest, ScheduleAndDurationGoTogether) {
  Budget schedule_only = Nodes("1");
  schedule_only.schedule = "@daily";
  EXPECT_EQ(ErrorOf(Pool({schedule_only})),
            R"(nodepool "default": spec.disruption.budgets[0]: schedule and duration must be )"
            R"(set together)");
  Budget duration_only = Nodes("1");
  duration_only.duration = Duration::Of(hours(1));
  EXPECT_EQ(ErrorOf(Pool({Nodes("1"), duration_only})),
            R"(nodepool "default": spec.disruption.budgets[1]: schedule and duration must be )"
            R"(set together)");
  Budget never = Nodes("1");
  never.schedule = "@daily";
  never.duration = Duration::Never();
  EXPECT_EQ(ErrorOf(Pool({never})),
            R"(nodepool "default": spec.disruption.budgets[0].duration: must be a length of )"
            R"(time, not Never)");
}

TEST(BudgetErrorsTest, ABadBudgetFailsEveryReasonAndRemainingToo) {
  NodePool pool = Pool({Nodes("5"), Nodes("x", {DisruptionReason::kDrifted})});
  pool.metadata.name = "batch";
  EXPECT_EQ(ErrorOf(pool, DisruptionReason::kEmpty),
            R"(nodepool "batch": spec.disruption.budgets[1].nodes: invalid value "x": must be a )"
            R"(node count such as "5" or a percentage such as "10%")");
  const Result<int> remaining = RemainingDisruptions(pool, DisruptionReason::kEmpty, kNow, 10, 0);
  ASSERT_FALSE(remaining.ok());
  EXPECT_EQ(remaining.error().message, ErrorOf(pool));
}

}  // namespace
}  // namespace karpenter::disruption
