// Pagination: follows NextToken to the end, and refuses to loop on a server that never ends.

#include "aws/sdk/pagination.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::HasSubstr;

TEST(PaginationTest, FollowsTokensUntilNone) {
  const std::vector<std::string> next = {"t1", "t2", ""};
  std::vector<std::string> asked;
  const Status status = Paginate("ec2 DescribeSubnets", [&](const std::string& token) {
    asked.push_back(token);
    return Result<std::string>(next[asked.size() - 1]);
  });
  ASSERT_THAT(status, IsOk());
  EXPECT_EQ(asked, (std::vector<std::string>{"", "t1", "t2"}));
}

TEST(PaginationTest, APageErrorStopsTheWalk) {
  int calls = 0;
  const Status status = Paginate("ssm GetParametersByPath", [&](const std::string&) {
    ++calls;
    return calls == 2
               ? Result<std::string>(Error{"ThrottlingException: slow down", 400, "Throttling"})
               : Result<std::string>("more");
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().reason, "Throttling");
  EXPECT_EQ(calls, 2);
}

TEST(PaginationTest, ARepeatedTokenIsAnError) {
  int calls = 0;
  const Status status = Paginate("pricing GetProducts", [&](const std::string&) {
    ++calls;
    return Result<std::string>("same");
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(calls, 2);
  EXPECT_THAT(status.error().message,
              HasSubstr("pricing GetProducts: the server returned the same NextToken"));
}

TEST(PaginationTest, ThePageCapStopsAServerThatNeverEnds) {
  int calls = 0;
  const Status status = Paginate(
      "ec2 DescribeInstances",
      [&](const std::string&) {
        ++calls;
        return Result<std::string>(calls % 2 == 0 ? "a" : "b");  // alternating: never repeats
      },
      /*max_pages=*/5);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(calls, 5);
  EXPECT_THAT(status.error().message, HasSubstr("ec2 DescribeInstances: still more pages after 5"));
}

}  // namespace
}  // namespace karpenter::aws
