// `karpenter simulate` as a user runs it: the built-in migration scenario end to end, its JSON,
// the HTML report, and bad input (with `karpenter plan`'s refusal of more pods than it models).

#include "cli/simulate_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cli/plan_command.h"
#include "common/json.h"

namespace karpenter::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Outcome Simulate(SimulateOptions options) {
  options.progress = false;
  std::ostringstream out;
  std::ostringstream err;
  Outcome outcome;
  outcome.exit_code = RunSimulate(options, out, err);
  outcome.out = out.str();
  outcome.err = err.str();
  return outcome;
}

std::filesystem::path TempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("simulate_cli_" + std::to_string(::getpid()) + "_" + name);
}

// The seed's migration: three node groups (15 on-demand nodes) shrink to the system group's 2;
// Karpenter runs everything else on spot, cheaper, and no PodDisruptionBudget is ever broken.
TEST(SimulateCommand, BuiltInMigrationEndsOnSpotWithoutPdbViolations) {
  SimulateOptions options;
  options.output = "json";
  const Outcome outcome = Simulate(options);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  const Json result = Json::parse(outcome.out);
  const Json& summary = result["summary"];
  EXPECT_EQ(summary["nodesBefore"], 15);
  EXPECT_EQ(summary["pdbViolations"], 0);
  EXPECT_EQ(summary["unschedulablePods"], 0);
  EXPECT_GT(summary["podsDisrupted"].get<int>(), 50);
  EXPECT_LT(summary["pricePerHourAfter"].get<double>(),
            0.5 * summary["pricePerHourBefore"].get<double>());
  EXPECT_GT(summary["maxPendingSeconds"].get<double>(), 0);
  EXPECT_EQ(summary["virtualSeconds"], 3600);
  int node_group_nodes = 0;
  for (const Json& node : result["nodes"]) {
    if (!node["nodegroup"].get<std::string>().empty()) {
      ++node_group_nodes;
      EXPECT_EQ(node["nodegroup"], "system");
      EXPECT_EQ(node["capacityType"], "on-demand");
    } else {
      EXPECT_EQ(node["nodepool"], "default");
      EXPECT_EQ(node["capacityType"], "spot");  // the seed's NodePool asks for spot only
    }
  }
  EXPECT_EQ(node_group_nodes, 2);
  ASSERT_FALSE(result["timeline"].empty());
  EXPECT_EQ(result["timeline"][0]["event"], "KarpenterStarted");
  EXPECT_FALSE(result["decisions"].empty());
  for (const Json& decision : result["decisions"]) {
    EXPECT_GT(decision["t"].get<double>(), 60);  // after the drains began
  }
}

TEST(SimulateCommand, TextEndsWithTheVerdictAndJsonIsByteIdenticalAcrossRuns) {
  const Outcome text = Simulate(SimulateOptions{});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, StartsWith("Simulated  60:00 of the built-in migration scenario"));
  EXPECT_THAT(text.out, HasSubstr("/h → $"));
  EXPECT_THAT(text.out, HasSubstr("0 PDB violations, max pending"));
  SimulateOptions json;
  json.output = "json";
  EXPECT_EQ(Simulate(json).out, Simulate(json).out);
}

TEST(SimulateCommand, WritesASelfContainedHtmlReport) {
  SimulateOptions options;
  options.duration = "10m";
  options.report = TempPath("report.html").string();
  const Outcome outcome = Simulate(options);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  std::ifstream file(options.report);
  std::stringstream html;
  html << file.rdbuf();
  EXPECT_THAT(html.str(), StartsWith("<!doctype html>"));
  EXPECT_THAT(html.str(), HasSubstr("<svg"));
  EXPECT_THAT(html.str(), HasSubstr("system-"));  // the final nodes table
  std::filesystem::remove(options.report);
}

TEST(SimulateCommand, BadInputsAreAllReportedAndNothingIsSimulated) {
  const std::filesystem::path manifests = TempPath("bad.yaml");
  std::ofstream(manifests) << R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: forever
)";
  const std::filesystem::path timeline = TempPath("timeline.yaml");
  std::ofstream(timeline) << "actions:\n  - {at: 1m, shrink: {}}\n";
  SimulateOptions options;
  options.files = {manifests.string(), TempPath("missing.yaml").string()};
  options.timeline = timeline.string();
  const Outcome outcome = Simulate(options);
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_TRUE(outcome.out.empty());
  EXPECT_THAT(outcome.err, HasSubstr(manifests.string() + ":1: NodePool/default: spec.template."
                                                          "spec.expireAfter"));
  EXPECT_THAT(outcome.err, HasSubstr("missing.yaml: cannot read"));
  EXPECT_THAT(outcome.err, HasSubstr("timeline.yaml:1: actions[0].shrink: unknown action"));
  EXPECT_THAT(outcome.err, HasSubstr("spec.template.spec.requirements: required"));
  EXPECT_THAT(outcome.err, HasSubstr("4 problems in the inputs; nothing simulated"));
  std::filesystem::remove(manifests);
  std::filesystem::remove(timeline);
}

