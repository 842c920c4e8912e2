#include "kube/http/server_version.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "common/clock.h"
#include "support/matchers.h"

namespace karpenter::kube::http {
namespace {

using std::chrono::minutes;
using testing::HasSubstr;

TEST(ServerVersionTest, MajorDotMinorWithoutWhatProvidersAppend) {
  Result<std::string> eks =
      ParseServerVersion(R"({"major": "1", "minor": "31+", "gitVersion": "v1.31.2-eks"})");
  ASSERT_THAT(eks, IsOk());
  EXPECT_EQ(*eks, "1.31");
  Result<std::string> plain = ParseServerVersion(R"({"major": "1", "minor": "30"})");
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(*plain, "1.30");
}

TEST(ServerVersionTest, WhatIsNotAVersionIsAnError) {
  for (const char* body : {"", "[]", R"({"major": "1"})", R"({"major": 1, "minor": 31})",
                           R"({"major": "one", "minor": "x"})"}) {
    Result<std::string> version = ParseServerVersion(body);
    ASSERT_FALSE(version.ok()) << body;
    EXPECT_THAT(version.error().message, HasSubstr("/version")) << body;
  }
}

TEST(RefreshingServerVersionTest, ReadsAgainOnlyOnceTheIntervalHasPassed) {
  VirtualClock clock(TimePoint{});
  int reads = 0;
  std::string served = "1.31";
  RefreshingServerVersion version(
      "1.30",
      [&]() -> Result<std::string> {
        ++reads;
        return served;
      },
      clock, minutes(15));
  EXPECT_EQ(version.Get(), "1.30");  // the first read, given
  clock.Advance(minutes(14));
  EXPECT_EQ(version.Get(), "1.30");
  EXPECT_EQ(reads, 0);
  clock.Advance(minutes(1));
  EXPECT_EQ(version.Get(), "1.31");  // the control plane was upgraded
  EXPECT_EQ(version.Get(), "1.31");
  EXPECT_EQ(reads, 1);
}

TEST(RefreshingServerVersionTest, AFailedReadKeepsTheVersionAndIsRetriedAfterAMinute) {
  VirtualClock clock(TimePoint{});
  int reads = 0;
  bool reachable = false;
  RefreshingServerVersion version(
      "1.30",
      [&]() -> Result<std::string> {
        ++reads;
        if (!reachable) return Error("GET /version: connection refused");
        return std::string("1.31");
      },
      clock, minutes(15));
  clock.Advance(minutes(15));
  EXPECT_EQ(version.Get(), "1.30");
  EXPECT_EQ(reads, 1);
  clock.Advance(std::chrono::seconds(59));
  EXPECT_EQ(version.Get(), "1.30");
  EXPECT_EQ(reads, 1);
  reachable = true;
  clock.Advance(std::chrono::seconds(1));
  EXPECT_EQ(version.Get(), "1.31");
  EXPECT_EQ(reads, 2);
}

}  // namespace
}  // namespace karpenter::kube::http
