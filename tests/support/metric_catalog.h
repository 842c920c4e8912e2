#pragma once
// What the controller promises to serve, and what its dashboards read: the metric names in the
// table of docs/metrics.md, the names the queries of deploy/dashboards/*.json use, and a family's
// series in a scrape — so a test can hold the scrape of a real controller to both.

#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "support/metrics_text.h"

namespace karpenter::support {

// The metric names in the first column of the table under "## Prometheus metrics" in
// `source_dir`/docs/metrics.md, in order.
Result<std::vector<std::string>> DocumentedMetrics(const std::string& source_dir);

// Each metric a dashboard's queries use, by dashboard file name (histograms and summaries by
// their family name, without _bucket/_count/_sum); an error names a query that uses a name
// `served` does not hold, or a dashboard that is not one.
Result<std::map<std::string, std::vector<std::string>>> DashboardMetrics(
    const std::string& source_dir, const std::vector<std::string>& served);

// The series of family `name` in `samples` (its _bucket, _count and _sum too): labels → value.
std::map<std::string, double> FamilySeries(const std::vector<Sample>& samples,
                                           const std::string& name);

}  // namespace karpenter::support
