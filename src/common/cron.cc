#include "common/cron.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace karpenter {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::sys_days;
using std::chrono::sys_time;
using std::chrono::weekday;
using std::chrono::year_month_day;

constexpr std::string_view kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                            "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::string_view kWeekdayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

struct FieldSpec {
  std::string_view name;
  int min;
  int max;                                  // the highest value written
  int wildcard_max;                         // the highest value "*" and "a/n" reach
  std::span<const std::string_view> names;  // names[i] stands for min + i
  std::string_view names_hint;              // appended to "is not a number"
  bool allows_question_mark;
};

constexpr FieldSpec kMinute{"minute", 0, 59, 59, {}, "", false};
constexpr FieldSpec kHour{"hour", 0, 23, 23, {}, "", false};
constexpr FieldSpec kDayOfMonth{"day-of-month", 1, 31, 31, {}, "", true};
constexpr FieldSpec kMonth{"month", 1, 12, 12, kMonthNames, " or a month name (jan-dec)", false};
constexpr FieldSpec kDayOfWeek{
    "day-of-week", 0, 6, 6, kWeekdayNames, " or a weekday name (sun-sat)", true};

constexpr std::pair<std::string_view, std::string_view> kMacros[] = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool EqualsIgnoringCase(std::string_view text, std::string_view lower) {
  return std::equal(text.begin(), text.end(), lower.begin(), lower.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

// A run of decimal digits that fits an int; no sign (std::from_chars would take a '-').
std::optional<int> ReadNumber(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), IsDigit)) return std::nullopt;
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc()) return std::nullopt;
  return value;
}

std::vector<std::string_view> SplitFields(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  return fields;
}

// The values one field allows, and whether it was written as a wildcard (for the day rule).
struct FieldValues {
  uint64_t bits = 0;
  bool wildcard = false;
};

Result<int> ParseValue(std::string_view text, const FieldSpec& field) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), IsDigit)) {
    const std::optional<int> value = ReadNumber(text);
    if (!value || *value < field.min || *value > field.max) {
      return Error{
          fmt::format("{} {} is out of range {}-{}", field.name, text, field.min, field.max)};
    }
    return *value;
  }
  for (size_t i = 0; i < field.names.size(); ++i) {
    if (EqualsIgnoringCase(text, field.names[i])) return field.min + static_cast<int>(i);
  }
  return Error{fmt::format("{} \"{}\" is not a number{}", field.name, text, field.names_hint)};
}

// One comma-separated item: "*", "?", "5", "1-5", each optionally followed by "/step".
Status AddItem(std::string_view item, const FieldSpec& field, FieldValues& out) {
  int step = 1;
  bool stepped = false;
  if (const size_t slash = item.find('/'); slash != std::string_view::npos) {
    const std::string_view step_text = item.substr(slash + 1);
    const std::optional<int> value = ReadNumber(step_text);
    if (!value || *value < 1) {
      return Error{fmt::format("{} step \"{}\" must be a positive number", field.name, step_text)};
    }
    step = *value;
    stepped = true;
    item = item.substr(0, slash);
  }
  int low = 0;
  int high = 0;
  if (item == "*" || (item == "?" && field.allows_question_mark)) {
    low = field.min;
    high = field.wildcard_max;
    out.wildcard = out.wildcard || step == 1;
  } else if (const size_t dash = item.find('-'); dash != std::string_view::npos) {
    ASSIGN_OR_RETURN(const int first, ParseValue(item.substr(0, dash), field));
    ASSIGN_OR_RETURN(const int last, ParseValue(item.substr(dash + 1), field));
    if (first > last) {
      return Error{fmt::format("{} range \"{}\" runs backwards", field.name, item)};
    }
    low = first;
    high = last;
  } else {
    ASSIGN_OR_RETURN(const int value, ParseValue(item, field));
    low = value;
    high = stepped ? std::max(low, field.wildcard_max) : low;
  }
  for (int value = low; value <= high; value += step) out.bits |= uint64_t{1} << value;
  return {};
}

Result<FieldValues> ParseField(std::string_view text, const FieldSpec& field) {
  FieldValues values;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    if (item.empty()) return Error{fmt::format("{} \"{}\" has an empty item", field.name, text)};
    RETURN_IF_ERROR(AddItem(item, field, values));
    if (comma == std::string_view::npos) return values;
    rest.remove_prefix(comma + 1);
  }
}

bool Has(uint64_t bits, unsigned value) { return ((bits >> value) & 1U) != 0; }

