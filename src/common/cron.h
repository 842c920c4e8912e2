#pragma once
// A cron schedule: the set of UTC minutes at which a five-field cron expression (minute hour
// day-of-month month day-of-week) fires, as NodePool disruption budgets write them
// (spec.disruption.budgets[].schedule).
//
// Each field is a comma-separated list of items: "*", a value, a range "a-b", each optionally
// stepped ("*/15", "1-30/5"; "a/n" means a through the field's maximum every n). Months may be
// named jan-dec and weekdays sun-sat (any case); weekdays are 0-6 (Sunday is 0; 7 is refused, as
// by upstream's parser and our CRD); "?" stands for "*" in the two day fields. The macros @yearly
// (= @annually), @monthly, @weekly, @daily (=
// @midnight) and @hourly stand for the schedules they name.
//
// Days follow the Vixie cron rule: when both day-of-month and day-of-week are restricted, a day
// matches if either does; when either is a wildcard ("*" or "?", unstepped), both must.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "common/clock.h"
#include "common/result.h"

namespace karpenter {

class CronSchedule {
 public:
  // The error names the schedule, the field and why:
  // `schedule "61 * * * *": minute 61 is out of range 0-59`.
  static Result<CronSchedule> Parse(std::string_view text);

  // Whether the schedule fires in the minute of `t` (UTC).
  bool Matches(TimePoint t) const;

  // The latest minute m with t - horizon <= m <= t (both truncated to the minute) at which the
  // schedule fires; nullopt when it does not fire in that window (always for a negative horizon).
  // Skips months and days that cannot match, so a horizon of a year costs at most a few hundred
  // steps.
  std::optional<TimePoint> LastFireAtOrBefore(TimePoint t, std::chrono::minutes horizon) const;

 private:
  CronSchedule() = default;
  bool MatchesDay(std::chrono::sys_days day) const;

  // Bit i set: the field allows value i.
  uint64_t minutes_ = 0;        // 0-59
  uint32_t hours_ = 0;          // 0-23
  uint32_t days_of_month_ = 0;  // 1-31
  uint32_t months_ = 0;         // 1-12
  uint32_t days_of_week_ = 0;   // 0-6, 0 = Sunday
  bool any_day_of_month_ = true;
  bool any_day_of_week_ = true;
};

}  // namespace karpenter
