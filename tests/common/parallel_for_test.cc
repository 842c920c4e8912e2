#include "common/parallel_for.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <set>
#include <thread>
#include <vector>

#include "common/mutex.h"

namespace karpenter {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;

TEST(ParallelFor, EveryIndexRunsOnceWhateverTheWorkers) {
  for (const size_t workers : {0, 1, 2, 3, 8, 100}) {
    for (const size_t count : {0, 1, 7, 1000}) {
      std::vector<std::atomic<int>> runs(count);
      ParallelFor(count, workers, [&](size_t i) { runs[i].fetch_add(1); });
      std::vector<int> seen;
      seen.reserve(count);
      for (const std::atomic<int>& run : runs) seen.push_back(run.load());
      EXPECT_THAT(seen, Each(1)) << workers << " workers, " << count << " indices";
    }
  }
}

TEST(ParallelFor, OneWorkerRunsInOrderOnTheCallersThread) {
  std::vector<size_t> order;
  std::set<std::thread::id> threads;
  ParallelFor(4, 1, [&](size_t i) {
    order.push_back(i);
    threads.insert(std::this_thread::get_id());
  });
  EXPECT_THAT(order, ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(threads, ElementsAre(std::this_thread::get_id()));
}

// Each body waits until all four have started: they can only all finish if they ran at once.
TEST(ParallelFor, WorkersRunAtTheSameTime) {
  constexpr size_t kWorkers = 4;
  Mutex mutex;
  CondVar arrived_changed;
  size_t arrived = 0;
  std::set<std::thread::id> threads;
  std::atomic<size_t> met{0};
  ParallelFor(kWorkers, kWorkers, [&](size_t) {
    MutexLock lock(mutex);
    ++arrived;
    threads.insert(std::this_thread::get_id());
    arrived_changed.NotifyAll();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (arrived < kWorkers && arrived_changed.WaitUntil(lock, deadline)) {
    }
    if (arrived == kWorkers) met.fetch_add(1);
  });
  EXPECT_EQ(met.load(), kWorkers);
  EXPECT_EQ(threads.size(), kWorkers);
  EXPECT_TRUE(threads.contains(std::this_thread::get_id())) << "the caller works too";
}

}  // namespace
}  // namespace karpenter