TEST(SimulateCommand, RejectsBadOptions) {
  SimulateOptions duration;
  duration.duration = "0s";
  EXPECT_THAT(Simulate(duration).err, HasSubstr("--duration: \"0s\" is not a positive duration"));
  SimulateOptions output;
  output.output = "yaml";
  EXPECT_THAT(Simulate(output).err, HasSubstr("--output: \"yaml\" is not text or json"));
  SimulateOptions catalog;
  catalog.catalog = TempPath("no-catalog.json").string();
  const Outcome outcome = Simulate(catalog);
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_THAT(outcome.err, HasSubstr("simulate: --catalog:"));
  SimulateOptions unknown_gate;
  unknown_gate.feature_gates = "NodeHealing=true";
  EXPECT_THAT(Simulate(unknown_gate).err,
              HasSubstr("simulate: --feature-gates: unknown feature gate \"NodeHealing\""));
  SimulateOptions zone;
  zone.zones = {"us-east-1a", "us-west-2a"};
  EXPECT_THAT(Simulate(zone).err,
              HasSubstr("simulate: --zones: us-west-2a is not a zone of the catalog's region"));
}

// The built-in cluster's node groups are in us-east-1a, b and c, whose subnets the seed tags for
// Karpenter: it launches there only, and the report says where the zones came from. --zones
// names others.
TEST(SimulateCommand, KarpenterLaunchesInTheZonesOfTheClustersSubnets) {
  SimulateOptions options;
  options.output = "json";
  options.duration = "10m";
  Json result = Json::parse(Simulate(options).out);
  std::set<std::string> zones;
  for (const Json& node : result["nodes"]) {
    if (node["nodegroup"].get<std::string>().empty()) zones.insert(node["zone"].get<std::string>());
  }
  EXPECT_FALSE(zones.empty());
  for (const std::string& zone : zones) {
    EXPECT_TRUE(zone == "us-east-1a" || zone == "us-east-1b" || zone == "us-east-1c") << zone;
  }
  EXPECT_THAT(result["accuracy"]["notModelled"].dump(),
              HasSubstr("Karpenter launches only in us-east-1a, us-east-1b, us-east-1c"));

  options.zones = {"us-east-1d"};
  result = Json::parse(Simulate(options).out);
  for (const Json& node : result["nodes"]) {
    if (node["nodegroup"].get<std::string>().empty()) {
      EXPECT_EQ(node["zone"], "us-east-1d");
    }
  }
  EXPECT_THAT(result["accuracy"]["notModelled"].dump(),
              testing::Not(HasSubstr("Karpenter launches only in")));
}

// A static NodePool forecasts its replicas with the StaticCapacity gate (the chart's
// settings.featureGates.staticCapacity), whatever the pods, and nothing without it: the end-to-end
// test's manifests (three nodes kept, one pod on them).
TEST(SimulateCommand, AStaticNodePoolKeepsItsReplicasWithItsGate) {
  SimulateOptions options;
  options.files = {std::string(KARPENTER_TESTDATA) + "/e2e/static.yaml"};
  options.output = "json";
  options.duration = "10m";
  options.feature_gates = "StaticCapacity=true";
  const Outcome with_gate = Simulate(options);
  ASSERT_EQ(with_gate.exit_code, 0) << with_gate.err;
  const Json result = Json::parse(with_gate.out);
  EXPECT_EQ(result["summary"]["nodesAfter"], 3);
  EXPECT_EQ(result["summary"]["unschedulablePods"], 0);
  for (const Json& node : result["nodes"]) EXPECT_EQ(node["nodepool"], "static");

  options.feature_gates = "";
  const Outcome without = Simulate(options);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  const Json inert = Json::parse(without.out);
  EXPECT_EQ(inert["summary"]["nodesAfter"], 0);
  EXPECT_EQ(inert["summary"]["unschedulablePods"], 1);
}

// NodeOverlays with their gate (settings.featureGates.nodeOverlay) steer the forecast as they steer
// the controller: the end-to-end test's manifests (an m-family discount, a conflicting rival, and
// capacity on m nodes that one workload asks for). Without the gate they change nothing, and the
// report says so.
TEST(SimulateCommand, NodeOverlaysSteerTheForecastWithTheirGate) {
  SimulateOptions options;
  options.files = {std::string(KARPENTER_TESTDATA) + "/e2e/overlays.yaml"};
  options.output = "json";
  options.duration = "10m";
  options.feature_gates = "NodeOverlay=true";
  const Outcome with_gate = Simulate(options);
  ASSERT_EQ(with_gate.exit_code, 0) << with_gate.err;
  const Json result = Json::parse(with_gate.out);
  EXPECT_EQ(result["summary"]["unschedulablePods"], 0);
  ASSERT_FALSE(result["nodes"].empty());
  for (const Json& node : result["nodes"]) {
    EXPECT_TRUE(node["instanceType"].get<std::string>().starts_with("m")) << node.dump();
  }

  options.feature_gates = "";
  const Outcome without = Simulate(options);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  const Json inert = Json::parse(without.out);
  EXPECT_EQ(inert["summary"]["unschedulablePods"], 1);  // nothing reports the fuse devices
  for (const Json& node : inert["nodes"]) {
    EXPECT_TRUE(node["instanceType"].get<std::string>().starts_with("c")) << node.dump();
  }
  EXPECT_THAT(without.out, HasSubstr("NodeOverlays change nothing: their feature gate is off"));
}

