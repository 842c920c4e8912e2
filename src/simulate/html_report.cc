#include "simulate/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simulate/figures.h"
#include "simulate/html_page.h"

namespace karpenter::simulate {
namespace {

using html::AppendCard;
using html::AppendTable;
using html::Escape;
using html::Row;

// Chart geometry, in SVG user units.
constexpr double kChartWidth = 720;
constexpr double kChartHeight = 240;
constexpr double kPlotLeft = 52;
constexpr double kPlotRight = kChartWidth - 16;
constexpr double kPlotTop = 34;
constexpr double kPlotBottom = kChartHeight - 40;
constexpr int kTargetTicks = 5;
constexpr int kMaxTicks = 20;

constexpr std::string_view kOnDemandColor = "#2563eb";
constexpr std::string_view kSpotColor = "#f59e0b";
constexpr std::string_view kPriceColor = "#059669";
constexpr std::string_view kPendingColor = "#dc2626";
constexpr std::string_view kNone = "—";

// --- Text ----------------------------------------------------------------------------------------

std::string OrNone(const std::string& text) { return text.empty() ? std::string(kNone) : text; }

std::string Join(const std::vector<std::string>& items) {
  if (items.empty()) return std::string(kNone);
  std::string text = items.front();
  for (std::size_t i = 1; i < items.size(); ++i) text.append(", ").append(items[i]);
  return text;
}

// --- Page structure ------------------------------------------------------------------------------

void AppendHead(std::string& out, const SimulationResult& result) {
  html::AppendHead(out, "Karpenter simulation — " +
                            (result.scenario.empty() ? std::string("report") : result.scenario));
}

void AppendHeader(std::string& out, const SimulationResult& result) {
  out += "<header>\n<h1>Karpenter simulation</h1>\n";
  fmt::format_to(std::back_inserter(out),
                 "<p class=\"scenario\">{} · {} of virtual time</p>\n"
                 "<p class=\"verdict\">{}</p>\n</header>\n",
                 Escape(OrNone(result.scenario)), MinutesSeconds(result.virtual_seconds),
                 Escape(Verdict(result)));
}

// " (±14 %)" after an "after" figure; nothing when no error is known.
std::string ExpectedError(double error) {
  const std::string text = PlusMinus(error);
  return text.empty() ? text : " (" + text + ")";
}

std::string_view ToneIfPositive(double value) { return value > 0 ? "bad" : "good"; }

void AppendSummary(std::string& out, const SimulationResult& result) {
  const ClusterFigures& before = result.before;
  const ClusterFigures& after = result.after;
  out += "<section class=\"cards\">\n";
  AppendCard(out, "Nodes",
             fmt::format("{} → {}{}", before.nodes, after.nodes,
                         ExpectedError(result.accuracy.nodes_error)));
  AppendCard(out, "Price per hour",
             fmt::format("{} → {}{}", Money(before.price_per_hour), Money(after.price_per_hour),
                         ExpectedError(result.accuracy.price_error)),
             "wide");
  AppendCard(out, "Running pods", fmt::format("{} → {}", before.pods, after.pods));
  AppendCard(out, "Pods disrupted", fmt::format("{}", result.pods_disrupted));
  AppendCard(out, "PDB violations", fmt::format("{}", result.pdb_violations),
             ToneIfPositive(result.pdb_violations));
  AppendCard(out, "Max pending", fmt::format("{:.0f} s", Finite(result.max_pending_seconds)));
  if (const std::optional<WithoutBuffers>& without = result.without_buffers) {
    AppendCard(
        out, "CapacityBuffers",
        fmt::format("{} more per hour; pending {:.0f} s instead of {:.0f} s",
                    Money(after.price_per_hour - without->price_per_hour),
                    Finite(result.max_pending_seconds), Finite(without->max_pending_seconds)),
        "wide");
  }
  AppendCard(out, "Unschedulable pods", fmt::format("{}", result.unschedulable_pods),
             ToneIfPositive(result.unschedulable_pods));
  out += "</section>\n";
}

// --- Tables --------------------------------------------------------------------------------------

int CountOf(const ClusterFigures& figures, const std::pair<std::string, std::string>& key) {
  const auto it = figures.by_type.find(key);
  return it == figures.by_type.end() ? 0 : it->second;
}

void AppendByType(std::string& out, const SimulationResult& result) {
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& [key, count] : result.before.by_type) keys.insert(key);
  for (const auto& [key, count] : result.after.by_type) keys.insert(key);
  std::vector<Row> rows;
  for (const auto& key : keys) {
    const int before = CountOf(result.before, key);
    const int after = CountOf(result.after, key);
    rows.push_back({key.first, key.second, fmt::format("{}", before), fmt::format("{}", after),
                    Delta(after - before)});
  }
  if (!rows.empty()) {
    rows.push_back({"Total", "", fmt::format("{}", result.before.nodes),
                    fmt::format("{}", result.after.nodes),
                    Delta(result.after.nodes - result.before.nodes)});
  }
  out += "<h3>Nodes by instance type and capacity type</h3>\n";
  AppendTable(
      out,
      {{"Instance type"}, {"Capacity type"}, {"Before", true}, {"After", true}, {"Change", true}},
      rows, "No nodes before or after.");
}

std::string Utilisation(double requested, double allocatable) {
  if (!(Finite(allocatable) > 0)) return std::string(kNone);
  return fmt::format("{:.0f}%", Finite(requested) / allocatable * 100);
}

Row ResourceRow(std::string_view name, int decimals, double before_requested,
                double before_allocatable, double after_requested, double after_allocatable) {
  const auto number = [decimals](double value) { return fmt::format("{:.{}f}", value, decimals); };
  return {std::string(name),
          number(Finite(before_requested)),
          number(Finite(before_allocatable)),
          Utilisation(before_requested, before_allocatable),
          number(Finite(after_requested)),
          number(Finite(after_allocatable)),
          Utilisation(after_requested, after_allocatable)};
}

void AppendResources(std::string& out, const SimulationResult& result) {
  const ClusterFigures& b = result.before;
  const ClusterFigures& a = result.after;
  const std::vector<Row> rows = {
      ResourceRow("vCPU (cores)", 2, b.cpu_requested, b.cpu_allocatable, a.cpu_requested,
                  a.cpu_allocatable),
      ResourceRow("Memory (GiB)", 1, b.memory_requested_gib, b.memory_allocatable_gib,
                  a.memory_requested_gib, a.memory_allocatable_gib)};
  out += "<h3>Requested vs allocatable</h3>\n";
  AppendTable(out,
              {{"Resource"},
               {"Before requested", true},
               {"Before allocatable", true},
               {"Before used", true},
               {"After requested", true},
               {"After allocatable", true},
               {"After used", true}},
              rows);
}

void AppendFinalNodes(std::string& out, const SimulationResult& result) {
  std::vector<Row> rows;
  rows.reserve(result.nodes.size());
  for (const FinalNode& node : result.nodes) {
    rows.push_back({node.name, node.instance_type, OrNone(node.capacity_type), OrNone(node.zone),
                    OrNone(node.node_pool), OrNone(node.node_group), fmt::format("{}", node.pods)});
  }
  fmt::format_to(std::back_inserter(out), "<h2>Final nodes ({})</h2>\n", result.nodes.size());
  AppendTable(out,
              {{"Name"},
               {"Instance type"},
               {"Capacity type"},
               {"Zone"},
               {"NodePool"},
               {"Node group"},
               {"Pods", true}},
              rows, "No nodes at the end.");
}

void AppendStillPending(std::string& out, const SimulationResult& result) {
  if (result.still_pending.empty()) return;
  std::vector<Row> rows;
  rows.reserve(result.still_pending.size());
  for (const PendingPod& pod : result.still_pending) {
    rows.push_back({pod.name, fmt::format("{:.0f} s", pod.seconds), OrNone(pod.reason)});
  }
  fmt::format_to(std::back_inserter(out), "<h2>Still pending ({} of {})</h2>\n",
                 result.still_pending.size(), result.unschedulable_pods);
  AppendTable(out, {{"Pod"}, {"Waited", true}, {"Why"}}, rows, "");
}

void AppendDecisions(std::string& out, const SimulationResult& result) {
  std::vector<Row> rows;
  rows.reserve(result.decisions.size());
  for (const Decision& decision : result.decisions) {
    rows.push_back({MinutesSeconds(decision.t), decision.method, Join(decision.nodes),
                    Join(decision.replacements), Money(decision.savings_per_hour) + "/h",
                    OrNone(decision.description)});
  }
  fmt::format_to(std::back_inserter(out), "<h2>Disruption decisions ({})</h2>\n",
                 result.decisions.size());
  AppendTable(
      out,
      {{"Time", true}, {"Method"}, {"Nodes"}, {"Replacements"}, {"Savings", true}, {"Description"}},
      rows, "Karpenter disrupted no nodes.");
}

void AppendTimeline(std::string& out, const SimulationResult& result) {
  std::vector<Row> rows;
  rows.reserve(result.timeline.size());
  for (const TimelineEvent& event : result.timeline) {
    rows.push_back({MinutesSeconds(event.t), event.event, OrNone(event.subject), event.detail});
  }
  fmt::format_to(std::back_inserter(out), "<h2>Timeline ({})</h2>\n",
                 Plural(static_cast<int64_t>(result.timeline.size()), "event"));
  AppendTable(out, {{"Time", true}, {"Event"}, {"Subject"}, {"Detail"}}, rows, "No events.");
}

void AppendAccuracy(std::string& out, const SimulationResult& result) {
  const Accuracy& accuracy = result.accuracy;
  fmt::format_to(std::back_inserter(out),
                 "<h2>How sure</h2>\n<p>The node count is expected within {:.0f} % and the price "
                 "per hour within {:.0f} % of the median of Karpenter's runs ({}).</p>\n",
                 100 * accuracy.nodes_error, 100 * accuracy.price_error, Escape(accuracy.basis));
  if (accuracy.not_modelled.empty()) return;
  out += "<p>Not modelled for this cluster:</p>\n<ul class=\"ignored\">\n";
  for (const std::string& caveat : accuracy.not_modelled) {
    fmt::format_to(std::back_inserter(out), "<li>{}</li>\n", Escape(caveat));
  }
  out += "</ul>\n";
}

void AppendIgnored(std::string& out, const SimulationResult& result) {
  if (result.ignored.empty()) return;
  fmt::format_to(std::back_inserter(out),
                 "<h2>Ignored objects ({})</h2>\n<p>Input objects the simulation does not model:"
                 "</p>\n<ul class=\"ignored\">\n",
                 result.ignored.size());
  for (const std::string& object : result.ignored) {
    fmt::format_to(std::back_inserter(out), "<li>{}</li>\n", Escape(object));
  }
  out += "</ul>\n";
}

// --- Charts --------------------------------------------------------------------------------------

struct Series {
  std::string_view name;
  std::string_view color;
  std::vector<double> values;  // one per sample
};

struct Chart {
  std::string_view title;
  std::string_view unit;         // the y axis
  std::string_view tick_prefix;  // e.g. "$"
  bool integral = false;         // whole-number ticks
  std::vector<Series> series;
};

// Evenly spaced "nice" ticks (1, 2 or 5 times a power of ten) from 0 to `top` ≥ the maximum.
struct Ticks {
  double top = 1;
  double step = 1;
  int decimals = 0;
};

Ticks NiceTicks(double max_value, bool integral) {
  if (!(Finite(max_value) > 0)) max_value = 1;
  const double raw = max_value / kTargetTicks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalised = raw / magnitude;
  const double nice = normalised <= 1 ? 1 : normalised <= 2 ? 2 : normalised <= 5 ? 5 : 10;
  Ticks ticks;
  ticks.step = nice * magnitude;
  if (integral) ticks.step = std::max(1.0, std::round(ticks.step));
  ticks.top = std::ceil(max_value / ticks.step - 1e-9) * ticks.step;
  if (ticks.step < 1) ticks.decimals = static_cast<int>(std::ceil(-std::log10(ticks.step) - 1e-9));
  return ticks;
}

// Maps seconds and values to SVG coordinates; both spans are positive.
struct Frame {
  double span_seconds = 1;
  double top = 1;

