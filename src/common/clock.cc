#include "common/clock.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <ctime>

namespace karpenter {
namespace {

std::tm UtcFields(TimePoint time) {
  const std::time_t seconds =
      std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(time));
  std::tm fields{};
  gmtime_r(&seconds, &fields);
  return fields;
}

std::string FormatSeconds(const std::tm& f) {
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", f.tm_year + 1900, f.tm_mon + 1,
                     f.tm_mday, f.tm_hour, f.tm_min, f.tm_sec);
}

// Reads exactly `width` digits at `at` of `text` (no sign: std::from_chars would take a '-').
bool ReadDigits(std::string_view text, size_t at, size_t width, int& out) {
  if (at + width > text.size() || text[at] < '0' || text[at] > '9') return false;
  const char* begin = text.data() + at;
  const auto [end, error] = std::from_chars(begin, begin + width, out);
  return error == std::errc() && end == begin + width;
}

int DaysInMonth(int year, int month) {
  if (month != 2) return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return leap ? 29 : 28;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

}  // namespace

std::string FormatTime(TimePoint time) { return FormatSeconds(UtcFields(time)) + "Z"; }

std::string FormatMicroTime(TimePoint time) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          time - std::chrono::floor<std::chrono::seconds>(time))
                          .count();
  return fmt::format("{}.{:06}Z", FormatSeconds(UtcFields(time)), micros);
}

std::optional<TimePoint> ParseTime(std::string_view text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(text, 0, 4, year) || text.size() < 20 || text[4] != '-' ||
      !ReadDigits(text, 5, 2, month) || text[7] != '-' || !ReadDigits(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != 't') || !ReadDigits(text, 11, 2, hour) || text[13] != ':' ||
      !ReadDigits(text, 14, 2, minute) || text[16] != ':' || !ReadDigits(text, 17, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) || hour > 23 ||
      minute > 59 || second > 60) {
    return std::nullopt;
  }
  size_t at = 19;
  int64_t nanos = 0;
  if (text[at] == '.') {
    ++at;
    int digits = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (digits < 9) nanos = nanos * 10 + (text[at] - '0');
      ++digits;
      ++at;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 9; ++i) nanos *= 10;
  }
  int64_t offset_seconds = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int offset_hours = 0, offset_minutes = 0;
    if (!ReadDigits(text, at + 1, 2, offset_hours) || at + 3 >= text.size() ||
        text[at + 3] != ':' || !ReadDigits(text, at + 4, 2, offset_minutes) || offset_hours > 23 ||
        offset_minutes > 59) {
      return std::nullopt;
    }
    offset_seconds =
        (int64_t{offset_hours} * 3600 + int64_t{offset_minutes} * 60) * (text[at] == '+' ? 1 : -1);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  const int64_t seconds = DaysFromCivil(year, month, day) * 86400 + int64_t{hour} * 3600 +
                          int64_t{minute} * 60 + second - offset_seconds;
  // A TimePoint counts nanoseconds in 64 bits: years 1678 to 2262 (fuzzing found year 1013
  // overflowing it).
  constexpr int64_t kLimit =
      std::chrono::duration_cast<std::chrono::seconds>(TimePoint::duration::max()).count() - 1;
  if (seconds > kLimit || seconds < -kLimit) return std::nullopt;
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(
      std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanos)));
}

}  // namespace karpenter
