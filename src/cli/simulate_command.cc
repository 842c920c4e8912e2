#include "cli/simulate_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "aws/catalog/load_catalog.h"
#include "cli/builtin_scenario.h"
#include "cli/command_line.h"
#include "common/duration.h"
#include "operator/options.h"
#include "simulate/html_report.h"
#include "simulate/inputs.h"
#include "simulate/launch_zones.h"
#include "simulate/report.h"
#include "simulate/simulation.h"

namespace karpenter::cli {
namespace {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Error{fmt::format("{}: cannot read", path)};
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// A bar of 30 cells, redrawn in place.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled) {}
  ~ProgressBar() {
    if (drawn_) std::fputs("\r\033[K", stderr);
  }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void Update(double done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - started_ < std::chrono::seconds(1) ||
        now - drawn_at_ < std::chrono::milliseconds(100)) {
      return;
    }
    drawn_at_ = now;
    drawn_ = true;
    const int cells = static_cast<int>(done * 30);
    std::fprintf(stderr, "\rsimulating [%s%s] %3.0f%%", std::string(cells, '#').c_str(),
                 std::string(30 - cells, '.').c_str(), done * 100);
    std::fflush(stderr);
  }

 private:
  const bool enabled_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point drawn_at_;
  bool drawn_ = false;
};

}  // namespace

int RunSimulate(const SimulateOptions& options, std::ostream& out, std::ostream& err) {
  if (options.output != "text" && options.output != "json") {
    err << fmt::format("simulate: --output: \"{}\" is not text or json\n", options.output);
    return kExitUsage;
  }
  simulate::SimulationInput input;
  input.seed = options.seed;
  input.region = options.region;
  Result<Duration> duration = Duration::Parse(options.duration, /*allow_never=*/false);
  if (!duration.ok() || duration->value().count() <= 0) {
    err << fmt::format("simulate: --duration: \"{}\" is not a positive duration{}\n",
                       options.duration, duration.ok() ? "" : ": " + duration.error().message);
    return kExitUsage;
  }
  input.duration = duration->value();
  Result<std::map<std::string, bool, std::less<>>> gates =
      op::ParseFeatureGates(options.feature_gates);
  if (!gates.ok()) {
    err << fmt::format("simulate: --feature-gates: {}\n", gates.error().message);
    return kExitUsage;
  }
  input.node_repair = gates->at("NodeRepair");
  input.spot_to_spot_consolidation = gates->at("SpotToSpotConsolidation");
  input.balanced_consolidation = gates->at("BalancedConsolidation");
  input.static_capacity = gates->at("StaticCapacity");
  input.node_overlays = gates->at("NodeOverlay");
  input.capacity_buffers = gates->at("CapacityBuffer");

  std::vector<std::string> errors;
  std::string timeline_text;
  std::string timeline_source;
  if (options.files.empty()) {
    input.scenario = "the built-in migration scenario (CAS node groups → Karpenter)";
    simulate::AddManifests(BuiltinScenarioManifests(), "<built-in scenario>", input, errors);
    timeline_text = BuiltinScenarioTimeline();
    timeline_source = "<built-in timeline>";
  } else {
    input.scenario.clear();
    for (const std::string& file : options.files) {
      if (!input.scenario.empty()) input.scenario.append(", ");
      input.scenario.append(file);
      Result<std::string> text = ReadFile(file);
      if (!text.ok()) {
        errors.push_back(text.error().message);
        continue;
      }
      simulate::AddManifests(*text, file, input, errors);
    }
  }
  if (!options.timeline.empty()) {
    Result<std::string> text = ReadFile(options.timeline);
    if (!text.ok()) {
      errors.push_back(text.error().message);
    } else {
      timeline_text = std::move(*text);
      timeline_source = options.timeline;
    }
  }
  if (!timeline_text.empty()) {
    Result<simulate::Timeline> timeline = simulate::ParseTimeline(timeline_text, timeline_source);
    if (!timeline.ok()) {
      errors.push_back(timeline.error().message);
    } else {
      input.timeline = std::move(*timeline);
    }
  }
  if (!errors.empty()) {
    for (const std::string& error : errors) err << error << '\n';
    err << fmt::format("simulate: {} problem{} in the inputs; nothing simulated\n", errors.size(),
                       errors.size() == 1 ? "" : "s");
    return 1;
  }

  aws::AwsCatalogOptions catalog_options;
  catalog_options.region = options.region;
  catalog_options.spot_prices_file = options.spot_prices;
  Result<std::vector<cloud::InstanceType>> catalog =
      aws::LoadCatalog(options.catalog, catalog_options);
  if (!catalog.ok()) {
    err << "simulate: --catalog: " << catalog.error().message << '\n';
    return 1;
  }
  input.catalog = std::move(*catalog);
  for (const std::string& zone : options.zones) {
    if (simulate::OfferedIn(input.catalog, {zone}).empty()) {
      err << fmt::format("simulate: --zones: {} is not a zone of the catalog's region\n", zone);
      return 1;
    }
  }
  input.launch_zones = options.zones;

  Result<simulate::SimulationResult> result = [&] {
    ProgressBar bar(options.progress && isatty(STDERR_FILENO) != 0);
    return simulate::Simulate(std::move(input), [&](double done) { bar.Update(done); });
  }();
  if (!result.ok()) {
    err << "simulate: " << result.error().message << '\n';
    return 1;
  }
  if (!options.report.empty()) {
    std::ofstream report(options.report, std::ios::binary);
    report << simulate::RenderHtml(*result);
    if (!report) {
      err << fmt::format("simulate: --report: cannot write {}\n", options.report);
      return 1;
    }
  }
  if (options.output == "json") {
    out << simulate::RenderJson(*result);
  } else {
    simulate::RenderText(*result, out);
  }
  return 0;
}

}  // namespace karpenter::cli
