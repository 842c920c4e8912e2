// A cloud provider's periodic controllers on the manager's loop: due every period, and after a
// failure retried sooner, backing off, when the controller asks for it (the instance-type and
// price refresh does: until spot prices are known no spot offering can launch).

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "common/result.h"
#include "operator/manager.h"
#include "scenario_world.h"

namespace karpenter::scenario {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// The seconds, since the first run, at which `controller` ran within `total`, failing `failures`
// times first.
std::vector<int64_t> RunTimes(op::PeriodicController controller, int failures, seconds total) {
  World world;
  std::vector<int64_t> at;
  int calls = 0;
  TimePoint first;
  controller.run = [&]() -> Status {
    if (at.empty()) first = world.clock().Now();
    at.push_back(std::chrono::duration_cast<seconds>(world.clock().Now() - first).count());
    return ++calls <= failures ? Status(Error("refused")) : Status();
  };
  world.manager().AddPeriodic(std::move(controller));
  world.Start();
  world.RunFor(total, milliseconds(500));
  return at;
}

TEST(PeriodicControllerTest, RunsEveryPeriod) {
  EXPECT_EQ(RunTimes({"refresh", seconds(60), {}}, 0, seconds(150)),
            (std::vector<int64_t>{0, 60, 120}));
}

TEST(PeriodicControllerTest, WithoutARetryAFailureWaitsThePeriod) {
  EXPECT_EQ(RunTimes({"refresh", seconds(60), {}}, 2, seconds(150)),
            (std::vector<int64_t>{0, 60, 120}));
}

TEST(PeriodicControllerTest, AFailureIsRetriedSoonerBackingOffUpToThePeriod) {
  // Fails at 0, 5, 15, 35 and 75 s (retries after 5, 10, 20, 40 s, then the 60 s period caps
  // the wait), succeeds at 135 s, then runs every period.
  EXPECT_EQ(RunTimes({"refresh", seconds(60), {}, seconds(5)}, 5, seconds(200)),
            (std::vector<int64_t>{0, 5, 15, 35, 75, 135, 195}));
}

TEST(PeriodicControllerTest, ASuccessResetsTheBackoff) {
  // Fails once at 0, succeeds at 5; the period follows; nothing retried early after that.
  EXPECT_EQ(RunTimes({"refresh", seconds(60), {}, seconds(5)}, 1, seconds(130)),
            (std::vector<int64_t>{0, 5, 65, 125}));
}

}  // namespace
}  // namespace karpenter::scenario
