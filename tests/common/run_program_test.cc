#include "common/run_program.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/matchers.h"

namespace karpenter {
namespace {

using ::testing::HasSubstr;

TEST(RunProgramTest, ReturnsWhatItPrintedOnBothStreams) {
  Result<std::string> out = RunProgram({"sh", "-c", "echo out; echo err >&2"});
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(*out, "out\nerr\n");
}

TEST(RunProgramTest, PassesArgumentsAsTheyAreWithoutAShell) {
  Result<std::string> out = RunProgram({"printf", "%s|", "a b", "$HOME", "'q'"});
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(*out, "a b|$HOME|'q'|");
}

TEST(RunProgramTest, ANonZeroExitIsAnErrorWithTheOutput) {
  Result<std::string> out = RunProgram({"sh", "-c", "echo the reason >&2; exit 3"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.error().message, HasSubstr("sh failed (exit status 3)"));
  EXPECT_THAT(out.error().message, HasSubstr("the reason"));
}

TEST(RunProgramTest, AProgramNotOnThePathIsNotFound) {
  Result<std::string> out = RunProgram({"karpenter-no-such-program"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().reason, "NotFound");
  EXPECT_THAT(out.error().message, HasSubstr("karpenter-no-such-program"));
}

TEST(RunProgramTest, ReadsNothingFromItsStandardInput) {
  // stdin is /dev/null: a program that reads it ends instead of waiting.
  Result<std::string> out = RunProgram({"cat"});
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(*out, "");
}

}  // namespace
}  // namespace karpenter
