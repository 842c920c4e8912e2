#include "common/token_bucket.h"

#include <algorithm>

namespace karpenter {

TokenBucket::TokenBucket(double qps, int burst, const Clock& clock)
    : qps_(qps), burst_(burst), clock_(clock), tokens_(burst), at_(clock.Monotonic()) {}

std::chrono::nanoseconds TokenBucket::Reserve() {
  MutexLock lock(mutex_);
  const MonoTime now = clock_.Monotonic();
  if (now > at_) {
    const double refill = std::chrono::duration<double>(now - at_).count() * qps_;
    tokens_ = std::min(burst_, tokens_ + refill);
    at_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return std::chrono::nanoseconds(0);
  // The deficit is paid back at qps tokens a second.
  return std::chrono::ceil<std::chrono::nanoseconds>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

}  // namespace karpenter
