#include "support/metric_catalog.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "common/read_file.h"
#include "kube/object.h"

namespace karpenter::support {
namespace {

constexpr const char* kSuffixes[] = {"_bucket", "_count", "_sum"};

}  // namespace

Result<std::vector<std::string>> DocumentedMetrics(const std::string& source_dir) {
  const std::string path = source_dir + "/docs/metrics.md";
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  std::istringstream lines(text);
  std::string line;
  bool in_section = false;
  std::vector<std::string> names;
  const std::regex name(R"(`([a-z_:][a-z0-9_:]*)`)");
  while (std::getline(lines, line)) {
    if (line.starts_with("## ")) in_section = line == "## Prometheus metrics";
    if (!in_section || !line.starts_with("| `")) continue;
    const std::string first_cell = line.substr(2, line.find(" |", 2) - 2);
    for (auto it = std::sregex_iterator(first_cell.begin(), first_cell.end(), name);
         it != std::sregex_iterator(); ++it) {
      names.push_back((*it)[1]);
    }
  }
  if (names.empty()) return Error(path + ": no metrics table under \"## Prometheus metrics\"");
  return names;
}

Result<std::map<std::string, std::vector<std::string>>> DashboardMetrics(
    const std::string& source_dir, const std::vector<std::string>& served) {
  const std::set<std::string, std::less<>> known(served.begin(), served.end());
  const std::regex metric(R"(\b((karpenter|controller_runtime|workqueue|process)_[a-z0-9_]+))");
  std::map<std::string, std::vector<std::string>> used;
  for (const auto& entry : std::filesystem::directory_iterator(source_dir + "/deploy/dashboards")) {
    if (entry.path().extension() != ".json") continue;
    const std::string file = entry.path().filename().string();
    ASSIGN_OR_RETURN(const std::string text, ReadFile(entry.path().string()));
    const kube::Object dashboard = kube::Object::parse(text, nullptr, false);
    if (dashboard.is_discarded() || !dashboard.contains("panels") ||
        !dashboard["panels"].is_array() || dashboard["panels"].empty()) {
      return Error(file + ": not a Grafana dashboard with panels");
    }
    std::set<std::string> names;
    for (const kube::Object& panel : dashboard["panels"]) {
      const std::string title = panel.value("title", "");
      if (!panel.contains("targets") || panel["targets"].empty()) {
        return Error(file + ": panel \"" + title + "\" has no query");
      }
      for (const kube::Object& target : panel["targets"]) {
        const std::string expr = target.value("expr", "");
        auto it = std::sregex_iterator(expr.begin(), expr.end(), metric);
        if (it == std::sregex_iterator()) {
          return Error(file + ": panel \"" + title + "\": no metric in " + expr);
        }
        for (; it != std::sregex_iterator(); ++it) {
          std::string found = (*it)[1];
          for (const char* suffix : kSuffixes) {
            if (!known.contains(found) && found.ends_with(suffix)) {
              found.resize(found.size() - std::string_view(suffix).size());
            }
          }
          if (!known.contains(found)) {
            return Error(file + ": panel \"" + title + "\" uses " + std::string((*it)[1]) +
                         ", which docs/metrics.md does not list as served");
          }
          names.insert(found);
        }
      }
    }
    used[file].assign(names.begin(), names.end());
  }
  if (used.empty()) return Error(source_dir + "/deploy/dashboards: no dashboards");
  return used;
}

std::map<std::string, double> FamilySeries(const std::vector<Sample>& samples,
                                           const std::string& name) {
  std::map<std::string, double> series;
  for (const Sample& sample : samples) {
    const bool member =
        sample.name == name ||
        std::any_of(std::begin(kSuffixes), std::end(kSuffixes),
                    [&](const char* suffix) { return sample.name == name + suffix; });
    if (!member) continue;
    std::string key = sample.name;
    for (const auto& [label, value] : sample.labels) key += "," + label + "=" + value;
    series[key] = sample.value;
  }
  return series;
}

}  // namespace karpenter::support