// CapacityBuffers with their gate forecast what they cost and the waiting they save, against the
// same run without them: the end-to-end test's manifests, the workload scaling up at 5 minutes.
TEST(SimulateCommand, CapacityBuffersShowTheirCostAndTheWaitingTheySave) {
  SimulateOptions options;
  options.files = {std::string(KARPENTER_TESTDATA) + "/e2e/buffers.yaml"};
  options.timeline = std::string(KARPENTER_TESTDATA) + "/e2e/buffers-timeline.yaml";
  options.output = "json";
  options.duration = "10m";
  options.feature_gates = "CapacityBuffer=true";
  const Outcome with_gate = Simulate(options);
  ASSERT_EQ(with_gate.exit_code, 0) << with_gate.err;
  const Json summary = Json::parse(with_gate.out)["summary"];
  ASSERT_TRUE(summary.contains("withoutCapacityBuffers")) << summary.dump();
  const Json& without = summary["withoutCapacityBuffers"];
  // Two pods and the buffer's room for two more: four nodes; without it, two.
  EXPECT_EQ(summary["nodesAfter"], 4);
  EXPECT_EQ(without["nodesAfter"], 2);
  EXPECT_GT(summary["pricePerHourAfter"].get<double>(), without["pricePerHourAfter"].get<double>());
  // Without the buffer the pods wait for a node to boot; with it they start on its room.
  EXPECT_LT(summary["maxPendingSeconds"].get<double>(), 5);
  EXPECT_GT(without["maxPendingSeconds"].get<double>(), 20);

  options.output = "text";
  const Outcome text = Simulate(options);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("CapacityBuffers: +"));

  options.feature_gates = "";
  const Outcome without_gate = Simulate(options);
  ASSERT_EQ(without_gate.exit_code, 0) << without_gate.err;
  EXPECT_THAT(without_gate.out,
              HasSubstr("CapacityBuffers change nothing: their feature gate is off"));
}

// Four workloads of 100,000 replicas each, every one within the per-workload limit: together more
// pods than a simulation or a plan models, refused at once with a message (not a hang or an
// allocation failure).
std::string FourHugeDeployments() {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    text += "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: huge-" +
            std::to_string(i) +
            "}\nspec: {replicas: 100000, template: {spec: {containers: [{name: c, resources: "
            "{requests: {cpu: 1}}}]}}}\n";
  }
  return text;
}

TEST(SimulateCommand, MorePodsThanItModelsAreRefusedAtOnce) {
  const std::filesystem::path manifests = TempPath("huge.yaml");
  std::ofstream(manifests) << FourHugeDeployments();
  SimulateOptions options;
  options.files = {manifests.string()};
  const Outcome outcome = Simulate(options);
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_THAT(outcome.err, HasSubstr("the scenario has 400000 pods (its objects' and every scale "
                                     "of its timeline): more than karpenter simulate models (at "
                                     "most 300000)"));
  std::filesystem::remove(manifests);
}

TEST(PlanCommand, MorePodsThanItModelsAreRefusedAtOnce) {
  const std::filesystem::path manifests = TempPath("huge-plan.yaml");
  std::ofstream(manifests) << FourHugeDeployments();
  PlanOptions options;
  options.files = {manifests.string()};
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(RunPlan(options, out, err), 1);
  EXPECT_THAT(err.str(), HasSubstr("the inputs have 400000 pods (with their workloads' replicas): "
                                   "more than karpenter plan models (at most 300000)"));
  std::filesystem::remove(manifests);
}

// NodeOverlays and CapacityBuffers in a plan's inputs are not silently dropped: the plan says it
// plans without them and where to look instead.
TEST(PlanCommand, SaysItPlansWithoutNodeOverlaysOrCapacityBuffers) {
  PlanOptions options;
  options.files = {std::string(KARPENTER_TESTDATA) + "/e2e/overlays.yaml"};
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(RunPlan(options, out, err), 0) << err.str();
  EXPECT_THAT(err.str(), HasSubstr("warning: 3 NodeOverlays not applied"));
  EXPECT_THAT(err.str(), HasSubstr("simulate --feature-gates NodeOverlay=true"));

  options.files = {std::string(KARPENTER_TESTDATA) + "/e2e/buffers.yaml"};
  std::ostringstream buffers_out;
  std::ostringstream buffers_err;
  EXPECT_EQ(RunPlan(options, buffers_out, buffers_err), 0) << buffers_err.str();
  EXPECT_THAT(buffers_err.str(), HasSubstr("warning: 4 CapacityBuffers not planned for"));
}

}  // namespace
}  // namespace karpenter::cli
