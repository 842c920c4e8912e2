// Proof that a sanitized build (scripts/sanitize) reports what it runs to find: each test commits
// the error in a child process (a death test) and expects the sanitizer's report there. In a build
// without that sanitizer the test is skipped, saying so.

#include <gtest/gtest.h>

#include <climits>
#include <memory>
#include <thread>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KARPENTER_TEST_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define KARPENTER_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KARPENTER_TEST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define KARPENTER_TEST_TSAN 1
#endif

namespace karpenter {
namespace {

// Where the error happens: not inlined into the test, so nothing folds it away.
[[gnu::noinline, maybe_unused]] int WriteBeyond(int* array, int index) {
  array[index] = 7;
  return array[0];
}

[[gnu::noinline, maybe_unused]] int Add(int a, int b) { return a + b; }

TEST(SanitizersTest, AddressSanitizerReportsAHeapOverflow) {
#ifndef KARPENTER_TEST_ASAN
  GTEST_SKIP() << "not built with AddressSanitizer";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto array = std::make_unique<int[]>(4);
        WriteBeyond(array.get(), 4);
      },
      "heap-buffer-overflow");
#endif
}

TEST(SanitizersTest, UndefinedBehaviourSanitizerReportsASignedOverflow) {
#ifndef KARPENTER_TEST_ASAN  // UBSan goes with ASan in scripts/sanitize
  GTEST_SKIP() << "not built with UBSan";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  volatile int big = INT_MAX;
  EXPECT_DEATH(Add(big, 1), "signed integer overflow");
#endif
}

TEST(SanitizersTest, ThreadSanitizerReportsADataRace) {
#ifndef KARPENTER_TEST_TSAN
  GTEST_SKIP() << "not built with ThreadSanitizer";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        int shared = 0;  // written by two threads without a lock
        std::thread other([&shared] { shared = Add(shared, 1); });
        shared = Add(shared, 2);
        other.join();
      },
      "data race");
#endif
}

}  // namespace
}  // namespace karpenter
