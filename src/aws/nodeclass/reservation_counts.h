#pragma once
// How many more instances each capacity reservation takes (docs/upstream-reference.md §6,
// capacity reservations): set from DescribeCapacityReservations' availableInstanceCount whenever
// the EC2NodeClass controller reads the reservations, counted down when Karpenter launches into
// one and up when it terminates an instance of one, and set to 0 when a launch finds it full —
// each until the next read, so the scheduler never plans more than the reservation holds between
// two reads. A count read is trusted for a day (EC2 may be unreachable meanwhile); an unknown
// reservation has room for none.
//
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"

namespace karpenter::aws {

class ReservationCounts {
 public:
  static constexpr std::chrono::hours kTrustedFor{24};

  // `clock` must outlive this.
  explicit ReservationCounts(const Clock& clock) : clock_(clock) {}

  // What EC2 says now: `available` instances of reservation `id`.
  void Sync(std::string_view id, int64_t available);
  // One instance launched into `id` by a request sent at `sent`: counted unless the count was
  // read since (EC2's answer may already include it; counting it twice would strand capacity).
  void MarkLaunched(std::string_view id, TimePoint sent);
  // One instance of `id` terminated.
  void MarkTerminated(std::string_view id);
  // A launch found `id` full.
  void MarkFull(std::string_view id);

  // Instances `id` still takes; 0 when unknown or read more than a day ago.
  int64_t Available(std::string_view id) const;
  // Changes whenever a count changes: a cache key for what is built from them.
  uint64_t SeqNum() const;

 private:
  struct Count {
    int64_t available = 0;
    TimePoint read;
  };
  void Set(Count& count, int64_t available) REQUIRES(mutex_);

  const Clock& clock_;
  mutable Mutex mutex_;
  std::map<std::string, Count, std::less<>> counts_ GUARDED_BY(mutex_);
  uint64_t seq_num_ GUARDED_BY(mutex_) = 0;
};

}  // namespace karpenter::aws