  [[nodiscard]] double X(double seconds) const {
    return kPlotLeft +
           std::clamp(Finite(seconds) / span_seconds, 0.0, 1.0) * (kPlotRight - kPlotLeft);
  }
  [[nodiscard]] double Y(double value) const {
    return kPlotBottom - std::clamp(Finite(value) / top, 0.0, 1.0) * (kPlotBottom - kPlotTop);
  }
};

void AppendYAxis(std::string& out, const Chart& chart, const Ticks& ticks, const Frame& frame) {
  for (int i = 0; i <= kMaxTicks && i * ticks.step <= ticks.top + 1e-9; ++i) {
    const double value = i * ticks.step;
    const double y = frame.Y(value);
    fmt::format_to(std::back_inserter(out),
                   "<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
                   "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}{:.{}f}</text>\n",
                   kPlotLeft, y, kPlotRight, y, kPlotLeft - 6, y + 4, Escape(chart.tick_prefix),
                   value, ticks.decimals);
  }
  fmt::format_to(
      std::back_inserter(out),
      "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>"
      "<text x=\"{3:.1f}\" y=\"{4:.1f}\">{5}</text>\n",
      kPlotLeft, kPlotTop, kPlotBottom, 8.0, kPlotTop - 18, Escape(chart.unit));
}

void AppendXAxis(std::string& out, const Frame& frame) {
  const double minutes = frame.span_seconds / 60;
  const Ticks ticks = NiceTicks(minutes, false);
  for (int i = 0; i <= kMaxTicks && i * ticks.step <= minutes + 1e-9; ++i) {
    const double x = frame.X(i * ticks.step * 60);
    fmt::format_to(
        std::back_inserter(out),
        "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\">{4:.{5}f}</text>\n",
        x, kPlotBottom, kPlotBottom + 5, kPlotBottom + 18, i * ticks.step, ticks.decimals);
  }
  fmt::format_to(std::back_inserter(out),
                 "<line class=\"axis\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
                 "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">minutes</text>\n",
                 kPlotLeft, kPlotBottom, kPlotRight, kPlotBottom, kPlotRight, kChartHeight - 6);
}

// The legend, right-aligned above the plot; text widths are estimates.
void AppendLegend(std::string& out, const std::vector<Series>& series) {
  double x = kPlotRight;
  for (auto it = series.rbegin(); it != series.rend(); ++it) {
    x -= 26 + 7.0 * static_cast<double>(it->name.size());
    fmt::format_to(
        std::back_inserter(out),
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"4\" rx=\"2\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        x, kPlotTop - 22, it->color, x + 19, kPlotTop - 17, Escape(it->name));
  }
}

// A step line: each value holds until the next sample; the last one until `end_seconds`.
std::string StepPath(const std::vector<double>& times, const std::vector<double>& values,
                     const Frame& frame, double end_seconds) {
  std::string path = fmt::format("M{:.1f},{:.1f}", frame.X(times[0]), frame.Y(values[0]));
  for (std::size_t i = 1; i < times.size() && i < values.size(); ++i) {
    if (Finite(values[i]) == Finite(values[i - 1])) continue;
    fmt::format_to(std::back_inserter(path), "H{:.1f}V{:.1f}", frame.X(times[i]),
                   frame.Y(values[i]));
  }
  fmt::format_to(std::back_inserter(path), "H{:.1f}", frame.X(end_seconds));
  return path;
}

void AppendNote(std::string& out, std::string_view note) {
  fmt::format_to(
      std::back_inserter(out),
      "<text class=\"note\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
      (kPlotLeft + kPlotRight) / 2, (kPlotTop + kPlotBottom) / 2, Escape(note));
}

double MaxValue(const std::vector<Series>& series) {
  double max_value = 0;
  for (const Series& s : series) {
    for (const double value : s.values) max_value = std::max(max_value, Finite(value));
  }
  return max_value;
}

void AppendChart(std::string& out, const Chart& chart, const std::vector<double>& times,
                 double span_seconds) {
  const Ticks y_ticks = NiceTicks(MaxValue(chart.series), chart.integral);
  const Frame frame{span_seconds, y_ticks.top};
  fmt::format_to(std::back_inserter(out),
                 "<figure>\n<figcaption>{0}</figcaption>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {1} {2}\" width=\"{1}\" "
                 "height=\"{2}\" role=\"img\" aria-label=\"{0}\">\n<title>{0}</title>\n",
                 Escape(chart.title), kChartWidth, kChartHeight);
  AppendYAxis(out, chart, y_ticks, frame);
  AppendXAxis(out, frame);
  AppendLegend(out, chart.series);
  if (times.empty()) {
    AppendNote(out, "No samples recorded");
  } else {
    for (const Series& series : chart.series) {
      fmt::format_to(std::back_inserter(out),
                     "<path class=\"series\" stroke=\"{}\" d=\"{}\"><title>{}</title></path>\n",
                     series.color, StepPath(times, series.values, frame, span_seconds),
                     Escape(series.name));
    }
    if (times.size() == 1) AppendNote(out, "Only one sample: values held to the end");
  }
  out += "</svg>\n</figure>\n";
}

// How far the x axis goes: the virtual time, or the last sample if later; never zero.
double SpanSeconds(const SimulationResult& result) {
  double span = Finite(result.virtual_seconds);
  if (!result.samples.empty()) span = std::max(span, Finite(result.samples.back().t));
  return span > 0 ? span : 60;
}

std::vector<Chart> Charts(const SimulationResult& result) {
  Series on_demand{"On-demand", kOnDemandColor, {}};
  Series spot{"Spot", kSpotColor, {}};
  Series price{"Price per hour", kPriceColor, {}};
  Series pending{"Pending pods", kPendingColor, {}};
  for (const Sample& sample : result.samples) {
    on_demand.values.push_back(sample.on_demand_nodes);
    spot.values.push_back(sample.spot_nodes);
    price.values.push_back(sample.price_per_hour);
    pending.values.push_back(sample.pending_pods);
  }
  std::vector<Chart> charts;
  charts.push_back({"Nodes by capacity type", "nodes", "", true, {on_demand, spot}});
  charts.push_back({"Cost", "$/hour", "$", false, {price}});
  charts.push_back({"Pending pods", "pods", "", true, {pending}});
  return charts;
}

void AppendCharts(std::string& out, const SimulationResult& result) {
  const double span = SpanSeconds(result);
  std::vector<double> times;
  times.reserve(result.samples.size());
  for (const Sample& sample : result.samples) {
    times.push_back(std::clamp(Finite(sample.t), 0.0, span));
  }
  out += "<h2>Over time</h2>\n";
  for (const Chart& chart : Charts(result)) AppendChart(out, chart, times, span);
}

}  // namespace

std::string RenderHtml(const SimulationResult& result) {
  std::string out;
  AppendHead(out, result);
  out += "<body>\n<main>\n";
  AppendHeader(out, result);
  AppendSummary(out, result);
  AppendAccuracy(out, result);
  AppendCharts(out, result);
  out += "<h2>Before and after</h2>\n";
  AppendByType(out, result);
  AppendResources(out, result);
  AppendFinalNodes(out, result);
  AppendStillPending(out, result);
  AppendDecisions(out, result);
  AppendTimeline(out, result);
  AppendIgnored(out, result);
  fmt::format_to(std::back_inserter(out),
                 "<footer>Generated by <code>karpenter simulate</code> · {} simulated, {}, {}."
                 "</footer>\n</main>\n</body>\n</html>\n",
                 MinutesSeconds(result.virtual_seconds),
                 Plural(static_cast<int64_t>(result.samples.size()), "sample"),
                 Plural(static_cast<int64_t>(result.timeline.size()), "event"));
  return out;
}

}  // namespace karpenter::simulate
