#include "common/cron.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "common/clock.h"
#include "support/matchers.h"
#include "support/param_name.h"

namespace karpenter {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;

TimePoint At(std::string_view rfc3339) { return ParseTime(rfc3339).value(); }

// Fails the test (by the exception value() throws) when `text` does not parse.
CronSchedule Parsed(std::string_view text) {
  Result<CronSchedule> schedule = CronSchedule::Parse(text);
  EXPECT_THAT(schedule, IsOk()) << text << ": " << schedule.error().message;
  return std::move(schedule).value();
}

// The last fire as RFC 3339, or "none".
std::string LastFire(std::string_view schedule, std::string_view at, minutes horizon) {
  const std::optional<TimePoint> fire = Parsed(schedule).LastFireAtOrBefore(At(at), horizon);
  return fire ? FormatTime(*fire) : "none";
}

// ---- Matches ----------------------------------------------------------------------------------

struct MatchCase {
  std::string_view schedule;
  std::string_view at;
  bool matches;
};

void PrintTo(const MatchCase& c, std::ostream* os) { *os << '"' << c.schedule << "\" at " << c.at; }

class CronMatchTest : public testing::TestWithParam<MatchCase> {};

TEST_P(CronMatchTest, MatchesTheMinute) {
  const MatchCase& c = GetParam();
  EXPECT_EQ(Parsed(c.schedule).Matches(At(c.at)), c.matches) << c.schedule << " at " << c.at;
}

INSTANTIATE_TEST_SUITE_P(
    CronSyntax, CronMatchTest,
    testing::Values(MatchCase{"* * * * *", "2024-01-01T05:31:00Z", true},
                    // Seconds and fractions are ignored: the minute is what matches.
                    MatchCase{"30 * * * *", "2024-01-01T05:30:59.999Z", true},
                    MatchCase{"30 * * * *", "2024-01-01T05:31:00Z", false},
                    MatchCase{"0 9 * * *", "2024-01-01T09:00:00Z", true},
                    MatchCase{"0 9 * * *", "2024-01-01T10:00:00Z", false},
                    MatchCase{"*/15 * * * *", "2024-01-01T10:45:00Z", true},
                    MatchCase{"*/15 * * * *", "2024-01-01T10:50:00Z", false},
                    MatchCase{"10-20/5 * * * *", "2024-01-01T10:10:00Z", true},
                    MatchCase{"10-20/5 * * * *", "2024-01-01T10:15:00Z", true},
                    MatchCase{"10-20/5 * * * *", "2024-01-01T10:12:00Z", false},
                    MatchCase{"10-20/5 * * * *", "2024-01-01T10:25:00Z", false},
                    // "a/n" runs from a to the field's maximum.
                    MatchCase{"5/20 * * * *", "2024-01-01T10:45:00Z", true},
                    MatchCase{"5/20 * * * *", "2024-01-01T10:00:00Z", false},
                    MatchCase{"1,3,5 * * * *", "2024-01-01T10:03:00Z", true},
                    MatchCase{"1,3,5 * * * *", "2024-01-01T10:04:00Z", false},
                    MatchCase{"0 8-10,22 * * *", "2024-01-01T22:00:00Z", true},
                    MatchCase{"0 8-10,22 * * *", "2024-01-01T11:00:00Z", false},
                    MatchCase{"0 0 1,15 * *", "2024-01-15T00:00:00Z", true},
                    MatchCase{"0 0 1,15 * *", "2024-01-16T00:00:00Z", false},
                    MatchCase{"0 0 * 3 *", "2024-03-31T00:00:00Z", true},
                    MatchCase{"0 0 * 3 *", "2024-04-01T00:00:00Z", false},
                    // Leap day.
                    MatchCase{"0 12 29 2 *", "2024-02-29T12:00:00Z", true}),
    ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(
    CronNames, CronMatchTest,
    testing::Values(MatchCase{"0 0 * jan *", "2024-01-20T00:00:00Z", true},
                    MatchCase{"0 0 * jan *", "2024-02-01T00:00:00Z", false},
                    MatchCase{"0 0 * JAN-Mar *", "2024-03-15T00:00:00Z", true},
                    MatchCase{"0 0 * JAN-Mar *", "2024-04-01T00:00:00Z", false},
                    MatchCase{"0 0 * dec,feb *", "2024-02-10T00:00:00Z", true},
                    MatchCase{"0 0 * * MON", "2024-01-01T00:00:00Z", true},   // a Monday
                    MatchCase{"0 0 * * mon", "2024-01-02T00:00:00Z", false},  // a Tuesday
                    MatchCase{"0 0 * * mon-FRI", "2024-01-06T00:00:00Z", false},
                    MatchCase{"0 0 * * sun-sat", "2024-01-06T00:00:00Z", true},
                    MatchCase{"0 0 * * mon-fri/2", "2024-01-03T00:00:00Z", true},  // Wednesday
                    MatchCase{"0 0 * * mon-fri/2", "2024-01-04T00:00:00Z", false}));

INSTANTIATE_TEST_SUITE_P(
    CronSunday, CronMatchTest,
    testing::Values(MatchCase{"0 0 * * 0", "2023-01-01T00:00:00Z", true},  // a Sunday
                    MatchCase{"0 0 * * 0", "2023-01-02T00:00:00Z", false},
                    MatchCase{"0 0 * * 5-6", "2024-01-06T00:00:00Z", true},  // Saturday
                    MatchCase{"0 0 * * 5-6", "2024-01-07T00:00:00Z", false}),
    ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(
    CronDayRule, CronMatchTest,
    testing::Values(
        // Both day fields restricted: either may match.
        MatchCase{"0 0 13 * fri", "2024-09-13T00:00:00Z", true},  // Friday the 13th
        MatchCase{"0 0 13 * fri", "2024-01-13T00:00:00Z", true},  // the 13th, a Saturday
        MatchCase{"0 0 13 * fri", "2024-01-05T00:00:00Z", true},  // a Friday, the 5th
        MatchCase{"0 0 13 * fri", "2024-01-06T00:00:00Z", false},
        // A stepped wildcard restricts: "*/2" is the odd days of the month.
        MatchCase{"0 0 */2 * 1", "2024-01-08T00:00:00Z", true},   // Monday the 8th
        MatchCase{"0 0 */2 * 1", "2024-01-03T00:00:00Z", true},   // Wednesday the 3rd
        MatchCase{"0 0 */2 * 1", "2024-01-10T00:00:00Z", false},  // Wednesday the 10th
        // One of them a wildcard: both must match.
        MatchCase{"0 0 13 * *", "2024-01-05T00:00:00Z", false},
        MatchCase{"0 0 13 * *", "2024-01-13T00:00:00Z", true},
        MatchCase{"0 0 * * fri", "2024-01-13T00:00:00Z", false},
        MatchCase{"0 0 ? * fri", "2024-01-13T00:00:00Z", false},
        MatchCase{"0 0 ? * fri", "2024-01-05T00:00:00Z", true},
        MatchCase{"0 0 13 * ?", "2024-01-05T00:00:00Z", false},
        MatchCase{"0 0 1 * */1", "2024-02-01T00:00:00Z", true},
        MatchCase{"0 0 1 * */1", "2024-01-02T00:00:00Z", false},
        // The month restricts both.
        MatchCase{"0 0 13 jan fri", "2024-09-13T00:00:00Z", false}));

INSTANTIATE_TEST_SUITE_P(
    CronMacros, CronMatchTest,
    testing::Values(MatchCase{"@yearly", "2024-01-01T00:00:00Z", true},
                    MatchCase{"@yearly", "2024-02-01T00:00:00Z", false},
                    MatchCase{"@annually", "2025-01-01T00:00:00Z", true},
                    MatchCase{"@annually", "2025-01-01T00:01:00Z", false},
                    MatchCase{"@monthly", "2024-02-01T00:00:00Z", true},
                    MatchCase{"@monthly", "2024-02-02T00:00:00Z", false},
                    MatchCase{"@weekly", "2024-01-07T00:00:00Z", true},   // Sunday
                    MatchCase{"@weekly", "2024-01-08T00:00:00Z", false},  // Monday
                    MatchCase{"@daily", "2024-01-08T00:00:00Z", true},
                    MatchCase{"@daily", "2024-01-08T01:00:00Z", false},
                    MatchCase{"@midnight", "2024-05-17T00:00:00Z", true},
                    MatchCase{"@midnight", "2024-05-17T00:01:00Z", false},
                    MatchCase{"@hourly", "2024-05-17T13:00:00Z", true},
                    MatchCase{"@hourly", "2024-05-17T13:30:00Z", false}),
    ::karpenter::ReadableParamName());

TEST(CronParseTest, FieldsMayBeSurroundedByAnyWhitespace) {
  const CronSchedule schedule = Parsed("  0\t9 *   * *  ");
  EXPECT_TRUE(schedule.Matches(At("2024-01-01T09:00:00Z")));
  EXPECT_TRUE(Parsed(" @daily ").Matches(At("2024-01-01T00:00:00Z")));
}

// ---- Parse errors ---------------------------------------------------------------------------

struct ErrorCase {
  std::string_view schedule;
  std::string_view message;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << '"' << c.schedule << '"'; }

class CronParseErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(CronParseErrorTest, NamesTheScheduleTheFieldAndWhy) {
  const ErrorCase& c = GetParam();
  const Result<CronSchedule> schedule = CronSchedule::Parse(c.schedule);
  ASSERT_FALSE(schedule.ok()) << c.schedule;
  EXPECT_EQ(schedule.error().message, c.message);
}

INSTANTIATE_TEST_SUITE_P(
    CronOutOfRange, CronParseErrorTest,
    testing::Values(
        ErrorCase{"61 * * * *", R"(schedule "61 * * * *": minute 61 is out of range 0-59)"},
        ErrorCase{"0 0 * * 7", R"(schedule "0 0 * * 7": day-of-week 7 is out of range 0-6)"},
        ErrorCase{"* 24 * * *", R"(schedule "* 24 * * *": hour 24 is out of range 0-23)"},
        ErrorCase{"* * 0 * *", R"(schedule "* * 0 * *": day-of-month 0 is out of range 1-31)"},
        ErrorCase{"* * 32 * *", R"(schedule "* * 32 * *": day-of-month 32 is out of range 1-31)"},
        ErrorCase{"* * * 13 *", R"(schedule "* * * 13 *": month 13 is out of range 1-12)"},
        ErrorCase{"* * * 0 *", R"(schedule "* * * 0 *": month 0 is out of range 1-12)"},
        ErrorCase{"* * * * 8", R"(schedule "* * * * 8": day-of-week 8 is out of range 0-6)"},
        ErrorCase{"0-60 * * * *", R"(schedule "0-60 * * * *": minute 60 is out of range 0-59)"},
        ErrorCase{"99999999999 * * * *",
                  R"(schedule "99999999999 * * * *": minute 99999999999 is out of range 0-59)"}),
    ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(
    CronMalformed, CronParseErrorTest,
    testing::Values(
        ErrorCase{"", R"(schedule "": expected 5 fields (minute hour day-of-month month )"
                      R"(day-of-week) or a macro, got 0)"},
        ErrorCase{"* * *", R"(schedule "* * *": expected 5 fields (minute hour day-of-month )"
                           R"(month day-of-week) or a macro, got 3)"},
        ErrorCase{"0 * * * * *", R"(schedule "0 * * * * *": expected 5 fields (minute hour )"
                                 R"(day-of-month month day-of-week) or a macro, got 6)"},
        ErrorCase{"* * * foo *",
                  R"(schedule "* * * foo *": month "foo" is not a number or a month name )"
                  R"((jan-dec))"},
        ErrorCase{"* * * * funday",
                  R"(schedule "* * * * funday": day-of-week "funday" is not a number or a )"
                  R"(weekday name (sun-sat))"},
        ErrorCase{"jan * * * *", R"(schedule "jan * * * *": minute "jan" is not a number)"},
        ErrorCase{"? * * * *", R"(schedule "? * * * *": minute "?" is not a number)"},
        ErrorCase{"-5 * * * *", R"(schedule "-5 * * * *": minute "" is not a number)"},
        ErrorCase{"1-2-3 * * * *", R"(schedule "1-2-3 * * * *": minute "2-3" is not a number)"},
        ErrorCase{"*/0 * * * *",
                  R"(schedule "*/0 * * * *": minute step "0" must be a positive number)"},
        ErrorCase{"*/ * * * *",
                  R"(schedule "*/ * * * *": minute step "" must be a positive number)"},
        ErrorCase{"* */x * * *",
                  R"(schedule "* */x * * *": hour step "x" must be a positive number)"},
        ErrorCase{"* * * * */-1",
                  R"(schedule "* * * * */-1": day-of-week step "-1" must be a positive number)"},
        ErrorCase{"30-10 * * * *",
                  R"(schedule "30-10 * * * *": minute range "30-10" runs backwards)"},
        ErrorCase{"* * * * mon-sun",
                  R"(schedule "* * * * mon-sun": day-of-week range "mon-sun" runs backwards)"},
        ErrorCase{"1,,2 * * * *", R"(schedule "1,,2 * * * *": minute "1,,2" has an empty item)"},
        ErrorCase{"1, * * * *", R"(schedule "1, * * * *": minute "1," has an empty item)"},
        ErrorCase{"@often", R"(schedule "@often": unknown macro; use one of @yearly, @annually, )"
                            R"(@monthly, @weekly, @daily, @midnight, @hourly)"},
        ErrorCase{"@every 1h",
                  R"(schedule "@every 1h": unknown macro; use one of @yearly, @annually, )"
                  R"(@monthly, @weekly, @daily, @midnight, @hourly)"}));

// ---- LastFireAtOrBefore ---------------------------------------------------------------------

TEST(CronLastFireTest, TheCurrentMinuteCounts) {
  EXPECT_EQ(LastFire("* * * * *", "2024-03-10T12:34:56Z", minutes(0)), "2024-03-10T12:34:00Z");
  EXPECT_EQ(LastFire("0 9 * * *", "2024-03-10T09:00:30Z", hours(1)), "2024-03-10T09:00:00Z");
  EXPECT_EQ(LastFire("0 * * * *", "2024-03-10T12:34:00Z", minutes(0)), "none");
}

TEST(CronLastFireTest, GoesBackToAnEarlierHourAndDay) {
  EXPECT_EQ(LastFire("0 9 * * *", "2024-03-10T08:59:59Z", days(1)), "2024-03-09T09:00:00Z");
  // The current hour has no minute at or before :30; the previous one has :45.
  EXPECT_EQ(LastFire("45 9,10 * * *", "2024-03-10T10:30:00Z", hours(2)), "2024-03-10T09:45:00Z");
  EXPECT_EQ(LastFire("30 23 * * *", "2024-03-10T00:10:00Z", days(1)), "2024-03-09T23:30:00Z");
}

TEST(CronLastFireTest, CrossesMonthAndYearBoundaries) {
  // April has no 31st.
  EXPECT_EQ(LastFire("0 0 31 * *", "2024-05-15T00:00:00Z", days(60)), "2024-03-31T00:00:00Z");
  EXPECT_EQ(LastFire("0 12 25 12 *", "2025-01-10T00:00:00Z", days(30)), "2024-12-25T12:00:00Z");
  EXPECT_EQ(LastFire("@monthly", "2025-01-01T00:00:00Z", days(40)), "2025-01-01T00:00:00Z");
  EXPECT_EQ(LastFire("@monthly", "2024-12-31T23:59:59Z", days(40)), "2024-12-01T00:00:00Z");
  EXPECT_EQ(LastFire("0 0 13 * fri", "2024-09-12T12:00:00Z", days(30)), "2024-09-06T00:00:00Z");
}

TEST(CronLastFireTest, FindsLeapDays) {
  EXPECT_EQ(LastFire("0 0 29 2 *", "2025-06-01T00:00:00Z", days(2 * 366)), "2024-02-29T00:00:00Z");
  EXPECT_EQ(LastFire("0 0 29 2 *", "2028-03-01T00:00:00Z", days(2)), "2028-02-29T00:00:00Z");
  EXPECT_EQ(LastFire("0 0 29 2 *", "2025-06-01T00:00:00Z", days(366)), "none");
  // From 2025-03-01 a year back ends in 2024-03-01: after the leap day.
  EXPECT_EQ(LastFire("0 0 29 2 *", "2025-03-01T00:00:00Z", days(365)), "none");
  EXPECT_EQ(LastFire("0 0 29 2 *", "2025-03-01T00:00:00Z", days(366)), "2024-02-29T00:00:00Z");
}

TEST(CronLastFireTest, NeverFiringScheduleFindsNothing) {
  // February never has a 30th; a century of horizon still answers quickly.
  EXPECT_EQ(LastFire("0 0 30 2 *", "2024-06-01T00:00:00Z", days(36525)), "none");
  EXPECT_EQ(LastFire("0 0 31 4,6,9,11 *", "2024-06-01T00:00:00Z", days(3660)), "none");
}

TEST(CronLastFireTest, TheHorizonIsInclusiveAndLimits) {
  // 09:00 the day before is exactly 23h back from 08:00.
  EXPECT_EQ(LastFire("0 9 * * *", "2024-03-10T08:00:00Z", hours(23)), "2024-03-09T09:00:00Z");
  EXPECT_EQ(LastFire("0 9 * * *", "2024-03-10T08:00:00Z", hours(23) - minutes(1)), "none");
  // The horizon counts from the minute of t (08:00:59 is 08:00).
  EXPECT_EQ(LastFire("0 9 * * *", "2024-03-10T08:00:59Z", hours(23)), "2024-03-09T09:00:00Z");
  // A whole (leap) year back to a yearly fire.
  EXPECT_EQ(LastFire("@yearly", "2024-12-31T23:59:00Z", days(366)), "2024-01-01T00:00:00Z");
  EXPECT_EQ(LastFire("@yearly", "2024-12-31T23:59:00Z", days(365)), "none");
  EXPECT_EQ(LastFire("* * * * *", "2024-03-10T08:00:00Z", minutes(-1)), "none");
}

// Against a minute-by-minute scan back over two days, for schedules of every shape.
TEST(CronLastFireTest, AgreesWithAScanMinuteByMinute) {
  constexpr std::string_view kSchedules[] = {
      "* * * * *",     "*/7 */5 * * *",      "59 23 * * *",    "0 0 1 * *",
      "15 10 * * 1-5", "0 12 13 * fri",      "30 4 */3 * sat", "0,30 6-8 28-31 * *",
      "@hourly",       "5/20 1 ? feb,mar *", "0 0 * * 0",      "45 22 1 1 *",
  };
  constexpr std::string_view kTimes[] = {"2024-02-28T23:59:59Z", "2024-03-01T00:00:00Z",
                                         "2024-12-31T22:44:10Z", "2025-01-01T00:00:30Z",
                                         "2024-09-14T12:01:00Z"};
  const minutes horizon = days(2);
  for (const std::string_view text : kSchedules) {
    const CronSchedule schedule = Parsed(text);
    for (const std::string_view time : kTimes) {
      const TimePoint t = At(time);
      const auto latest = std::chrono::floor<minutes>(t);
      std::optional<TimePoint> expected;
      for (auto m = latest; m >= latest - horizon; m -= minutes(1)) {
        if (schedule.Matches(m)) {
          expected = m;
          break;
        }
      }
      EXPECT_EQ(schedule.LastFireAtOrBefore(t, horizon), expected) << text << " at " << time;
    }
  }
}

}  // namespace
}  // namespace karpenter
