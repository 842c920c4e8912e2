#include "aws/nodeclass/reservation_counts.h"

#include <algorithm>

namespace karpenter::aws {

void ReservationCounts::Set(Count& count, int64_t available) {
  available = std::max<int64_t>(available, 0);
  if (count.available != available) ++seq_num_;
  count.available = available;
}

void ReservationCounts::Sync(std::string_view id, int64_t available) {
  MutexLock lock(mutex_);
  const TimePoint now = clock_.Now();
  // Forget reservations no read has mentioned for longer than their counts are trusted.
  if (std::erase_if(counts_,
                    [&](const auto& entry) { return now - entry.second.read > kTrustedFor; }) > 0) {
    ++seq_num_;
  }
  auto [it, added] = counts_.try_emplace(std::string(id));
  if (added) ++seq_num_;
  Set(it->second, available);
  it->second.read = now;
}

void ReservationCounts::MarkLaunched(std::string_view id, TimePoint sent) {
  MutexLock lock(mutex_);
  const auto it = counts_.find(id);
  if (it == counts_.end() || it->second.read >= sent) return;
  Set(it->second, it->second.available - 1);
}

void ReservationCounts::MarkTerminated(std::string_view id) {
  MutexLock lock(mutex_);
  const auto it = counts_.find(id);
  if (it != counts_.end()) Set(it->second, it->second.available + 1);
}

void ReservationCounts::MarkFull(std::string_view id) {
  MutexLock lock(mutex_);
  const auto it = counts_.find(id);
  if (it != counts_.end()) Set(it->second, 0);
}

int64_t ReservationCounts::Available(std::string_view id) const {
  MutexLock lock(mutex_);
  const auto it = counts_.find(id);
  if (it == counts_.end() || clock_.Now() - it->second.read > kTrustedFor) return 0;
  return it->second.available;
}

uint64_t ReservationCounts::SeqNum() const {
  MutexLock lock(mutex_);
  return seq_num_;
}

}  // namespace karpenter::aws
