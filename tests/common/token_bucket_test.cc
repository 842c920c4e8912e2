#include "common/token_bucket.h"

#include <gtest/gtest.h>

#include <chrono>

namespace karpenter {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr TimePoint kStart{std::chrono::seconds(1767225600)};

TEST(TokenBucket, ABurstGoesAtOnceThenOnePerInterval) {
  VirtualClock clock(kStart);
  TokenBucket bucket(/*qps=*/10, /*burst=*/3, clock);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.Reserve(), nanoseconds(0)) << i;
  // Reservations past the burst queue up, each 100 ms after the one before.
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));
  EXPECT_EQ(bucket.Reserve(), milliseconds(200));
  // After 200 ms both are paid for, and nothing is left over.
  clock.Advance(milliseconds(200));
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));
}

TEST(TokenBucket, RefillsUpToTheBurstOnly) {
  VirtualClock clock(kStart);
  TokenBucket bucket(/*qps=*/100, /*burst=*/2, clock);
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  clock.Advance(std::chrono::hours(1));  // a long quiet time earns no more than the burst
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), milliseconds(10));
  // Half a token's time later, the next waits for the rest of it and one more.
  clock.Advance(milliseconds(5));
  EXPECT_EQ(bucket.Reserve(), milliseconds(15));
}

}  // namespace
}  // namespace karpenter
