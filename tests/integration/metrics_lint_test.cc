// The linter the end-to-end scrapes pass (scripts/testenv/promlint) is shown to fail what
// Prometheus would reject or flag, so its silence on the controller's scrape means something; and
// the dashboards (deploy/dashboards) read only what docs/metrics.md lists as served, which the
// disruption end-to-end test holds a real controller's scrape to.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/matchers.h"
#include "support/metric_catalog.h"
#include "support/scrape.h"

namespace karpenter::integration {
namespace {

using testing::HasSubstr;

TEST(PromlintTest, FlagsWhatPrometheusRejectsAndAllowsOnlyUpstreamsNames) {
  EXPECT_THAT(support::LintProblems(KARPENTER_SOURCE_DIR, "broken{a=\"1\" 2\n"),
              HasSubstr("does not parse"));
  EXPECT_THAT(support::LintProblems(KARPENTER_SOURCE_DIR,
                                    "# HELP requests Requests.\n# TYPE requests counter\n"
                                    "requests 1\n"),
              HasSubstr("counter metrics should have \"_total\" suffix"));
  EXPECT_EQ(support::LintProblems(KARPENTER_SOURCE_DIR,
                                  "# HELP karpenter_cluster_state_node_count Nodes.\n"
                                  "# TYPE karpenter_cluster_state_node_count gauge\n"
                                  "karpenter_cluster_state_node_count 3\n"),
            "");
}

TEST(DashboardsTest, ReadOnlyServedMetrics) {
  Result<std::vector<std::string>> documented = support::DocumentedMetrics(KARPENTER_SOURCE_DIR);
  ASSERT_THAT(documented, IsOk());
  EXPECT_THAT(*documented, testing::Contains("karpenter_nodeclaims_created_total"));
  EXPECT_THAT(*documented, testing::Contains("process_resident_memory_bytes"));
  Result<std::map<std::string, std::vector<std::string>>> used =
      support::DashboardMetrics(KARPENTER_SOURCE_DIR, *documented);
  ASSERT_THAT(used, IsOk());
  for (const char* dashboard :
       {"capacity.json", "cost.json", "performance.json", "disruption.json"}) {
    EXPECT_TRUE(used->contains(dashboard)) << dashboard;
  }
  EXPECT_THAT((*used)["cost.json"],
              testing::Contains("karpenter_cloudprovider_instance_type_offering_price_estimate"));
  // A histogram is read by its buckets.
  EXPECT_THAT((*used)["performance.json"],
              testing::Contains("karpenter_scheduler_scheduling_duration_seconds"));
}

TEST(DashboardsTest, AMetricNotServedIsNamed) {
  const std::filesystem::path root =
      std::filesystem::path(testing::TempDir()) / "dashboards-not-served";
  std::filesystem::create_directories(root / "deploy/dashboards");
  std::ofstream(root / "deploy/dashboards/bad.json")
      << R"json({"panels": [{"title": "Nodes", "targets": [{"expr": "sum(karpenter_nodes_count)"}]}]})json";
  Result<std::map<std::string, std::vector<std::string>>> used =
      support::DashboardMetrics(root.string(), {"karpenter_nodes_allocatable"});
  ASSERT_FALSE(used.ok());
  EXPECT_THAT(used.error().message,
              HasSubstr("bad.json: panel \"Nodes\" uses karpenter_nodes_count"));
}

}  // namespace
}  // namespace karpenter::integration
