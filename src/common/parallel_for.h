#pragma once
// Runs body(0), …, body(count − 1) on up to `workers` threads, the caller's among them, and returns
// once all have returned. With one worker (or at most one index) everything runs on the caller's
// thread in index order, so a caller on a virtual clock stays deterministic. The body must be safe
// to run concurrently with itself for different indices; it reports its outcome through what it
// captures (one slot per index), not by throwing.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace karpenter {

template <typename Body>
void ParallelFor(size_t count, size_t workers, const Body& body) {
  workers = std::min(workers, count);
  if (workers <= 1) {
    for (size_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) body(i);
  };
  std::vector<std::jthread> helpers;
  helpers.reserve(workers - 1);
  for (size_t helper = 1; helper < workers; ++helper) helpers.emplace_back(work);
  work();
  // The helpers join as they go out of scope.
}

}  // namespace karpenter
