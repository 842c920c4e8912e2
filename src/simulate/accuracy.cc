#include "simulate/accuracy.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string_view>
#include <variant>

#include "simulate/timeline.h"

namespace karpenter::simulate {
namespace {

// The fidelity benchmark's worst errors (README, "Fidelity": the median of five simulations
// against the median of three or more controller runs on the test cluster, every row measured on
// 2026-12-07 with the controller as on main): nodes mixed seed 3's -7.5 %, $/h the scale-down's
// -1.8 % (stated as 8 % and 2 %: the reports print whole percents). One controller run differs
// from its row's median by more than that (up to 11 % or two nodes, and 12 % in $/h), so the basis
// says so too. The scale-down's $/h at a fixed instant is bimodal for real (a consolidation step
// falls either side of it) and gets its own caveat below, which inputs that scale a workload get.
// Measure again and update both together when the simulation changes.
constexpr double kNodesError = 0.08;
constexpr double kPriceError = 0.02;
constexpr std::string_view kBasis =
    "karpenter-bench fidelity: four scale-ups of 1,000 pods from zero (mixed shapes, zone and "
    "host spread), a scale-down behind PDBs, a node-group retirement and a spot interruption, "
    "the median of five simulations against the median of three or more controller runs on a "
    "real API server; one controller run ended up to 11 % (or two nodes) from that median in "
    "nodes and 12 % in $/hour";

}  // namespace

Accuracy AccuracyFor(const SimulationInput& input) {
  Accuracy accuracy{kNodesError, kPriceError, std::string(kBasis), {}};
  std::map<std::string, int, std::less<>> kinds;
  for (const kube::Object& object : input.objects) {
    if (object.is_object()) ++kinds[object.value("kind", std::string())];
  }
  auto has = [&](std::string_view kind) { return kinds.contains(kind); };
  std::vector<std::string>& out = accuracy.not_modelled;
  const double boot = std::chrono::duration<double>(input.node_boot_delay).count();
  out.push_back(fmt::format(
      "Nodes are Ready {:g} s after launch, give or take {:g} s (spread evenly, not from "
      "measured EC2 boot times), and pods start as soon as they are bound (no image pulls, no "
      "readiness probes)",
      boot, boot * input.node_boot_spread));
  out.emplace_back(
      "kube-scheduler binds a burst of pods at once, where a real one takes them a pod at a time "
      "(here the pods that fail come 5 ms apart, about 200 a second, but binds all at once)");
  out.emplace_back(
      "EC2 has capacity for every launch unless the timeline takes it away, and prices are the "
      "catalog's");
  if (has("Job")) {
    out.emplace_back("Jobs never complete: their pods run to the end of the simulation");
  }
  const bool scales_workloads = std::any_of(
      input.timeline.actions.begin(), input.timeline.actions.end(),
      [](const Action& action) { return std::holds_alternative<ScaleWorkload>(action.kind); });
  if (scales_workloads) {
    out.emplace_back(
        "After a workload scales down, consolidation removes nodes in steps about 25 s apart, and "
        "when a step comes varies from run to run: for some minutes $/h at a given instant can "
        "differ by a step (the fidelity benchmark's scale-down, five minutes in: four of twelve "
        "controller runs had taken a $3/h step the simulation takes just after)");
  }
  if (has("PersistentVolumeClaim") || has("StatefulSet")) {
    out.emplace_back(
        "Volumes detach as soon as their pods leave a node: a terminating node does not wait for "
        "its VolumeAttachments, where EBS detaches take some seconds");
  }
  if (!has("PodDisruptionBudget") && (has("Deployment") || has("StatefulSet"))) {
    out.emplace_back(
        "No PodDisruptionBudget is in the input: disruption may move any pod at once, where a "
        "cluster's budgets would slow it");
  }
  if (has("NodeOverlay")) {
    out.emplace_back(
        input.node_overlays
            ? "NodeOverlays choose instance types by the prices and capacity they give; the costs "
              "shown are the catalog's, what EC2 bills"
            : "NodeOverlays change nothing: their feature gate is off, as in a controller without "
              "it (--feature-gates NodeOverlay=true)");
  }
  if (has("CapacityBuffer")) {
    out.emplace_back(
        input.capacity_buffers
            ? "CapacityBuffers keep their room as the controller would; the report compares the "
              "run with one without them (what they cost, what waiting they save)"
            : "CapacityBuffers change nothing: their feature gate is off, as in a controller "
              "without it (--feature-gates CapacityBuffer=true)");
  }
  if (input.launch_zones_inferred) {
    std::string zones;
    for (const std::string& zone : input.launch_zones) {
      zones += fmt::format("{}{}", zones.empty() ? "" : ", ", zone);
    }
    out.push_back(
        input.launch_zones.empty()
            ? std::string(
                  "Karpenter launches in every zone of the region: no Node or node group of "
                  "the input says which zones the cluster's subnets are in (--zones names "
                  "them)")
            : fmt::format("Karpenter launches only in {}: the zones of the cluster's Nodes and "
                          "node groups, whose subnets a migration tags for it (--zones names the "
                          "EC2NodeClass's subnets' zones if they differ)",
                          zones));
  }
  if (!input.assumed_priority_classes.empty()) {
    std::string names;
    for (const std::string& name : input.assumed_priority_classes) {
      names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
    }
    out.push_back(fmt::format(
        "PriorityClass {} is not in the input and no pod of it says its value: its pods are taken "
        "at priority 0 (add the class to the input to simulate the order and preemption it "
        "gives)",
        names));
  }
  if (!input.ignored.empty()) {
    std::map<std::string, int, std::less<>> ignored;
    for (const std::string& object : input.ignored) {
      ++ignored[object.substr(0, object.find('/'))];
    }
    std::string list;
    for (const auto& [kind, count] : ignored) {
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", count, kind);
    }
    out.push_back(fmt::format("Objects of kinds not simulated are ignored ({}){}", list,
                              ignored.contains("HorizontalPodAutoscaler")
                                  ? "; replica counts stay as given, no autoscaler changes them"
                                  : ""));
  }
  return accuracy;
}

}  // namespace karpenter::simulate
