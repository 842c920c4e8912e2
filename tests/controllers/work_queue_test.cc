#include "controllers/work_queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace karpenter::controllers {
namespace {

using std::chrono::seconds;
using testing::ElementsAre;
using testing::IsEmpty;

constexpr MonoTime kT0{seconds(1767225600)};

TEST(WorkQueueTest, EmptyQueue) {
  WorkQueue queue;
  EXPECT_EQ(queue.size(), 0u);
  EXPECT_EQ(queue.NextDue(), std::nullopt);
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(1000)), IsEmpty());
}

TEST(WorkQueueTest, TakesOnlyDueKeysEarliestFirst) {
  WorkQueue queue;
  queue.Add("late", kT0 + seconds(10));
  queue.Add("early", kT0 + seconds(1));
  queue.Add("middle", kT0 + seconds(5));
  EXPECT_EQ(queue.size(), 3u);
  EXPECT_EQ(queue.NextDue(), kT0 + seconds(1));

  EXPECT_THAT(queue.TakeDue(kT0), IsEmpty());
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(5)), ElementsAre("early", "middle"));
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.NextDue(), kT0 + seconds(10));
  // A key is taken once.
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(5)), IsEmpty());
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(10)), ElementsAre("late"));
  EXPECT_EQ(queue.size(), 0u);
  EXPECT_EQ(queue.NextDue(), std::nullopt);
}

TEST(WorkQueueTest, TiesAreOrderedByKey) {
  WorkQueue queue;
  for (const char* key : {"c", "a", "b"}) queue.Add(key, kT0);
  EXPECT_THAT(queue.TakeDue(kT0), ElementsAre("a", "b", "c"));
}

TEST(WorkQueueTest, DuplicateKeepsTheEarlierTime) {
  WorkQueue queue;
  queue.Add("x", kT0 + seconds(10));
  queue.Add("x", kT0 + seconds(3));  // earlier: moves it forward
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.NextDue(), kT0 + seconds(3));
  queue.Add("x", kT0 + seconds(20));  // later: ignored
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.NextDue(), kT0 + seconds(3));
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(3)), ElementsAre("x"));
  // Nothing of the moved or ignored entries is left behind.
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(100)), IsEmpty());
  EXPECT_EQ(queue.NextDue(), std::nullopt);
}

TEST(WorkQueueTest, KeyCanBeAddedAgainAfterItWasTaken) {
  WorkQueue queue;
  queue.Add("x", kT0);
  EXPECT_THAT(queue.TakeDue(kT0), ElementsAre("x"));
  queue.Add("x", kT0 + seconds(7));
  EXPECT_EQ(queue.NextDue(), kT0 + seconds(7));
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(6)), IsEmpty());
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(7)), ElementsAre("x"));
}

TEST(WorkQueueTest, ConcurrentAddsAreAllKept) {
  WorkQueue queue;
  constexpr int kThreads = 4;
  constexpr int kKeys = 200;
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&queue, t] {
        // Every thread adds every key, at different times: one entry per key remains.
        for (int k = 0; k < kKeys; ++k) queue.Add("key-" + std::to_string(k), kT0 + seconds(t));
      });
    }
  }
  EXPECT_EQ(queue.size(), static_cast<size_t>(kKeys));
  EXPECT_EQ(queue.NextDue(), kT0);
  EXPECT_EQ(queue.TakeDue(kT0).size(), static_cast<size_t>(kKeys));
  EXPECT_EQ(queue.size(), 0u);
}

TEST(WorkQueueTest, KeepsControllerRuntimesSeries) {
  prometheus::Registry registry;
  auto& depth = prometheus::BuildGauge().Name("depth").Register(registry).Add({});
  auto& adds = prometheus::BuildCounter().Name("adds").Register(registry).Add({});
  auto& waited = prometheus::BuildHistogram().Name("waited").Register(registry).Add(
      {}, prometheus::Histogram::BucketBoundaries{0.5, 5});
  WorkQueue queue({&depth, &adds, &waited});
  queue.Add("a", kT0);
  queue.Add("b", kT0 + seconds(10));
  queue.Add("a", kT0 + seconds(1));  // already queued: no add
  EXPECT_EQ(adds.Value(), 2);
  EXPECT_EQ(depth.Value(), 2);
  // "a" waited 3 s once due; "b" was due at 10 s: its delay is not waiting.
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(3)), ElementsAre("a"));
  EXPECT_EQ(depth.Value(), 1);
  EXPECT_THAT(queue.TakeDue(kT0 + seconds(10)), ElementsAre("b"));
  EXPECT_EQ(depth.Value(), 0);
  const prometheus::ClientMetric observed = waited.Collect();
  EXPECT_EQ(observed.histogram.sample_count, 2u);
  EXPECT_DOUBLE_EQ(observed.histogram.sample_sum, 3);
  EXPECT_EQ(observed.histogram.bucket[0].cumulative_count, 1u);  // 0 s ≤ 0.5
}

}  // namespace
}  // namespace karpenter::controllers
