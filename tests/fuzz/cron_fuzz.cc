// Cron schedules of disruption budgets: parsing, and asking a parsed schedule when it last fired
// within a day of a fixed time (the question the budgets ask).

#include <chrono>

#include "common/cron.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using karpenter::CronSchedule;
  const karpenter::Result<CronSchedule> schedule =
      CronSchedule::Parse(karpenter::fuzz::Text(data, size));
  if (!schedule.ok()) return 0;
  const karpenter::TimePoint t{std::chrono::seconds(1767225600)};  // 2026-01-01T00:00:00Z
  if (const auto last = schedule->LastFireAtOrBefore(t, std::chrono::hours(24))) {
    karpenter::fuzz::Check(*last <= t && schedule->Matches(*last));
  }
  return 0;
}
