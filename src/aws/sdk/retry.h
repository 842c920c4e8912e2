#pragma once
// The AWS SDKs' "standard" retry mode: which failures are worth another attempt, how many
// attempts a call gets (3 unless AWS_MAX_ATTEMPTS says otherwise), and the exponential backoff
// with full jitter between them. The random source and the sleep are injected so tests neither
// depend on chance nor wait.

#include <chrono>
#include <functional>

#include "aws/sdk/environment.h"
#include "common/result.h"

namespace karpenter::aws {

// True for failures that a later attempt may not meet: no response at all (status 0), HTTP 429,
// 500, 502, 503 and 504, and the error codes AWS services use for throttling and transient faults.
bool IsRetryable(const Error& error);

// Copying a policy copies its random source's state; give each ServiceClient its own policy.
class RetryPolicy {
 public:
  using Random = std::function<double()>;  // uniform in [0, 1)
  using Sleep = std::function<void(std::chrono::milliseconds)>;

  static constexpr int kDefaultMaxAttempts = 3;
  static constexpr std::chrono::milliseconds kBaseDelay{1000};
  static constexpr std::chrono::milliseconds kMaxBackoff{20000};

  // `max_attempts` counts the first attempt too; it must be at least 1.
  RetryPolicy(int max_attempts, Random random, Sleep sleep);

  // Standard mode as configured by AWS_MAX_ATTEMPTS (a whole number >= 1), sleeping for real,
  // with a random engine seeded from std::random_device.
  static Result<RetryPolicy> Standard(const Environment& environment);

  int max_attempts() const { return max_attempts_; }
  // Whether to try again after `attempts` attempts ended with `error`.
  bool ShouldRetry(const Error& error, int attempts) const;
  // The wait before retry number `retry` (0 for the first): random × min(20 s, 1 s × 2^retry).
  std::chrono::milliseconds Backoff(int retry) const;
  // Waits Backoff(retry) and returns it.
  std::chrono::milliseconds Wait(int retry) const;

 private:
  int max_attempts_;
  Random random_;
  Sleep sleep_;
};

}  // namespace karpenter::aws
