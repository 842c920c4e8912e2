#include "metrics/process_collector.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <system_error>
#include <utility>

#include "common/read_file.h"
#include "metrics/families.h"

namespace karpenter::metrics {
namespace {

// The whitespace-separated fields of `text`.
std::vector<std::string_view> Fields(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n') ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  return fields;
}

std::optional<uint64_t> Number(std::string_view text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// `family` with one series, without labels.
prometheus::MetricFamily One(prometheus::MetricFamily family, double value) {
  AddSample(family, {}, value);
  return family;
}

}  // namespace

Result<ProcStat> ParseProcStat(std::string_view text, int64_t ticks, int64_t page) {
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields are counted from
  // the last ')'. After it, field 3 (state) is index 0; utime is field 14, stime 15, starttime 22,
  // vsize 23, rss 24 (proc(5)).
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos) return Error("stat: no ')' after the command name");
  const std::vector<std::string_view> fields = Fields(text.substr(close + 1));
  if (fields.size() < 22) {
    return Error(
        fmt::format("stat: {} fields after the command name, want at least 22", fields.size()));
  }
  auto field = [&](int number) -> Result<uint64_t> {
    const std::string_view raw = fields[static_cast<size_t>(number - 3)];
    if (std::optional<uint64_t> value = Number(raw)) return *value;
    return Error(fmt::format("stat: field {} is not a number: '{}'", number, raw));
  };
  if (ticks <= 0 || page <= 0) return Error("stat: clock ticks and page size must be positive");
  ProcStat stat;
  ASSIGN_OR_RETURN(const uint64_t utime, field(14));
  ASSIGN_OR_RETURN(const uint64_t stime, field(15));
  ASSIGN_OR_RETURN(const uint64_t start, field(22));
  ASSIGN_OR_RETURN(stat.virtual_bytes, field(23));
  ASSIGN_OR_RETURN(const uint64_t rss, field(24));
  stat.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(ticks);
  stat.start_seconds = static_cast<double>(start) / static_cast<double>(ticks);
  stat.resident_bytes = rss * static_cast<uint64_t>(page);
  return stat;
}

Result<double> ParseBootTime(std::string_view text) {
  const std::vector<std::string_view> fields = Fields(text);
  for (size_t i = 0; i + 1 < fields.size(); ++i) {
    if (fields[i] != "btime") continue;
    if (std::optional<uint64_t> value = Number(fields[i + 1])) return static_cast<double>(*value);
    return Error(fmt::format("stat: btime is not a number: '{}'", fields[i + 1]));
  }
  return Error("stat: no btime line");
}

Result<std::optional<uint64_t>> ParseMaxOpenFiles(std::string_view text) {
  // "Max open files            1048576              1048576              files"
  constexpr std::string_view kLine = "Max open files";
  const size_t at = text.find(kLine);
  if (at == std::string_view::npos) return Error("limits: no 'Max open files' line");
  const size_t end = text.find('\n', at);
  const std::vector<std::string_view> fields =
      Fields(text.substr(at + kLine.size(), end == std::string_view::npos ? end : end - at));
  if (fields.empty()) return Error("limits: 'Max open files' has no value");
  if (fields[0] == "unlimited") return std::optional<uint64_t>();
  if (std::optional<uint64_t> value = Number(fields[0])) return std::optional<uint64_t>(*value);
  return Error(fmt::format("limits: 'Max open files' is not a number: '{}'", fields[0]));
}

ProcessCollector::ProcessCollector(std::string proc, std::string proc_root)
    : proc_(std::move(proc)), proc_root_(std::move(proc_root)) {}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  std::vector<prometheus::MetricFamily> families;
  Result<std::string> stat_text = ReadFile(proc_ + "/stat");
  Result<ProcStat> stat =
      stat_text.ok() ? ParseProcStat(*stat_text, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE))
                     : Result<ProcStat>(stat_text.error());
  if (stat.ok()) {
    families.push_back(One(CounterFamily("process_cpu_seconds_total",
                                         "User and system CPU time the process has used, in "
                                         "seconds."),
                           stat->cpu_seconds));
    families.push_back(
        One(GaugeFamily("process_resident_memory_bytes", "Resident memory, in bytes."),
            static_cast<double>(stat->resident_bytes)));
    families.push_back(One(GaugeFamily("process_virtual_memory_bytes", "Virtual memory, in bytes."),
                           static_cast<double>(stat->virtual_bytes)));
    Result<std::string> boot_text = ReadFile(proc_root_ + "/stat");
    Result<double> boot =
        boot_text.ok() ? ParseBootTime(*boot_text) : Result<double>(boot_text.error());
    if (boot.ok()) {
      families.push_back(One(GaugeFamily("process_start_time_seconds",
                                         "When the process started, in seconds since the Unix "
                                         "epoch."),
                             *boot + stat->start_seconds));
    }
  }
  std::error_code error;
  double open = 0;
  for (std::filesystem::directory_iterator it(proc_ + "/fd", error), end; !error && it != end;
       it.increment(error)) {
    ++open;
  }
  if (!error) {
    families.push_back(One(GaugeFamily("process_open_fds", "Open file descriptors."), open));
  }
  Result<std::string> limits_text = ReadFile(proc_ + "/limits");
  if (limits_text.ok()) {
    Result<std::optional<uint64_t>> max = ParseMaxOpenFiles(*limits_text);
    if (max.ok() && max->has_value()) {
      families.push_back(
          One(GaugeFamily("process_max_fds", "The most file descriptors it may open."),
              static_cast<double>(**max)));
    }
  }
  return families;
}

}  // namespace karpenter::metrics
