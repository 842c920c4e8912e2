#include "common/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string_view>

#include "support/param_name.h"

namespace karpenter {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

// 2026-11-30T23:53:15Z: 20787 days from 1970-01-01 to 2026-11-30 (checked with Python), plus
// 23:53:15.
constexpr TimePoint kSample{seconds(int64_t{20787} * 86400 + 23 * 3600 + 53 * 60 + 15)};

TEST(VirtualClockTest, MonotonicTimeFollowsAdvanceButNotAStepBack) {
  VirtualClock clock(TimePoint(std::chrono::seconds(1767225600)));
  const MonoTime start = clock.Monotonic();
  clock.Advance(std::chrono::seconds(5));
  EXPECT_EQ(clock.Monotonic() - start, std::chrono::seconds(5));
  clock.Set(clock.Now() + std::chrono::seconds(10));  // forward: both move
  EXPECT_EQ(clock.Monotonic() - start, std::chrono::seconds(15));
  clock.Set(clock.Now() - std::chrono::hours(1));  // a step back: the wall time only
  EXPECT_EQ(clock.Now(), TimePoint(std::chrono::seconds(1767225600 + 15 - 3600)));
  EXPECT_EQ(clock.Monotonic() - start, std::chrono::seconds(15));
  clock.Advance(std::chrono::seconds(1));
  EXPECT_EQ(clock.Monotonic() - start, std::chrono::seconds(16));
}

TEST(MonotonicAtTest, AWallDeadlineBecomesTheSameDelayOnTheMonotonicClock) {
  VirtualClock clock(TimePoint(std::chrono::seconds(1767225600)));
  clock.Advance(std::chrono::seconds(7));
  EXPECT_EQ(MonotonicAt(clock, clock.Now() + std::chrono::seconds(30)),
            clock.Monotonic() + std::chrono::seconds(30));
}

TEST(FormatTimeTest, WholeSecondsInUtc) {
  EXPECT_EQ(FormatTime(kSample), "2026-11-30T23:53:15Z");
  EXPECT_EQ(FormatTime(TimePoint()), "1970-01-01T00:00:00Z");
  // A fraction is dropped, not rounded up.
  EXPECT_EQ(FormatTime(kSample + milliseconds(999)), "2026-11-30T23:53:15Z");
  // Leap day and the turn of a year.
  EXPECT_EQ(FormatTime(TimePoint(seconds(951782400))), "2000-02-29T00:00:00Z");
  EXPECT_EQ(FormatTime(TimePoint(seconds(1767225599))), "2025-12-31T23:59:59Z");
}

TEST(FormatTimeTest, MicroTimeHasSixFractionDigits) {
  EXPECT_EQ(FormatMicroTime(kSample), "2026-11-30T23:53:15.000000Z");
  EXPECT_EQ(FormatMicroTime(kSample + microseconds(123456)), "2026-11-30T23:53:15.123456Z");
  EXPECT_EQ(FormatMicroTime(kSample + microseconds(7)), "2026-11-30T23:53:15.000007Z");
  // Below a microsecond is truncated.
  EXPECT_EQ(FormatMicroTime(kSample + nanoseconds(999)), "2026-11-30T23:53:15.000000Z");
  // Before the epoch the fraction still counts forward from the whole second.
  EXPECT_EQ(FormatMicroTime(TimePoint() - microseconds(1)), "1969-12-31T23:59:59.999999Z");
}

TEST(ParseTimeTest, TimesATimePointCannotHoldAreRefusedNotOverflowed) {
  EXPECT_EQ(ParseTime("1013-01-01T00:00:00Z"), std::nullopt);  // found by inputs_fuzz
  EXPECT_EQ(ParseTime("9999-12-31T23:59:59Z"), std::nullopt);
  EXPECT_EQ(ParseTime("2262-04-11T23:47:16Z"), std::nullopt);
  EXPECT_NE(ParseTime("2262-04-11T23:47:15.999999999Z"), std::nullopt);
  EXPECT_NE(ParseTime("1678-01-01T00:00:00Z"), std::nullopt);
}

TEST(ParseTimeTest, ParsesWholeSecondsAndMicroTime) {
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15Z"), kSample);
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15.123456Z"), kSample + microseconds(123456));
  EXPECT_EQ(ParseTime("1970-01-01T00:00:00Z"), TimePoint());
  EXPECT_EQ(ParseTime("2000-02-29T00:00:00Z"), TimePoint(seconds(951782400)));
  // Lower-case separators are RFC 3339 too.
  EXPECT_EQ(ParseTime("2026-11-30t23:53:15z"), kSample);
}

TEST(ParseTimeTest, AnyFractionOfASecond) {
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15.5Z"), kSample + milliseconds(500));
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15.05Z"), kSample + milliseconds(50));
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15.123Z"), kSample + milliseconds(123));
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15.000000001Z"), kSample + nanoseconds(1));
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15.987654321Z"), kSample + nanoseconds(987654321));
  // Digits beyond nanoseconds are accepted and dropped.
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15.1234567899999Z"), kSample + nanoseconds(123456789));
}

TEST(ParseTimeTest, NumericOffsetsConvertToUtc) {
  EXPECT_EQ(ParseTime("2026-12-01T01:53:15+02:00"), kSample);
  EXPECT_EQ(ParseTime("2026-11-30T18:23:15-05:30"), kSample);
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15+00:00"), kSample);
  EXPECT_EQ(ParseTime("2026-11-30T23:53:15-00:00"), kSample);
  EXPECT_EQ(ParseTime("2026-12-01T00:53:15.25+01:00"), kSample + milliseconds(250));
  // Across a year boundary.
  EXPECT_EQ(ParseTime("2025-12-31T23:00:00-01:00"), TimePoint(seconds(1767225600)));
}

TEST(ParseTimeTest, RoundTripsWhatFormatWrites) {
  for (const TimePoint time :
       {kSample, TimePoint(), kSample + hours(24 * 366), TimePoint(seconds(951782400)),
        TimePoint(seconds(4102444800)) /* 2100-01-01 */}) {
    EXPECT_EQ(ParseTime(FormatTime(time)), time) << FormatTime(time);
    const TimePoint fractional = time + microseconds(654321);
    EXPECT_EQ(ParseTime(FormatMicroTime(fractional)), fractional) << FormatMicroTime(fractional);
  }
  // The text survives a round trip through a TimePoint.
  for (const std::string_view text : {"2026-11-30T23:53:15Z", "1999-12-31T23:59:59Z",
                                      "2024-02-29T12:00:00Z", "2038-01-19T03:14:08Z"}) {
    const std::optional<TimePoint> parsed = ParseTime(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    EXPECT_EQ(FormatTime(*parsed), text);
  }
  const std::optional<TimePoint> micro = ParseTime("2026-11-30T23:53:15.000042Z");
  ASSERT_TRUE(micro.has_value());
  EXPECT_EQ(FormatMicroTime(*micro), "2026-11-30T23:53:15.000042Z");
}

class ParseTimeRejectsTest : public testing::TestWithParam<std::string_view> {};

TEST_P(ParseTimeRejectsTest, Rejects) { EXPECT_EQ(ParseTime(GetParam()), std::nullopt); }

INSTANTIATE_TEST_SUITE_P(
    Syntax, ParseTimeRejectsTest,
    testing::Values("", "2026", "2026-11-30", "2026-11-30T23:53", "2026-11-30T23:53:15",
                    "2026-11-30 23:53:15Z", "2026/11/30T23:53:15Z", "2026-11-30T23-53-15Z",
                    "26-11-30T23:53:15Z", "2026-1-30T23:53:15Z", "2026-11-3T23:53:15Z",
                    "2026-11-30T3:53:15Z", "2026-11-30T23:53:1Z", "x026-11-30T23:53:15Z",
                    "2026-11-30T23:53:15.Z", "2026-11-30T23:53:15.12a3Z", "2026-11-30T23:53:15ZZ",
                    "2026-11-30T23:53:15Z ", " 2026-11-30T23:53:15Z", "2026-11-30T23:53:15UTC",
                    "2026-11-30T23:53:15+02", "2026-11-30T23:53:15+0200",
                    "2026-11-30T23:53:15+02:0", "2026-11-30T23:53:15+02:00:00",
                    "2026-11-30T23:53:15+2:00", "2026-11-30T23:53:15.5"),
    ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(OutOfRange, ParseTimeRejectsTest,
                         testing::Values("2026-00-10T00:00:00Z", "2026-13-10T00:00:00Z",
                                         "2026-11-00T00:00:00Z", "2026-11-32T00:00:00Z",
                                         "2026-11-30T24:00:00Z", "2026-11-30T23:60:00Z",
                                         "2026-11-30T23:59:61Z",
                                         // Days that the month does not have.
                                         "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
                                         "2100-02-29T00:00:00Z", "2026-02-30T00:00:00Z",
                                         // Offsets beyond a day's hours and an hour's minutes.
                                         "2026-11-30T23:53:15+24:00", "2026-11-30T23:53:15+02:60"));

// std::from_chars takes a leading minus sign; a field of digits must not.
INSTANTIATE_TEST_SUITE_P(Signs, ParseTimeRejectsTest,
                         testing::Values("-026-11-30T23:53:15Z", "2026--1-30T23:53:15Z",
                                         "2026-11--1T23:53:15Z", "2026-11-30T-1:53:15Z",
                                         "2026-11-30T23:-1:15Z", "2026-11-30T23:53:-1Z",
                                         "2026-11-30T23:53:15+-1:00", "2026-11-30T23:53:15+01:-1",
                                         "+026-11-30T23:53:15Z"),
                         ::karpenter::ReadableParamName());

TEST(ParseTimeTest, AcceptsLeapDaysOfLeapYears) {
  EXPECT_TRUE(ParseTime("2024-02-29T00:00:00Z").has_value());
  EXPECT_TRUE(ParseTime("2000-02-29T00:00:00Z").has_value());
  EXPECT_TRUE(ParseTime("2026-12-31T23:59:59Z").has_value());
  EXPECT_TRUE(ParseTime("2026-11-30T23:53:15+23:59").has_value());
}

TEST(VirtualClockTest, MovesOnlyWhenTold) {
  VirtualClock clock(kSample);
  EXPECT_EQ(clock.Now(), kSample);
  EXPECT_EQ(clock.Now(), kSample);
  clock.Advance(seconds(90));
  EXPECT_EQ(clock.Now(), kSample + seconds(90));
  clock.Advance(milliseconds(1));
  clock.Advance(nanoseconds(5));
  EXPECT_EQ(clock.Now(), kSample + seconds(90) + milliseconds(1) + nanoseconds(5));
  clock.Set(TimePoint());
  EXPECT_EQ(clock.Now(), TimePoint());
  clock.Advance(minutes(-1));
  EXPECT_EQ(FormatTime(clock.Now()), "1969-12-31T23:59:00Z");
}

TEST(VirtualClockTest, UsableThroughTheClockInterface) {
  VirtualClock virtual_clock(kSample);
  const Clock& clock = virtual_clock;
  virtual_clock.Advance(hours(1));
  EXPECT_EQ(FormatTime(clock.Now()), "2026-12-01T00:53:15Z");
}

TEST(RealClockTest, FollowsTheSystemClock) {
  const RealClock clock;
  const TimePoint before = std::chrono::system_clock::now();
  const TimePoint now = clock.Now();
  const TimePoint after = std::chrono::system_clock::now();
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
}

}  // namespace
}  // namespace karpenter
