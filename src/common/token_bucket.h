#pragma once
// A token bucket, as client-go's rate limiter for API requests (upstream's KUBE_CLIENT_QPS and
// KUBE_CLIENT_BURST): `burst` requests may go at once, then one more every 1/qps seconds. A caller
// reserves its turn and waits the delay it is given, so waiting callers keep their order.

#include <chrono>

#include "common/clock.h"
#include "common/mutex.h"

namespace karpenter {

class TokenBucket {
 public:
  // `qps` > 0 and `burst` >= 1; the bucket starts full. `clock` must outlive it.
  TokenBucket(double qps, int burst, const Clock& clock);

  // Takes one token and returns how long to wait before using it: zero while tokens are left,
  // else until the token this call took is refilled. Thread-safe.
  std::chrono::nanoseconds Reserve() EXCLUDES(mutex_);

 private:
  const double qps_;
  const double burst_;
  const Clock& clock_;
  Mutex mutex_;
  // Tokens at `at`; negative when reservations ran ahead of the refill.
  double tokens_ GUARDED_BY(mutex_);
  MonoTime at_ GUARDED_BY(mutex_);
};

}  // namespace karpenter