// The highest value <= limit whose bit is set, or -1.
int HighestAtOrBelow(uint64_t bits, int limit) {
  if (limit < 0) return -1;
  const uint64_t mask = limit >= 63 ? ~uint64_t{0} : (uint64_t{2} << limit) - 1;
  return static_cast<int>(std::bit_width(bits & mask)) - 1;
}

}  // namespace

Result<CronSchedule> CronSchedule::Parse(std::string_view text) {
  std::string_view expression = text;
  while (!expression.empty() && IsSpace(expression.front())) expression.remove_prefix(1);
  while (!expression.empty() && IsSpace(expression.back())) expression.remove_suffix(1);
  const auto fail = [&](std::string_view why) {
    return Error{fmt::format("schedule \"{}\": {}", text, why)};
  };
  if (expression.starts_with('@')) {
    const auto* macro = std::find_if(std::begin(kMacros), std::end(kMacros),
                                     [&](const auto& entry) { return entry.first == expression; });
    if (macro == std::end(kMacros)) {
      return fail(
          "unknown macro; use one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, "
          "@hourly");
    }
    expression = macro->second;
  }
  const std::vector<std::string_view> fields = SplitFields(expression);
  if (fields.size() != 5) {
    return fail(fmt::format(
        "expected 5 fields (minute hour day-of-month month day-of-week) or a macro, got {}",
        fields.size()));
  }
  constexpr const FieldSpec* kFields[] = {&kMinute, &kHour, &kDayOfMonth, &kMonth, &kDayOfWeek};
  FieldValues parsed[5];
  for (size_t i = 0; i < fields.size(); ++i) {
    Result<FieldValues> values = ParseField(fields[i], *kFields[i]);
    if (!values.ok()) return fail(values.error().message);
    parsed[i] = *values;
  }
  CronSchedule schedule;
  schedule.minutes_ = parsed[0].bits;
  schedule.hours_ = static_cast<uint32_t>(parsed[1].bits);
  schedule.days_of_month_ = static_cast<uint32_t>(parsed[2].bits);
  schedule.months_ = static_cast<uint32_t>(parsed[3].bits);
  schedule.days_of_week_ = static_cast<uint32_t>(parsed[4].bits);
  schedule.any_day_of_month_ = parsed[2].wildcard;
  schedule.any_day_of_week_ = parsed[4].wildcard;
  return schedule;
}

bool CronSchedule::MatchesDay(sys_days day) const {
  const year_month_day date(day);
  if (!Has(months_, static_cast<unsigned>(date.month()))) return false;
  const bool day_of_month = Has(days_of_month_, static_cast<unsigned>(date.day()));
  const bool day_of_week = Has(days_of_week_, weekday(day).c_encoding());
  if (!any_day_of_month_ && !any_day_of_week_) return day_of_month || day_of_week;
  return day_of_month && day_of_week;
}

bool CronSchedule::Matches(TimePoint t) const {
  const sys_time<minutes> minute = std::chrono::floor<minutes>(t);
  const sys_days day = std::chrono::floor<days>(minute);
  const auto minute_of_day = static_cast<unsigned>((minute - day).count());
  return MatchesDay(day) && Has(hours_, minute_of_day / 60) && Has(minutes_, minute_of_day % 60);
}

std::optional<TimePoint> CronSchedule::LastFireAtOrBefore(TimePoint t, minutes horizon) const {
  const sys_time<minutes> latest = std::chrono::floor<minutes>(t);
  const sys_time<minutes> earliest = latest - horizon;
  sys_days day = std::chrono::floor<days>(latest);
  // Only the first day examined is cut short, at the minute of `t`.
  const auto minute_of_day = static_cast<int>((latest - day).count());
  int hour_limit = minute_of_day / 60;
  int minute_limit = minute_of_day % 60;
  while (day + days(1) > earliest) {
    const year_month_day date(day);
    if (!Has(months_, static_cast<unsigned>(date.month()))) {
      day = sys_days{date.year() / date.month() / 1} - days(1);  // the previous month's last day
    } else {
      if (MatchesDay(day)) {
        for (int hour = HighestAtOrBelow(hours_, hour_limit); hour >= 0;
             hour = HighestAtOrBelow(hours_, hour - 1)) {
          const int minute = HighestAtOrBelow(minutes_, hour == hour_limit ? minute_limit : 59);
          if (minute < 0) continue;
          const sys_time<minutes> fire = day + hours(hour) + minutes(minute);
          if (fire < earliest) return std::nullopt;
          return TimePoint(fire);
        }
      }
      day -= days(1);
    }
    hour_limit = 23;
    minute_limit = 59;
  }
  return std::nullopt;
}

}  // namespace karpenter
