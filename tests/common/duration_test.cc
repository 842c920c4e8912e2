#include "common/duration.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "support/matchers.h"
#include "support/param_name.h"

namespace karpenter {
namespace {

using std::chrono::milliseconds;

struct ParseCase {
  std::string_view text;
  int64_t millis;
};

class DurationParseTest : public testing::TestWithParam<ParseCase> {};

TEST_P(DurationParseTest, ParsesToMilliseconds) {
  const ParseCase& c = GetParam();
  const Result<Duration> d = Duration::Parse(c.text);
  ASSERT_THAT(d, IsOk()) << c.text << ": " << d.error().message;
  EXPECT_FALSE(d->never()) << c.text;
  EXPECT_EQ(d->value().count(), c.millis) << c.text;
}

TEST_P(DurationParseTest, CanonicalTextParsesBackToTheSameValue) {
  const ParseCase& c = GetParam();
  const Duration d = Duration::Of(milliseconds(c.millis));
  const Result<Duration> back = Duration::Parse(d.ToString(), /*allow_never=*/false);
  ASSERT_THAT(back, IsOk()) << d.ToString() << ": " << back.error().message;
  EXPECT_EQ(*back, d) << d.ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Single, DurationParseTest,
    testing::Values(ParseCase{"0", 0}, ParseCase{"-0", 0}, ParseCase{"+0", 0}, ParseCase{"0s", 0},
                    ParseCase{"0h", 0}, ParseCase{"1ns", 0}, ParseCase{"1000000000ns", 1000},
                    ParseCase{"1000us", 1}, ParseCase{"2000000us", 2000},
                    ParseCase{"1000\u00b5s", 1},  // micro sign
                    ParseCase{"1000\u03bcs", 1},  // Greek mu
                    ParseCase{"300ms", 300}, ParseCase{"1s", 1000}, ParseCase{"90s", 90'000},
                    ParseCase{"1m", 60'000}, ParseCase{"5m", 300'000}, ParseCase{"1h", 3'600'000},
                    ParseCase{"720h", 2'592'000'000}, ParseCase{"+5m", 300'000},
                    ParseCase{"-1h", -3'600'000}, ParseCase{"007s", 7000}),
    ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(Fractions, DurationParseTest,
                         testing::Values(ParseCase{"1.5h", 5'400'000}, ParseCase{"1.5s", 1500},
                                         ParseCase{".5s", 500}, ParseCase{"1.s", 1000},
                                         ParseCase{"0.1h", 360'000},
                                         // Exact decimal arithmetic: no 0.3 * 3600s = 1079.99…s.
                                         ParseCase{"0.3h", 1'080'000}, ParseCase{"0.7m", 42'000},
                                         ParseCase{"2.25m", 135'000}, ParseCase{"-1.5s", -1500},
                                         ParseCase{"1.000000000000000000001s", 1000},
                                         // Below a millisecond truncates toward zero.
                                         ParseCase{"1500us", 1}, ParseCase{"1.9ms", 1},
                                         ParseCase{"0.0000001s", 0}, ParseCase{"-1.9ms", -1}));

INSTANTIATE_TEST_SUITE_P(
    Sequences, DurationParseTest,
    testing::Values(ParseCase{"1h30m", 5'400'000}, ParseCase{"1m30s", 90'000},
                    ParseCase{"1h1m1s1ms", 3'661'001}, ParseCase{"720h0m0s", 2'592'000'000},
                    ParseCase{"1h0m0.5s", 3'600'500}, ParseCase{"-1h30m", -5'400'000},
                    ParseCase{"1s1s", 2000}, ParseCase{"1m1h", 3'660'000},
                    ParseCase{"1.5h30m", 7'200'000}, ParseCase{"500ms500ms", 1000}),
    ::karpenter::ReadableParamName());

// Go durations are int64 nanoseconds, about 292 years either way.
INSTANTIATE_TEST_SUITE_P(Limits, DurationParseTest,
                         testing::Values(ParseCase{"2562047h", 9'223'369'200'000},
                                         ParseCase{"9223372036854775807ns", 9'223'372'036'854},
                                         ParseCase{"-9223372036854775808ns", -9'223'372'036'854},
                                         ParseCase{"2562047h47m16.854775807s", 9'223'372'036'854}),
                         ::karpenter::ReadableParamName());

struct ErrorCase {
  std::string_view text;
  std::string_view reason;
};

class DurationParseErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(DurationParseErrorTest, RejectsWithReason) {
  const ErrorCase& c = GetParam();
  const Result<Duration> d = Duration::Parse(c.text);
  ASSERT_FALSE(d.ok()) << c.text << " parsed as " << d->ToString();
  EXPECT_NE(d.error().message.find(c.reason), std::string::npos)
      << c.text << ": " << d.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    All, DurationParseErrorTest,
    testing::Values(ErrorCase{"", "empty"}, ErrorCase{"-", "number"}, ErrorCase{"+", "number"},
                    ErrorCase{"1", "missing unit"}, ErrorCase{"10", "missing unit"},
                    ErrorCase{"-5", "missing unit"}, ErrorCase{"1.5", "missing unit"},
                    ErrorCase{"1h30", "missing unit"}, ErrorCase{"1.2.3s", "missing unit"},
                    ErrorCase{"h", "number"}, ErrorCase{"s", "number"}, ErrorCase{".s", "number"},
                    ErrorCase{" 1s", "number"}, ErrorCase{"--1s", "number"},
                    ErrorCase{"1x", "unknown unit \"x\""}, ErrorCase{"1d", "unknown unit \"d\""},
                    ErrorCase{"1H", "unknown unit \"H\""}, ErrorCase{"1hh", "unknown unit"},
                    ErrorCase{"1h 30m", "unknown unit \"h \""}, ErrorCase{"1s ", "unknown unit"},
                    ErrorCase{"1sec", "unknown unit"}, ErrorCase{"never", "number"},
                    ErrorCase{"NEVER", "number"}, ErrorCase{"2562048h", "out of range"},
                    ErrorCase{"9223372036854775808ns", "out of range"},
                    ErrorCase{"-9223372036854775809ns", "out of range"},
                    ErrorCase{"99999999999999999999s", "out of range"},
                    ErrorCase{"2562047h48m", "out of range"}),
    ::karpenter::ReadableParamName());

TEST(DurationTest, NeverWhenAllowed) {
  const Result<Duration> d = Duration::Parse("Never");
  ASSERT_THAT(d, IsOk());
  EXPECT_TRUE(d->never());
  EXPECT_EQ(*d, Duration::Never());
  EXPECT_NE(*d, Duration());
  EXPECT_EQ(d->ToString(), "Never");

  const Result<Duration> explicit_allow = Duration::Parse("Never", /*allow_never=*/true);
  ASSERT_THAT(explicit_allow, IsOk());
  EXPECT_TRUE(explicit_allow->never());
}

TEST(DurationTest, NeverRejectedWhenNotAllowed) {
  const Result<Duration> d = Duration::Parse("Never", /*allow_never=*/false);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("Never"), std::string::npos) << d.error().message;
  EXPECT_THAT(Duration::Parse("1h", /*allow_never=*/false), IsOk());
}

TEST(DurationTest, ErrorNamesTheReasonOnly) {
  // Callers quote the text and say where it came from; the reason must not repeat it.
  const Result<Duration> d = Duration::Parse("15x");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message.find("15x"), std::string::npos) << d.error().message;
  EXPECT_NE(d.error().message.find("\"x\""), std::string::npos) << d.error().message;
}

TEST(DurationTest, SecondsAccessor) {
  EXPECT_DOUBLE_EQ(Duration::Of(milliseconds(1500)).seconds(), 1.5);
  EXPECT_DOUBLE_EQ(Duration().seconds(), 0.0);
}

struct FormatCase {
  int64_t millis;
  std::string_view text;
};

class DurationFormatTest : public testing::TestWithParam<FormatCase> {};

TEST_P(DurationFormatTest, FormatsLikeGo) {
  const FormatCase& c = GetParam();
  EXPECT_EQ(Duration::Of(milliseconds(c.millis)).ToString(), c.text) << c.millis;
}

INSTANTIATE_TEST_SUITE_P(
    All, DurationFormatTest,
    testing::Values(FormatCase{0, "0s"}, FormatCase{1, "1ms"}, FormatCase{500, "500ms"},
                    FormatCase{999, "999ms"}, FormatCase{1000, "1s"}, FormatCase{1010, "1.01s"},
                    FormatCase{1500, "1.5s"}, FormatCase{1250, "1.25s"}, FormatCase{1001, "1.001s"},
                    FormatCase{30'000, "30s"}, FormatCase{60'000, "1m0s"},
                    FormatCase{90'000, "1m30s"}, FormatCase{61'001, "1m1.001s"},
                    FormatCase{3'600'000, "1h0m0s"}, FormatCase{3'600'500, "1h0m0.5s"},
                    FormatCase{5'400'000, "1h30m0s"}, FormatCase{3'661'001, "1h1m1.001s"},
                    FormatCase{2'592'000'000, "720h0m0s"}, FormatCase{-500, "-500ms"},
                    FormatCase{-90'000, "-1m30s"}, FormatCase{-3'600'000, "-1h0m0s"}),
    ::karpenter::ReadableParamName());

}  // namespace
}  // namespace karpenter
