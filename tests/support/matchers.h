#pragma once
// GoogleMock matchers for Result and Status, so that a failed expectation prints the error:
//
//   ASSERT_THAT(LoadConfig(path), IsOk());
//   EXPECT_THAT(Parse(text), ErrorIs(HasSubstr("spec.limits")));
//   EXPECT_THAT(client.Get(...), ErrorReasonIs("NotFound"));

#include <gmock/gmock.h>

#include <string>

#include "common/result.h"

namespace karpenter {

MATCHER(IsOk, negation ? "is an error" : "is OK") {
  if (arg.ok()) return true;
  *result_listener << "error: " << arg.error().message;
  return false;
}

// The error's message matches `message_matcher` (a string, or a matcher such as HasSubstr).
MATCHER_P(ErrorIs, message_matcher,
          std::string(negation ? "is not an error whose message " : "is an error whose message ") +
              ::testing::DescribeMatcher<std::string>(message_matcher)) {
  if (arg.ok()) {
    *result_listener << "is OK";
    return false;
  }
  *result_listener << "error: " << arg.error().message;
  return ::testing::ExplainMatchResult(message_matcher, arg.error().message, result_listener);
}

// The error's machine-readable reason ("NotFound", "Conflict", an AWS error code) is `reason`.
MATCHER_P(ErrorReasonIs, reason,
          std::string(negation ? "is not an error with reason " : "is an error with reason ") +
              ::testing::PrintToString(reason)) {
  if (arg.ok()) {
    *result_listener << "is OK";
    return false;
  }
  *result_listener << "error (reason " << ::testing::PrintToString(arg.error().reason)
                   << "): " << arg.error().message;
  return arg.error().reason == reason;
}

}  // namespace karpenter
