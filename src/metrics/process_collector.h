#pragma once
// The process_* series every Prometheus client exports (CPU seconds, resident and virtual memory,
// open and allowed file descriptors, start time), read from /proc at each scrape: prometheus-cpp
// has no process collector, and dashboards' memory and CPU panels query these names.

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace karpenter::metrics {

// What /proc/<pid>/stat says, in the units the series use.
struct ProcStat {
  double cpu_seconds = 0;    // user + system
  double start_seconds = 0;  // after boot
  uint64_t virtual_bytes = 0;
  uint64_t resident_bytes = 0;
};

// Parses the text of /proc/<pid>/stat; `ticks` is sysconf(_SC_CLK_TCK), `page` the page size.
Result<ProcStat> ParseProcStat(std::string_view text, int64_t ticks, int64_t page);
// The boot time (seconds since the epoch) from the text of /proc/stat ("btime N").
Result<double> ParseBootTime(std::string_view text);
// The soft "Max open files" limit from the text of /proc/<pid>/limits; nullopt when unlimited.
Result<std::optional<uint64_t>> ParseMaxOpenFiles(std::string_view text);

class ProcessCollector : public prometheus::Collectable {
 public:
  // `proc` is the process's /proc directory ("/proc/self"); `proc_root` holds `stat` (boot time).
  explicit ProcessCollector(std::string proc = "/proc/self", std::string proc_root = "/proc");

  // A file that cannot be read or parsed leaves its series out of this scrape, never the scrape.
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const std::string proc_;
  const std::string proc_root_;
};

}  // namespace karpenter::metrics
