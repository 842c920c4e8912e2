#include "cloud/sim/node_booter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

namespace karpenter::cloud {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(BootDelayTest, WithoutSpreadEveryMachineTakesTheDelay) {
  const NodeBooterOptions options{.boot_delay = seconds(40)};
  EXPECT_EQ(BootDelayOf("sim:///us-east-1a/i-00000000000000001", options), seconds(40));
  EXPECT_EQ(BootDelayOf("sim:///us-east-1b/i-00000000000000002", options), seconds(40));
}

TEST(BootDelayTest, MachinesSpreadOverTheRangeAtPointsTheSeedFixes) {
  const NodeBooterOptions options{.boot_delay = seconds(40), .boot_spread = 0.25, .seed = 7};
  std::set<int64_t> delays;
  int below = 0;
  for (int i = 0; i < 200; ++i) {
    const std::string id = fmt::format("sim:///us-east-1a/i-{:017x}", i);
    const milliseconds delay = BootDelayOf(id, options);
    EXPECT_GE(delay, seconds(30)) << id;
    EXPECT_LE(delay, seconds(50)) << id;
    EXPECT_EQ(delay, BootDelayOf(id, options)) << "the same machine, the same boot";
    delays.insert(delay.count());
    below += delay < seconds(40) ? 1 : 0;
  }
  // Spread, not piled up: nearly every machine at its own instant, on both sides of the median.
  EXPECT_GT(delays.size(), 190U);
  EXPECT_GT(below, 60);
  EXPECT_LT(below, 140);
  // Another seed draws other points.
  NodeBooterOptions other = options;
  other.seed = 8;
  int same = 0;
  for (int i = 0; i < 50; ++i) {
    const std::string id = fmt::format("sim:///us-east-1a/i-{:017x}", i);
    same += BootDelayOf(id, options) == BootDelayOf(id, other) ? 1 : 0;
  }
  EXPECT_LT(same, 5);
}

}  // namespace
}  // namespace karpenter::cloud
