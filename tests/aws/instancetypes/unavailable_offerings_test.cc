#include "aws/instancetypes/unavailable_offerings.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace karpenter::aws {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

class UnavailableOfferingsTest : public ::testing::Test {
 protected:
  VirtualClock clock_{*ParseTime("2026-12-01T00:00:00Z")};
  UnavailableOfferings cache_{clock_};
};

TEST_F(UnavailableOfferingsTest, AMarkCoversOnlyItsOfferingUntilItExpires) {
  EXPECT_FALSE(cache_.IsUnavailable("m5.large", "us-west-2a", "spot"));
  cache_.MarkUnavailable("m5.large", "us-west-2a", "spot", "InsufficientInstanceCapacity");
  EXPECT_TRUE(cache_.IsUnavailable("m5.large", "us-west-2a", "spot"));
  EXPECT_EQ(cache_.Reason("m5.large", "us-west-2a", "spot"), "InsufficientInstanceCapacity");
  EXPECT_FALSE(cache_.IsUnavailable("m5.large", "us-west-2a", "on-demand"));
  EXPECT_FALSE(cache_.IsUnavailable("m5.large", "us-west-2b", "spot"));
  EXPECT_FALSE(cache_.IsUnavailable("m5.xlarge", "us-west-2a", "spot"));
  EXPECT_EQ(cache_.Reason("m5.xlarge", "us-west-2a", "spot"), "");

  clock_.Advance(minutes(3) - seconds(1));
  EXPECT_TRUE(cache_.IsUnavailable("m5.large", "us-west-2a", "spot"));
  clock_.Advance(seconds(1));
  EXPECT_FALSE(cache_.IsUnavailable("m5.large", "us-west-2a", "spot"));
  EXPECT_EQ(cache_.size(), 0U);
}

TEST_F(UnavailableOfferingsTest, MarkingAgainExtendsTheExpiry) {
  cache_.MarkUnavailable("c5.large", "us-west-2b", "on-demand", "first");
  clock_.Advance(minutes(2));
  cache_.MarkUnavailable("c5.large", "us-west-2b", "on-demand", "second");
  clock_.Advance(minutes(2));
  EXPECT_TRUE(cache_.IsUnavailable("c5.large", "us-west-2b", "on-demand"));
  EXPECT_EQ(cache_.Reason("c5.large", "us-west-2b", "on-demand"), "second");
  EXPECT_EQ(cache_.size(), 1U);
  clock_.Advance(minutes(1));
  EXPECT_FALSE(cache_.IsUnavailable("c5.large", "us-west-2b", "on-demand"));
}

TEST_F(UnavailableOfferingsTest, EmptyFieldsCoverEveryValue) {
  cache_.MarkUnavailable("", "us-west-2c", "", "zone outage");
  EXPECT_TRUE(cache_.IsUnavailable("m5.large", "us-west-2c", "spot"));
  EXPECT_TRUE(cache_.IsUnavailable("r6g.xlarge", "us-west-2c", "on-demand"));
  EXPECT_FALSE(cache_.IsUnavailable("m5.large", "us-west-2a", "spot"));

  cache_.MarkUnavailable("", "", "spot", "MaxSpotInstanceCountExceeded");
  EXPECT_TRUE(cache_.IsUnavailable("m5.large", "us-west-2a", "spot"));
  EXPECT_FALSE(cache_.IsUnavailable("m5.large", "us-west-2a", "on-demand"));
  EXPECT_EQ(cache_.Reason("t3.small", "us-west-2b", "spot"), "MaxSpotInstanceCountExceeded");
}

TEST_F(UnavailableOfferingsTest, TheSequenceNumberChangesOnEveryMarkAndExpiryOnly) {
  const uint64_t start = cache_.SeqNum();
  EXPECT_EQ(cache_.SeqNum(), start);
  cache_.MarkUnavailable("m5.large", "us-west-2a", "spot", "x");
  const uint64_t marked = cache_.SeqNum();
  EXPECT_NE(marked, start);
  EXPECT_EQ(cache_.SeqNum(), marked);  // reading does not change it
  cache_.MarkUnavailable("m5.large", "us-west-2a", "spot", "x");
  const uint64_t remarked = cache_.SeqNum();
  EXPECT_NE(remarked, marked);
  clock_.Advance(minutes(1));
  EXPECT_EQ(cache_.SeqNum(), remarked);  // nothing expired yet
  clock_.Advance(minutes(3));
  const uint64_t expired = cache_.SeqNum();
  EXPECT_NE(expired, remarked);
  EXPECT_EQ(cache_.SeqNum(), expired);
}

TEST(UnavailableOfferingsTtlTest, HonoursTheGivenTtl) {
  VirtualClock clock(*ParseTime("2026-12-01T00:00:00Z"));
  UnavailableOfferings cache(clock, std::chrono::seconds(10));
  cache.MarkUnavailable("m5.large", "us-west-2a", "spot", "x");
  clock.Advance(seconds(9));
  EXPECT_TRUE(cache.IsUnavailable("m5.large", "us-west-2a", "spot"));
  clock.Advance(seconds(1));
  EXPECT_FALSE(cache.IsUnavailable("m5.large", "us-west-2a", "spot"));
}

TEST(UnavailableOfferingsThreadsTest, MarksFromManyThreadsAreAllKept) {
  RealClock clock;
  UnavailableOfferings cache(clock);
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 100; ++i) {
        std::string type = "t";
        type.append(std::to_string(t)).append(".").append(std::to_string(i));
        cache.MarkUnavailable(type, "us-west-2a", "spot", "x");
        EXPECT_TRUE(cache.IsUnavailable(type, "us-west-2a", "spot"));
        (void)cache.SeqNum();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(cache.size(), 400U);
}

}  // namespace
}  // namespace karpenter::aws
