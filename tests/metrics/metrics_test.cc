// The metrics library: upstream's buckets, the process collector's parsing of /proc and its live
// figures, scrape-time families, and the text exposition.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/registry.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "metrics/buckets.h"
#include "metrics/exposition.h"
#include "metrics/families.h"
#include "metrics/process_collector.h"
#include "support/matchers.h"

namespace karpenter::metrics {
namespace {

using testing::HasSubstr;

TEST(BucketsTest, DurationBucketsAreUpstreamsFortyFive) {
  const auto buckets = DurationBuckets();
  ASSERT_EQ(buckets.size(), 45u);
  EXPECT_DOUBLE_EQ(buckets.front(), 0.005);
  EXPECT_DOUBLE_EQ(buckets[17], 1.0);
  EXPECT_DOUBLE_EQ(buckets.back(), 600);
  EXPECT_TRUE(std::is_sorted(buckets.begin(), buckets.end()));
  EXPECT_EQ(std::adjacent_find(buckets.begin(), buckets.end()), buckets.end());
}

TEST(BucketsTest, ExponentialBucketsDouble) {
  EXPECT_EQ(ExponentialBuckets(1, 2, 11).back(), 1024);
  EXPECT_EQ(ExponentialBuckets(1, 2, 11).size(), 11u);
  EXPECT_EQ(SummaryQuantiles().size(), 5u);
}

// A real /proc/<pid>/stat line, whose command name holds a space and a parenthesis.
constexpr std::string_view kStat =
    "4242 (karp) enter) S 1 4242 4242 0 -1 4194560 2000 0 0 0 250 150 0 0 20 0 12 0 "
    "500000 123456789 3000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

TEST(ProcessCollectorTest, ParsesStatFromAfterTheCommandName) {
  Result<ProcStat> stat = ParseProcStat(kStat, 100, 4096);
  ASSERT_THAT(stat, IsOk());
  EXPECT_DOUBLE_EQ(stat->cpu_seconds, 4.0);  // (250 + 150) ticks at 100 a second
  EXPECT_DOUBLE_EQ(stat->start_seconds, 5000);
  EXPECT_EQ(stat->virtual_bytes, 123456789u);
  EXPECT_EQ(stat->resident_bytes, 3000u * 4096u);
}

TEST(ProcessCollectorTest, BadStatSaysWhy) {
  EXPECT_THAT(ParseProcStat("4242 karp S 1", 100, 4096).error().message, HasSubstr("no ')'"));
  EXPECT_THAT(ParseProcStat("4242 (karp) S 1 2 3", 100, 4096).error().message,
              HasSubstr("fields after the command name"));
  std::string bad(kStat);
  bad.replace(bad.find(" 250 "), 5, " x50 ");
  EXPECT_THAT(ParseProcStat(bad, 100, 4096).error().message,
              HasSubstr("field 14 is not a number: 'x50'"));
}

TEST(ProcessCollectorTest, BootTimeAndFileLimit) {
  EXPECT_THAT(ParseBootTime("cpu 1 2 3\nbtime 1700000000\nprocesses 9\n"), IsOk());
  EXPECT_DOUBLE_EQ(*ParseBootTime("cpu 1\nbtime 1700000000\n"), 1700000000);
  EXPECT_FALSE(ParseBootTime("cpu 1\n").ok());
  constexpr std::string_view kLimits =
      "Limit                     Soft Limit           Hard Limit           Units\n"
      "Max open files            1024                 524288               files\n";
  ASSERT_THAT(ParseMaxOpenFiles(kLimits), IsOk());
  EXPECT_EQ(*ParseMaxOpenFiles(kLimits), std::optional<uint64_t>(1024));
  EXPECT_EQ(*ParseMaxOpenFiles("Max open files   unlimited   unlimited   files\n"),
            std::optional<uint64_t>());
}

double Value(const std::vector<prometheus::MetricFamily>& families, std::string_view name) {
  for (const prometheus::MetricFamily& family : families) {
    if (family.name != name) continue;
    return family.type == prometheus::MetricType::Counter ? family.metric.at(0).counter.value
                                                          : family.metric.at(0).gauge.value;
  }
  ADD_FAILURE() << name << " missing";
  return -1;
}

// The live figures move with what the process does: each is shown to count.
TEST(ProcessCollectorTest, LiveFiguresFollowTheProcess) {
  const ProcessCollector collector;
  const std::vector<prometheus::MetricFamily> before = collector.Collect();
  ASSERT_EQ(before.size(), 6u);
  std::vector<int> files;
  for (int i = 0; i < 10; ++i) files.push_back(open("/dev/null", O_RDONLY));
  std::vector<char> memory(64 << 20, 1);  // touched: resident
  volatile double spin = 0;
  const double cpu_before = Value(before, "process_cpu_seconds_total");
  while (Value(collector.Collect(), "process_cpu_seconds_total") < cpu_before + 0.05) {
    for (int i = 0; i < 1000000; ++i) spin = spin + memory[static_cast<size_t>(i)];
  }
  const std::vector<prometheus::MetricFamily> after = collector.Collect();
  EXPECT_EQ(Value(after, "process_open_fds"), Value(before, "process_open_fds") + 10);
  EXPECT_GE(Value(after, "process_resident_memory_bytes"),
            Value(before, "process_resident_memory_bytes") + (32 << 20));
  EXPECT_GT(Value(after, "process_max_fds"), 0);
  const double now = static_cast<double>(time(nullptr));
  EXPECT_LE(Value(after, "process_start_time_seconds"), now + 1);
  EXPECT_GT(Value(after, "process_start_time_seconds"), now - 3600);
  for (int file : files) close(file);
}

TEST(ProcessCollectorTest, AnUnreadableProcLeavesSeriesOutNotTheScrape) {
  const ProcessCollector collector("/nonexistent/self", "/nonexistent");
  EXPECT_TRUE(collector.Collect().empty());
}

TEST(ExpositionTest, SourcesMergeSortedWithSortedLabels) {
  prometheus::Registry registry;
  prometheus::BuildCounter()
      .Name("zeta_total")
      .Help("z")
      .Register(registry)
      .Add({{"b", "2"}, {"a", "1"}})
      .Increment(3);
  class Gauges : public prometheus::Collectable {
   public:
    std::vector<prometheus::MetricFamily> Collect() const override {
      prometheus::MetricFamily family = GaugeFamily("alpha", "a");
      AddSample(family, {{"zone", "b"}, {"arch", "amd64"}}, 2.5);
      return {family};
    }
  } gauges;
  const prometheus::Collectable* sources[] = {&registry, &gauges};
  const std::string text = TextExposition(sources);
  EXPECT_LT(text.find("# TYPE alpha gauge"), text.find("# TYPE zeta_total counter"));
  EXPECT_THAT(text, HasSubstr("alpha{arch=\"amd64\",zone=\"b\"} 2.5\n"));
  EXPECT_THAT(text, HasSubstr("zeta_total{a=\"1\",b=\"2\"} 3\n"));
}

}  // namespace
}  // namespace karpenter::metrics
