// Standard retry mode: what is retried, how often, and how long to wait in between.

#include "aws/sdk/retry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

Environment Env(std::map<std::string, std::string, std::less<>> variables) {
  return Environment(std::move(variables));
}

using std::chrono::milliseconds;

RetryPolicy Policy(int max_attempts, RetryPolicy::Random random,
                   std::vector<milliseconds>* slept = nullptr) {
  return RetryPolicy(max_attempts, std::move(random), [slept](milliseconds delay) {
    if (slept != nullptr) slept->push_back(delay);
  });
}

TEST(RetryTest, TransportFailuresServerErrorsAndThrottlingAreRetryable) {
  EXPECT_TRUE(IsRetryable(Error{"connection refused", 0, "ConnectionError"}));
  for (const int status : {429, 500, 502, 503, 504}) {
    EXPECT_TRUE(IsRetryable(Error{"", status, ""})) << status;
  }
  for (const char* code :
       {"Throttling", "ThrottlingException", "RequestLimitExceeded", "EC2ThrottledException",
        "TooManyRequestsException", "SlowDown", "RequestTimeout", "InternalError",
        "IDPCommunicationError", "PriorRequestNotComplete", "LimitExceededException"}) {
    EXPECT_TRUE(IsRetryable(Error{"", 400, code})) << code;
  }
}

TEST(RetryTest, ClientErrorsAreNotRetryable) {
  for (const char* code : {"InvalidParameterValue", "UnauthorizedOperation", "AccessDenied",
                           "InsufficientInstanceCapacity", "ValidationException", ""}) {
    EXPECT_FALSE(IsRetryable(Error{"", 400, code})) << code;
  }
  EXPECT_FALSE(IsRetryable(Error{"", 403, "AccessDenied"}));
  EXPECT_FALSE(IsRetryable(Error{"", 501, ""}));
}

TEST(RetryTest, AttemptsAreCapped) {
  const RetryPolicy policy = Policy(3, [] { return 0.5; });
  const Error throttled{"", 400, "Throttling"};
  EXPECT_TRUE(policy.ShouldRetry(throttled, 1));
  EXPECT_TRUE(policy.ShouldRetry(throttled, 2));
  EXPECT_FALSE(policy.ShouldRetry(throttled, 3));
  EXPECT_FALSE(Policy(1, [] { return 0.5; }).ShouldRetry(throttled, 1));
}

TEST(RetryTest, BackoffDoublesUpToTwentySecondsScaledByTheRandomFraction) {
  const RetryPolicy policy = Policy(10, [] { return 0.75; });
  EXPECT_EQ(policy.Backoff(0), milliseconds(750));
  EXPECT_EQ(policy.Backoff(1), milliseconds(1500));
  EXPECT_EQ(policy.Backoff(2), milliseconds(3000));
  EXPECT_EQ(policy.Backoff(4), milliseconds(12000));
  EXPECT_EQ(policy.Backoff(5), milliseconds(15000));  // 32 s capped at 20 s
  EXPECT_EQ(policy.Backoff(60), milliseconds(15000));
  EXPECT_EQ(Policy(3, [] { return 0.25; }).Backoff(2), milliseconds(1000));
}

TEST(RetryTest, SeededBackoffsStayWithinTheirCeilings) {
  std::mt19937 engine(42);
  const RetryPolicy policy =
      Policy(10, [&engine] { return std::uniform_real_distribution<double>(0.0, 1.0)(engine); });
  std::vector<milliseconds> delays;
  for (int retry = 0; retry < 200; ++retry) {
    const milliseconds ceiling(std::min<int64_t>(20000, int64_t{1000} << (retry % 8)));
    const milliseconds delay = policy.Backoff(retry % 8);
    EXPECT_GE(delay, milliseconds(0));
    EXPECT_LT(delay, ceiling + milliseconds(1));
    delays.push_back(delay);
  }
  // Jitter: not every delay at one retry number is the same.
  EXPECT_NE(delays[0], delays[8]);
}

TEST(RetryTest, WaitSleepsTheBackoff) {
  std::vector<milliseconds> slept;
  const RetryPolicy policy = Policy(
      3, [] { return 0.5; }, &slept);
  EXPECT_EQ(policy.Wait(0), milliseconds(500));
  EXPECT_EQ(policy.Wait(1), milliseconds(1000));
  EXPECT_EQ(slept, (std::vector<milliseconds>{milliseconds(500), milliseconds(1000)}));
}

TEST(RetryTest, MaxAttemptsComesFromTheEnvironment) {
  Result<RetryPolicy> standard = RetryPolicy::Standard({});
  ASSERT_THAT(standard, IsOk());
  EXPECT_EQ(standard->max_attempts(), 3);
  Result<RetryPolicy> five = RetryPolicy::Standard(Env({{"AWS_MAX_ATTEMPTS", "5"}}));
  ASSERT_THAT(five, IsOk());
  EXPECT_EQ(five->max_attempts(), 5);
  const milliseconds delay = five->Backoff(0);
  EXPECT_GE(delay, milliseconds(0));
  EXPECT_LT(delay, milliseconds(1001));
  for (const char* bad : {"0", "-1", "three", "3x"}) {
    Result<RetryPolicy> policy = RetryPolicy::Standard(Env({{"AWS_MAX_ATTEMPTS", bad}}));
    ASSERT_FALSE(policy.ok()) << bad;
    EXPECT_THAT(policy.error().message, ::testing::HasSubstr("AWS_MAX_ATTEMPTS"));
  }
}

}  // namespace
}  // namespace karpenter::aws
