#include "aws/sdk/retry.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

namespace karpenter::aws {
namespace {

// Throttling and transient error codes as the services report them (the code in the error body
// or in SQS's x-amzn-query-error header).
constexpr std::array<std::string_view, 18> kRetryableCodes = {
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
    "PriorRequestNotComplete",
    "EC2ThrottledException",
    "RequestTimeout",
    "RequestTimeoutException",
    "InternalError",
    "IDPCommunicationError",
};

}  // namespace

bool IsRetryable(const Error& error) {
  switch (error.status) {
    case 0:
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    default:
      return std::find(kRetryableCodes.begin(), kRetryableCodes.end(), error.reason) !=
             kRetryableCodes.end();
  }
}

RetryPolicy::RetryPolicy(int max_attempts, Random random, Sleep sleep)
    : max_attempts_(max_attempts), random_(std::move(random)), sleep_(std::move(sleep)) {
  if (max_attempts_ < 1) throw std::invalid_argument("RetryPolicy: max_attempts must be >= 1");
}

Result<RetryPolicy> RetryPolicy::Standard(const Environment& environment) {
  int max_attempts = kDefaultMaxAttempts;
  if (const std::string_view text = environment.Get("AWS_MAX_ATTEMPTS"); !text.empty()) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), max_attempts);
    if (error != std::errc() || end != text.data() + text.size() || max_attempts < 1) {
      return Error{"AWS_MAX_ATTEMPTS=\"" + std::string(text) + "\": expected a whole number >= 1"};
    }
  }
  Random random = [engine = std::mt19937_64(std::random_device{}())]() mutable {
    return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
  };
  Sleep sleep = [](std::chrono::milliseconds delay) { std::this_thread::sleep_for(delay); };
  return RetryPolicy(max_attempts, std::move(random), std::move(sleep));
}

bool RetryPolicy::ShouldRetry(const Error& error, int attempts) const {
  return attempts < max_attempts_ && IsRetryable(error);
}

std::chrono::milliseconds RetryPolicy::Backoff(int retry) const {
  // 2^5 s already exceeds the cap, so larger exponents need not be computed (nor overflow).
  const std::chrono::milliseconds ceiling =
      std::min(kMaxBackoff, kBaseDelay * (int64_t{1} << std::clamp(retry, 0, 5)));
  const double fraction = std::clamp(random_(), 0.0, 1.0);
  return std::chrono::milliseconds(
      static_cast<int64_t>(fraction * static_cast<double>(ceiling.count())));
}

std::chrono::milliseconds RetryPolicy::Wait(int retry) const {
  const std::chrono::milliseconds delay = Backoff(retry);
  sleep_(delay);
  return delay;
}

}  // namespace karpenter::aws
