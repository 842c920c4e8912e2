#include "simulate/report.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "common/wrap.h"
#include "simulate/figures.h"

namespace karpenter::simulate {
namespace {

using nlohmann::ordered_json;

// Money and figures rounded for people and for stable JSON.
double Round(double value, double unit) { return std::round(value / unit) * unit; }

ordered_json FiguresJson(const ClusterFigures& figures) {
  ordered_json by_type = ordered_json::array();
  for (const auto& [key, count] : figures.by_type) {
    by_type.push_back(
        {{"instanceType", key.first}, {"capacityType", key.second}, {"nodes", count}});
  }
  return {{"nodes", figures.nodes},
          {"pods", figures.pods},
          {"pendingPods", figures.pending_pods},
          {"cpuRequested", Round(figures.cpu_requested, 0.001)},
          {"cpuAllocatable", Round(figures.cpu_allocatable, 0.001)},
          {"memoryRequestedGiB", Round(figures.memory_requested_gib, 0.001)},
          {"memoryAllocatableGiB", Round(figures.memory_allocatable_gib, 0.001)},
          {"pricePerHour", Round(figures.price_per_hour, 0.0001)},
          {"lowerBoundPricePerHour", Round(figures.lower_bound_price_per_hour, 0.0001)},
          {"keptNodesPricePerHour", Round(figures.kept_price_per_hour, 0.0001)},
          {"lowerBoundWithKeptNodesPricePerHour",
           Round(figures.kept_lower_bound_price_per_hour, 0.0001)},
          {"byType", std::move(by_type)}};
}

// How the fleet's price compares with the bound, for the text report ("1.08x the bound").
std::string BoundRatio(double price, double bound) {
  return bound > 0 ? fmt::format("{:.2f}x the bound", price / bound) : "";
}

std::string Percent(double part, double whole) {
  return whole > 0 ? fmt::format("{:.0f}%", 100 * part / whole) : "-";
}

}  // namespace

void RenderText(const SimulationResult& result, std::ostream& out) {
  out << fmt::format("Simulated {:>6} of {}\n\n", MinutesSeconds(result.virtual_seconds),
                     result.scenario);
  out << "Timeline (m:ss)\n";
  for (const TimelineEvent& event : result.timeline) {
    out << fmt::format("{:>6}  {:<22} {}{}{}\n", MinutesSeconds(event.t), event.event,
                       event.subject, event.subject.empty() || event.detail.empty() ? "" : ": ",
                       event.detail);
  }
  out << "\nNodes by instance type         before  after\n";
  std::set<std::pair<std::string, std::string>> types;
  for (const auto& [key, count] : result.before.by_type) types.insert(key);
  for (const auto& [key, count] : result.after.by_type) types.insert(key);
  auto count_of = [](const ClusterFigures& figures,
                     const std::pair<std::string, std::string>& key) {
    auto it = figures.by_type.find(key);
    return it == figures.by_type.end() ? 0 : it->second;
  };
  for (const auto& key : types) {
    out << fmt::format("  {:<28} {:>6} {:>6}\n", key.first + " " + key.second,
                       count_of(result.before, key), count_of(result.after, key));
  }
  out << fmt::format("  {:<28} {:>6} {:>6}  {}\n", "total", result.before.nodes, result.after.nodes,
                     PlusMinus(result.accuracy.nodes_error));
  out << "\n                               before            after\n";
  auto usage = [&](std::string_view what, double requested_before, double allocatable_before,
                   double requested_after, double allocatable_after) {
    out << fmt::format("  {:<16} {:>7.1f}/{:<7.1f} {:>4}  {:>7.1f}/{:<7.1f} {:>4}\n", what,
                       requested_before, allocatable_before,
                       Percent(requested_before, allocatable_before), requested_after,
                       allocatable_after, Percent(requested_after, allocatable_after));
  };
  usage("vCPU req/alloc", result.before.cpu_requested, result.before.cpu_allocatable,
        result.after.cpu_requested, result.after.cpu_allocatable);
  usage("GiB req/alloc", result.before.memory_requested_gib, result.before.memory_allocatable_gib,
        result.after.memory_requested_gib, result.after.memory_allocatable_gib);
  out << fmt::format("  {:<16} {:>15.2f}        {:>15.2f}  {}\n", "$/hour",
                     result.before.price_per_hour, result.after.price_per_hour,
                     PlusMinus(result.accuracy.price_error));
  out << fmt::format(
      "  {:<16} {:>15.2f}        {:>15.2f}  {}\n", "$/hour bound",
      result.before.lower_bound_price_per_hour, result.after.lower_bound_price_per_hour,
      BoundRatio(result.after.price_per_hour, result.after.lower_bound_price_per_hour));
  if (result.after.kept_price_per_hour > 0) {
    // Nodes Karpenter did not launch stay at their price whatever it does.
    out << fmt::format(
        "  {:<16} {:>15}        {:>15.2f}  {} (nodes it did not launch kept)\n",
        "  with kept nodes", "", result.after.kept_lower_bound_price_per_hour,
        BoundRatio(result.after.price_per_hour, result.after.kept_lower_bound_price_per_hour));
  }
  out << fmt::format("  {:<16} {:>15}        {:>15}\n", "pods running", result.before.pods,
                     result.after.pods);
  out << fmt::format(
      "\nDisruption decisions: {}   pods disrupted: {}   PDB violations: {}\n"
      "Longest pending: {:.0f} s   pods still pending: {}\n",
      result.decisions.size(), result.pods_disrupted, result.pdb_violations,
      result.max_pending_seconds, result.unschedulable_pods);
  for (const PendingPod& pod : result.still_pending) {
    out << fmt::format("  {} ({:.0f} s): {}\n", pod.name, pod.seconds,
                       pod.reason.empty() ? "no reason recorded" : pod.reason);
  }
  if (result.unschedulable_pods > static_cast<int>(result.still_pending.size())) {
    out << fmt::format("  … and {} more\n",
                       result.unschedulable_pods - static_cast<int>(result.still_pending.size()));
  }
  if (const std::optional<WithoutBuffers>& without = result.without_buffers) {
    out << fmt::format(
        "CapacityBuffers: {:+.2f} $/hour ({} nodes, {} without them); longest pending {:.0f} s, "
        "{:.0f} s without them\n",
        result.after.price_per_hour - without->price_per_hour, result.after.nodes, without->nodes,
        result.max_pending_seconds, without->max_pending_seconds);
  }
  if (!result.ignored.empty()) {
    out << fmt::format("Ignored {} object{} of kinds not simulated (first: {})\n",
                       result.ignored.size(), result.ignored.size() == 1 ? "" : "s",
                       result.ignored.front());
  }
  const Accuracy& accuracy = result.accuracy;
  out << "\nHow sure:\n"
      << Wrap(fmt::format("The node count is expected within {:.0f} % and $/hour within {:.0f} % "
                          "of the median of Karpenter's runs ({}).",
                          100 * accuracy.nodes_error, 100 * accuracy.price_error, accuracy.basis),
              2, 100)
      << "Not modelled here:\n";
  for (const std::string& caveat : accuracy.not_modelled) {
    std::string item = Wrap(caveat, 4, 100);
    item[2] = '-';  // "  - " before the first line, its continuations under the text
    out << item;
  }
  out << "\n" << Verdict(result) << "\n";
}

std::string RenderJson(const SimulationResult& result) {
  ordered_json out;
  out["summary"] = {{"scenario", result.scenario},
                    {"virtualSeconds", Round(result.virtual_seconds, 0.001)},
                    {"nodesBefore", result.before.nodes},
                    {"nodesAfter", result.after.nodes},
                    {"pricePerHourBefore", Round(result.before.price_per_hour, 0.0001)},
                    {"pricePerHourAfter", Round(result.after.price_per_hour, 0.0001)},
                    {"podsDisrupted", result.pods_disrupted},
                    {"pdbViolations", result.pdb_violations},
                    {"maxPendingSeconds", Round(result.max_pending_seconds, 0.001)},
                    {"unschedulablePods", result.unschedulable_pods},
                    {"nodesAfterExpectedError", Round(result.accuracy.nodes_error, 0.001)},
                    {"pricePerHourAfterExpectedError", Round(result.accuracy.price_error, 0.001)},
                    {"verdict", Verdict(result)},
                    {"before", FiguresJson(result.before)},
                    {"after", FiguresJson(result.after)}};
  if (const std::optional<WithoutBuffers>& without = result.without_buffers) {
    out["summary"]["withoutCapacityBuffers"] = {
        {"nodesAfter", without->nodes},
        {"pricePerHourAfter", Round(without->price_per_hour, 0.0001)},
        {"maxPendingSeconds", Round(without->max_pending_seconds, 0.001)}};
  }
  ordered_json& timeline = out["timeline"] = ordered_json::array();
  for (const TimelineEvent& event : result.timeline) {
    timeline.push_back({{"t", Round(event.t, 0.001)},
                        {"event", event.event},
                        {"subject", event.subject},
                        {"detail", event.detail}});
  }
  ordered_json& nodes = out["nodes"] = ordered_json::array();
  for (const FinalNode& node : result.nodes) {
    nodes.push_back({{"name", node.name},
                     {"instanceType", node.instance_type},
                     {"capacityType", node.capacity_type},
                     {"zone", node.zone},
                     {"nodepool", node.node_pool},
                     {"nodegroup", node.node_group},
                     {"pods", node.pods}});
  }
  ordered_json& decisions = out["decisions"] = ordered_json::array();
  for (const Decision& decision : result.decisions) {
    decisions.push_back({{"t", Round(decision.t, 0.001)},
                         {"method", decision.method},
                         {"nodes", decision.nodes},
                         {"replacements", decision.replacements},
                         {"savingsPerHour", Round(decision.savings_per_hour, 0.0001)},
                         {"description", decision.description}});
  }
  ordered_json& samples = out["samples"] = ordered_json::array();
  for (const Sample& sample : result.samples) {
    samples.push_back({{"t", Round(sample.t, 0.001)},
                       {"onDemandNodes", sample.on_demand_nodes},
                       {"spotNodes", sample.spot_nodes},
                       {"pricePerHour", Round(sample.price_per_hour, 0.0001)},
                       {"pendingPods", sample.pending_pods},
                       {"podsDisrupted", sample.pods_disrupted}});
  }
  ordered_json& still_pending = out["stillPending"] = ordered_json::array();
  for (const PendingPod& pod : result.still_pending) {
    still_pending.push_back(
        {{"pod", pod.name}, {"seconds", Round(pod.seconds, 0.001)}, {"reason", pod.reason}});
  }
  out["ignored"] = result.ignored;
  out["accuracy"] = {{"nodesError", Round(result.accuracy.nodes_error, 0.001)},
                     {"pricePerHourError", Round(result.accuracy.price_error, 0.001)},
                     {"basis", result.accuracy.basis},
                     {"notModelled", result.accuracy.not_modelled}};
  return out.dump(2) + "\n";
}

}  // namespace karpenter::simulate
