#pragma once
// Scraping a running controller as Prometheus would: the port the rendered chart names, the
// scrape itself, and the Prometheus linter's verdict on it.

#include <string>
#include <vector>

#include "common/result.h"
#include "kube/object.h"
#include "support/metrics_text.h"

namespace karpenter::support {

// The port the chart rendered for the test cluster (DIR/identity/karpenter.yaml) serves metrics
// on: the Deployment's container port named http-metrics, checked to be the one its Service
// targets and the METRICS_PORT it sets.
Result<int> ChartMetricsPort(const std::string& testenv_dir);

// The port a controller said it serves on, from its log line `message` ("serving metrics",
// "serving health probes"); 0 before it said so.
int PortFromLog(const std::string& log, const std::string& message);

// GET http://127.0.0.1:`port`/metrics: its text.
Result<std::string> ScrapeText(int port);

// GET http://127.0.0.1:`port`/debug/state (the health probe port, with --debug-endpoints): the
// controller's internal state.
Result<kube::Object> DebugState(int port);

// upstream's names that client_golang's linter dislikes ("_count" on gauges), kept so that
// dashboards written for upstream work.
inline const std::vector<std::string> kUpstreamNamesTheLinterFlags = {
    "karpenter_cluster_state_node_count", "karpenter_scheduler_unschedulable_pods_count"};

// The problems the Prometheus linter (scripts/testenv/promlint, built by
// scripts/testenv/build-promlint from `source_dir`) finds in `text`; empty when it passes.
std::string LintProblems(const std::string& source_dir, const std::string& text);

}  // namespace karpenter::support
