// The linter the end-to-end scrapes pass (scripts/testenv/promlint) is shown to fail what
// Prometheus would reject or flag, so its silence on the controller's scrape means something.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace karpenter::integration
