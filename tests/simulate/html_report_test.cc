#include "simulate/html_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "simulate/result.h"

namespace karpenter::simulate {
namespace {

// A migration from managed node groups to Karpenter: 12 on-demand nodes down to 5 mostly-spot ones.
SimulationResult Migration() {
  SimulationResult result;
  result.scenario = "built-in migration scenario";
  result.virtual_seconds = 120;
  result.before.nodes = 12;
  result.before.by_type = {{{"m5.xlarge", "on-demand"}, 12}};
  result.before.cpu_requested = 20.5;
  result.before.cpu_allocatable = 46.5;
  result.before.memory_requested_gib = 40;
  result.before.memory_allocatable_gib = 160;
  result.before.price_per_hour = 41.20;
  result.before.pods = 80;
  result.after.nodes = 5;
  result.after.by_type = {{{"m5.xlarge", "on-demand"}, 1}, {{"c6i.2xlarge", "spot"}, 4}};
  result.after.cpu_requested = 20.5;
  result.after.cpu_allocatable = 35.5;
  result.after.memory_requested_gib = 40;
  result.after.memory_allocatable_gib = 76;
  result.after.price_per_hour = 17.85;
  result.after.pods = 80;
  result.pods_disrupted = 7;
  result.pdb_violations = 0;
  result.max_pending_seconds = 48;
  result.unschedulable_pods = 0;
  result.samples = {{0, 12, 0, 41.20, 0}, {60, 1, 4, 17.85, 9}};
  result.timeline = {{0, "Action", "", "Cluster Autoscaler scaled to 0"},
                     {65, "Launched", "default-abcde", "c6i.2xlarge spot in us-east-1a"},
                     {3725, "Disrupted", "ip-10-0-1-2", "drained 9 pods"}};
  result.nodes = {{"default-abcde", "c6i.2xlarge", "spot", "us-east-1a", "default", "", 20},
                  {"ip-10-0-1-2", "m5.xlarge", "on-demand", "us-east-1b", "", "general", 3}};
  result.decisions = {
      {125, "MultiNodeConsolidation", {"node-a", "node-b"}, {"default-xyz"}, 1.234, "2 → 1"},
      {130, "Emptiness", {"node-c"}, {}, 0.19, "empty"}};
  result.accuracy = {0.138, 0.129, "karpenter-bench fidelity", {"Jobs never complete"}};
  return result;
}

std::size_t Count(std::string_view text, std::string_view needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// From `start` (which must occur) to the next section heading or the footer.
std::string Section(const std::string& html, std::string_view start) {
  const std::size_t begin = html.find(start);
  if (begin == std::string::npos) return {};
  std::size_t end = html.find("<h2", begin + start.size());
  if (end == std::string::npos) end = html.find("<footer", begin);
  return html.substr(begin, end - begin);
}

std::string Between(const std::string& html, std::string_view open, std::string_view close) {
  const std::size_t begin = html.find(open);
  if (begin == std::string::npos) return {};
  const std::size_t end = html.find(close, begin + open.size());
  if (end == std::string::npos) return {};
  return html.substr(begin + open.size(), end - begin - open.size());
}

// Empty if every element is closed in order (void elements, "/>" and <style> text aside),
// otherwise what went wrong.
std::string MarkupProblem(const std::string& html) {
  static const std::vector<std::string> kVoid = {"meta", "link", "br", "hr", "img", "input"};
  std::vector<std::string> open;
  std::size_t at = 0;
  while ((at = html.find('<', at)) != std::string::npos) {
    const std::size_t end = html.find('>', at);
    if (end == std::string::npos) return "unterminated tag";
    const std::string tag = html.substr(at + 1, end - at - 1);
    at = end + 1;
    if (tag.starts_with("!")) continue;
    const bool closing = tag.starts_with("/");
    const std::string name =
        tag.substr(closing ? 1 : 0, tag.find_first_of(" /", 1) - (closing ? 1 : 0));
    if (closing) {
      if (open.empty() || open.back() != name) return "unexpected </" + name + ">";
      open.pop_back();
    } else if (!tag.ends_with("/") && std::find(kVoid.begin(), kVoid.end(), name) == kVoid.end()) {
      open.push_back(name);
      if (name == "style") at = html.find("</style>", at);
    }
    if (at == std::string::npos) return "unterminated <style>";
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

// The `d` of every charted line.
std::vector<std::string> SeriesPaths(const std::string& html) {
  static const std::regex kPath(R"re(<path class="series"[^>]* d="([^"]*)")re");
  std::vector<std::string> paths;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), kPath);
       it != std::sregex_iterator(); ++it) {
    paths.push_back((*it)[1]);
  }
  return paths;
}

TEST(HtmlReportTest, IsOneSelfContainedPage) {
  const std::string html = RenderHtml(Migration());
  EXPECT_TRUE(html.starts_with("<!doctype html>\n")) << html.substr(0, 40);
  EXPECT_NE(html.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // Only the SVG namespace names a URL, and nothing fetches it.
  EXPECT_EQ(Count(html, "http"), Count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
}

TEST(HtmlReportTest, EscapesEveryStringFromTheResult) {
  const std::string evil = "<script>alert('x&y')</script>\"";
  const std::string escaped = "&lt;script&gt;alert(&#39;x&amp;y&#39;)&lt;/script&gt;&quot;";
  SimulationResult result = Migration();
  result.scenario = evil;
  result.before.by_type = {{{evil, evil}, 1}};
  result.nodes = {{evil, evil, evil, evil, evil, evil, 1}};
  result.decisions = {{1, evil, {evil}, {evil}, 0, evil}};
  result.timeline = {{1, evil, evil, evil}};
  result.ignored = {evil};
  result.accuracy.basis = evil;
  result.accuracy.not_modelled = {evil};
  result.unschedulable_pods = 1;
  result.still_pending = {{evil, 10, evil}};

  const std::string html = RenderHtml(result);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("x&y"), std::string::npos);
  EXPECT_EQ(html.find("alert('"), std::string::npos);
  // Title, subtitle; by type ×2; final node ×6; still pending ×2; decision ×4; timeline ×3;
  // ignored ×1; how sure ×2.
  EXPECT_EQ(Count(html, escaped), 2U + 2 + 6 + 2 + 4 + 3 + 1 + 2);
  EXPECT_EQ(MarkupProblem(html), "");
}

TEST(HtmlReportTest, SaysHowSureBesideTheFiguresAndWhatWasNotModelled) {
  const std::string html = RenderHtml(Migration());
  EXPECT_NE(html.find("12 → 5 (±14 %)"), std::string::npos);
  EXPECT_NE(html.find("$41.20 → $17.85 (±13 %)"), std::string::npos);
  EXPECT_NE(html.find("<h2>How sure</h2>"), std::string::npos);
  EXPECT_NE(html.find("<li>Jobs never complete</li>"), std::string::npos);
  // Without a measured error, no figure claims one.
  SimulationResult unknown = Migration();
  unknown.accuracy = {};
  EXPECT_EQ(RenderHtml(unknown).find("±"), std::string::npos);
}

TEST(HtmlReportTest, DrawsThreeChartsWithLegends) {
  const std::string html = RenderHtml(Migration());
  EXPECT_EQ(Count(html, "<svg "), 3U);
  EXPECT_EQ(Count(html, "</svg>"), 3U);
  EXPECT_NE(html.find("Nodes by capacity type"), std::string::npos);
  EXPECT_NE(html.find(">On-demand</text>"), std::string::npos);
  EXPECT_NE(html.find(">Spot</text>"), std::string::npos);
  EXPECT_NE(html.find(">Price per hour</text>"), std::string::npos);
  EXPECT_NE(html.find(">Pending pods</text>"), std::string::npos);
  EXPECT_NE(html.find(">$40</text>"), std::string::npos);  // a $/hour tick
  EXPECT_NE(html.find(">minutes</text>"), std::string::npos);
  EXPECT_EQ(SeriesPaths(html).size(), 4U);  // on-demand, spot, price, pending
  EXPECT_EQ(html.find("No samples recorded"), std::string::npos);
}

TEST(HtmlReportTest, ChartsAreStepLinesHeldToTheEnd) {
  // Samples at 0 s and 60 s of 120 s: each line changes once, half way, and runs to the end.
  const std::vector<std::string> paths = SeriesPaths(RenderHtml(Migration()));
  ASSERT_EQ(paths.size(), 4U);
  static const std::regex kStep(R"(M([\d.]+),([\d.]+)H([\d.]+)V([\d.]+)H([\d.]+))");
  for (const std::string& path : paths) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(path, m, kStep)) << path;
    const double start = std::stod(m[1]);
    const double change = std::stod(m[3]);
    const double end = std::stod(m[5]);
    EXPECT_LT(start, change) << path;
    EXPECT_NEAR(change - start, end - change, 0.2) << path;
    EXPECT_NE(m[2], m[4]) << path;
  }
  EXPECT_EQ(paths[0].substr(paths[0].rfind('H')), paths[3].substr(paths[3].rfind('H')));
}

TEST(HtmlReportTest, UnchangedValuesDoNotAddSteps) {
  SimulationResult result = Migration();
  result.samples = {{0, 3, 0, 1, 0}, {10, 3, 0, 1, 0}, {20, 3, 1, 1.5, 0}, {30, 4, 1, 2, 0}};
  const std::vector<std::string> paths = SeriesPaths(RenderHtml(result));
  ASSERT_EQ(paths.size(), 4U);
  EXPECT_EQ(Count(paths[0], "V"), 1U) << paths[0];  // on-demand: 3, 3, 3, 4
  EXPECT_EQ(Count(paths[1], "V"), 1U) << paths[1];  // spot: 0, 0, 1, 1
  EXPECT_EQ(Count(paths[2], "V"), 2U) << paths[2];  // price: 1, 1, 1.5, 2
  EXPECT_EQ(Count(paths[3], "V"), 0U) << paths[3];  // pending: always 0
  for (const std::string& path : paths) EXPECT_EQ(path.find('L'), std::string::npos) << path;
}

TEST(HtmlReportTest, VerdictSaysPriceChangePdbViolationsAndMaxPending) {
  const std::string html = RenderHtml(Migration());
  EXPECT_EQ(Between(html, "<p class=\"verdict\">", "</p>"),
            "$41.20/h → $17.85/h (−57%), 0 PDB violations, max pending 48 s");
}

TEST(HtmlReportTest, VerdictNamesViolationsAndUnschedulablePods) {
  SimulationResult result = Migration();
  result.before.price_per_hour = 0;
  result.after.price_per_hour = 3.5;
  result.pdb_violations = 1;
  result.max_pending_seconds = 301.4;
  result.unschedulable_pods = 3;
  EXPECT_EQ(Between(RenderHtml(result), "<p class=\"verdict\">", "</p>"),
            "$0.00/h → $3.50/h, 1 PDB violation, max pending 301 s, 3 unschedulable pods");

  result.before.price_per_hour = 2;
  EXPECT_NE(RenderHtml(result).find("$2.00/h → $3.50/h (+75%)"), std::string::npos);
}

TEST(HtmlReportTest, ListsThePodsStillPendingAndWhy) {
  SimulationResult result = Migration();
  EXPECT_EQ(RenderHtml(result).find("Still pending"), std::string::npos);
  result.unschedulable_pods = 30;
  result.still_pending = {{"shop/web-1", 120.4, "Karpenter: no NodePool fits"}};
  const std::string html = RenderHtml(result);
  EXPECT_NE(html.find("<h2>Still pending (1 of 30)</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td>shop/web-1</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("120 s"), std::string::npos);
  EXPECT_NE(html.find("Karpenter: no NodePool fits"), std::string::npos);
  EXPECT_EQ(MarkupProblem(html), "");
}

TEST(HtmlReportTest, SummaryFigures) {
  SimulationResult result = Migration();
  result.pdb_violations = 2;
  result.unschedulable_pods = 4;
  const std::string cards = Between(RenderHtml(result), "<section class=\"cards\">", "</section>");
  EXPECT_NE(cards.find(">Nodes</div><div class=\"value\">12 → 5 (±14 %)<"), std::string::npos)
      << cards;
  EXPECT_NE(cards.find(">$41.20 → $17.85 (±13 %)<"), std::string::npos) << cards;
  EXPECT_NE(cards.find(">Pods disrupted</div><div class=\"value\">7<"), std::string::npos);
  EXPECT_NE(cards.find("bad\"><div class=\"label\">PDB violations</div><div class=\"value\">2<"),
            std::string::npos)
      << cards;
  EXPECT_NE(cards.find(">Max pending</div><div class=\"value\">48 s<"), std::string::npos);
  EXPECT_NE(cards.find(">Unschedulable pods</div><div class=\"value\">4<"), std::string::npos);
}

TEST(HtmlReportTest, BeforeAndAfterTables) {
  const std::string html = RenderHtml(Migration());
  const std::string section = Section(html, "<h2>Before and after");
  // Every (type, capacity type) of either side, in order, with the change; then the total.
  EXPECT_NE(section.find("<td>c6i.2xlarge</td><td>spot</td><td class=\"num\">0</td>"
                         "<td class=\"num\">4</td><td class=\"num\">+4</td>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<td>m5.xlarge</td><td>on-demand</td><td class=\"num\">12</td>"
                         "<td class=\"num\">1</td><td class=\"num\">−11</td>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<td>Total</td><td></td><td class=\"num\">12</td><td class=\"num\">5</td>"
                         "<td class=\"num\">−7</td>"),
            std::string::npos)
      << section;
  EXPECT_LT(section.find("c6i.2xlarge"), section.find("m5.xlarge"));
  // Requested vs allocatable, with utilisation.
  EXPECT_NE(section.find("<td>vCPU (cores)</td><td class=\"num\">20.50</td><td class=\"num\">46.50"
                         "</td><td class=\"num\">44%</td><td class=\"num\">20.50</td>"
                         "<td class=\"num\">35.50</td><td class=\"num\">58%</td>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<td>Memory (GiB)</td><td class=\"num\">40.0</td><td class=\"num\">160.0"
                         "</td><td class=\"num\">25%</td>"),
            std::string::npos)
      << section;
}

TEST(HtmlReportTest, FinalNodesTable) {
  const std::string section = Section(RenderHtml(Migration()), "<h2>Final nodes");
  EXPECT_NE(section.find("<h2>Final nodes (2)</h2>"), std::string::npos) << section;
  EXPECT_EQ(Count(section, "<tr>"), 3U);  // header and two nodes
  EXPECT_NE(section.find("<td>default-abcde</td><td>c6i.2xlarge</td><td>spot</td><td>us-east-1a"
                         "</td><td>default</td><td>—</td><td class=\"num\">20</td>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<td>ip-10-0-1-2</td><td>m5.xlarge</td><td>on-demand</td><td>us-east-1b"
                         "</td><td>—</td><td>general</td><td class=\"num\">3</td>"),
            std::string::npos)
      << section;
}

TEST(HtmlReportTest, DecisionRows) {
  const std::string section = Section(RenderHtml(Migration()), "<h2>Disruption decisions");
  EXPECT_EQ(Count(section, "<tr>"), 3U) << section;  // header and two decisions
  EXPECT_NE(section.find("<td class=\"num\">2:05</td><td>MultiNodeConsolidation</td>"
                         "<td>node-a, node-b</td><td>default-xyz</td>"
                         "<td class=\"num\">$1.23/h</td><td>2 → 1</td>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<td class=\"num\">2:10</td><td>Emptiness</td><td>node-c</td><td>—</td>"
                         "<td class=\"num\">$0.19/h</td>"),
            std::string::npos)
      << section;
}

TEST(HtmlReportTest, TimelineRows) {
  const std::string section = Section(RenderHtml(Migration()), "<h2>Timeline");
  EXPECT_NE(section.find("<h2>Timeline (3 events)</h2>"), std::string::npos) << section;
  EXPECT_EQ(Count(section, "<tr>"), 4U) << section;
  EXPECT_NE(section.find("<td class=\"num\">0:00</td><td>Action</td><td>—</td>"
                         "<td>Cluster Autoscaler scaled to 0</td>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<td class=\"num\">1:05</td><td>Launched</td><td>default-abcde</td>"
                         "<td>c6i.2xlarge spot in us-east-1a</td>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<td class=\"num\">62:05</td><td>Disrupted</td>"), std::string::npos);
  EXPECT_LT(section.find("0:00"), section.find("1:05"));
}

TEST(HtmlReportTest, IgnoredObjectsOnlyWhenThereAreSome) {
  SimulationResult result = Migration();
  EXPECT_EQ(RenderHtml(result).find("Ignored objects"), std::string::npos);
  result.ignored = {"ConfigMap/shop/settings", "Service/shop/web"};
  const std::string section = Section(RenderHtml(result), "<h2>Ignored objects");
  EXPECT_NE(section.find("<h2>Ignored objects (2)</h2>"), std::string::npos) << section;
  EXPECT_NE(section.find("<li>ConfigMap/shop/settings</li>"), std::string::npos) << section;
  EXPECT_NE(section.find("<li>Service/shop/web</li>"), std::string::npos) << section;
}

bool HasNonFiniteNumber(const std::string& html) {
  static const std::regex kNonFinite(R"(\b(nan|inf|infinity)\b)", std::regex::icase);
  return std::regex_search(html, kNonFinite);
}

TEST(HtmlReportTest, EmptyResultStillGivesValidMarkup) {
  const std::string html = RenderHtml(SimulationResult{});
  EXPECT_TRUE(html.starts_with("<!doctype html>"));
  EXPECT_TRUE(html.ends_with("</html>\n"));
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_EQ(Count(html, "<svg "), 3U);
  EXPECT_EQ(Count(html, "No samples recorded"), 3U);
  EXPECT_TRUE(SeriesPaths(html).empty());
  EXPECT_FALSE(HasNonFiniteNumber(html));
  EXPECT_EQ(Between(html, "<p class=\"verdict\">", "</p>"),
            "$0.00/h → $0.00/h, 0 PDB violations, max pending 0 s");
  EXPECT_NE(html.find("Karpenter disrupted no nodes."), std::string::npos);
  EXPECT_NE(html.find("No events."), std::string::npos);
}

TEST(HtmlReportTest, OneSampleIsHeldToTheEndWithANote) {
  SimulationResult result;
  result.virtual_seconds = 0;  // and nothing after the sample: the axis still has a length
  result.samples = {{0, 2, 1, 0.5, 3}};
  const std::string html = RenderHtml(result);
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_EQ(Count(html, "Only one sample"), 3U);
  const std::vector<std::string> paths = SeriesPaths(html);
  ASSERT_EQ(paths.size(), 4U);
  static const std::regex kFlat(R"(M([\d.]+),[\d.]+H([\d.]+))");
  for (const std::string& path : paths) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(path, m, kFlat)) << path;
    EXPECT_LT(std::stod(m[1]), std::stod(m[2])) << path;
  }
  EXPECT_FALSE(HasNonFiniteNumber(html));
}

TEST(HtmlReportTest, OddNumbersDoNotBreakTheCharts) {
  SimulationResult result = Migration();
  result.virtual_seconds = 30;  // before the last sample: the axis runs to the last sample
  result.samples.push_back({90, 0, 0, std::numeric_limits<double>::quiet_NaN(), 0});
  result.samples.push_back({100, -1, 0, std::numeric_limits<double>::infinity(), 0});
  result.max_pending_seconds = std::numeric_limits<double>::quiet_NaN();
  result.before.price_per_hour = 1e-300;
  result.timeline.push_back({1e300, "Late", "", ""});
  const std::string html = RenderHtml(result);
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_FALSE(HasNonFiniteNumber(html));
  EXPECT_EQ(SeriesPaths(html).size(), 4U);
}

TEST(HtmlReportTest, IsDeterministic) {
  EXPECT_EQ(RenderHtml(Migration()), RenderHtml(Migration()));
}

}  // namespace
}  // namespace karpenter::simulate
