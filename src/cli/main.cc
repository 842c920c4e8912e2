// karpenter: the node autoscaler's command line (controller, simulate, plan, validate).

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "cli/controller_command.h"
#include "cli/plan_command.h"
#include "cli/simulate_command.h"
#include "cli/validate_command.h"

namespace {

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // The controller reads flags and environment variables together (as the Helm chart sets them),
  // with its own parser.
  if (argc >= 2 && std::string_view(argv[1]) == "controller") {
    return karpenter::cli::RunController(std::vector<std::string>(argv + 2, argv + argc), std::cout,
                                         std::cerr);
  }
  CLI::App app{"karpenter-cpp: the Kubernetes node autoscaler for AWS"};
  app.footer("Also: karpenter controller [--help]  (the node autoscaler itself)");
  app.require_subcommand(1);

  karpenter::cli::PlanOptions plan;
  std::string zones;
  auto* plan_cmd = app.add_subcommand(
      "plan", "Plan one provisioning pass for manifests (no files: a built-in example)");
  plan_cmd->add_option("files", plan.files, "Manifest files (YAML or JSON)");
  plan_cmd->add_option("--catalog", plan.catalog, "aws | fake400 | a catalog JSON file")
      ->capture_default_str();
  plan_cmd->add_option("--region", plan.region, "AWS region")->capture_default_str();
  plan_cmd->add_option("--zones", zones, "Comma-separated zones (default: all)");
  plan_cmd->add_option("--output,-o", plan.output, "table | json")->capture_default_str();

  karpenter::cli::SimulateOptions simulate;
  auto* simulate_cmd = app.add_subcommand(
      "simulate",
      "What Karpenter will do to a cluster, and what it will cost: the controllers on a simulated "
      "cluster (no files: the built-in CAS → Karpenter migration)");
  simulate_cmd->add_option("files", simulate.files,
                           "Manifests or `kubectl get nodes,pods,pdb,ds,deploy,sts,rs,jobs -A -o "
                           "json` snapshots");
  simulate_cmd->add_option("--timeline", simulate.timeline,
                           "Timeline YAML: node groups and actions (scale, drain, interrupt, …)");
  simulate_cmd->add_option("--duration", simulate.duration, "Virtual time to simulate")
      ->capture_default_str();
  simulate_cmd->add_option("--seed", simulate.seed, "Seed of every random choice")
      ->capture_default_str();
  simulate_cmd->add_option("--catalog", simulate.catalog, "aws | fake<N> | a catalog JSON file")
      ->capture_default_str();
  simulate_cmd->add_option("--region", simulate.region, "AWS region")->capture_default_str();
  simulate_cmd->add_option("--spot-prices", simulate.spot_prices, "Spot prices file (aws catalog)");
  simulate_cmd->add_option("--output,-o", simulate.output, "text | json")->capture_default_str();
  simulate_cmd->add_option("--report", simulate.report, "Write a self-contained HTML report");

  std::vector<std::string> validate_files;
  auto* validate_cmd =
      app.add_subcommand("validate", "Validate NodePool, NodeClaim and EC2NodeClass manifests");
  validate_cmd->add_option("files", validate_files, "Manifest files")->required();

  CLI11_PARSE(app, argc, argv);

  if (plan_cmd->parsed()) {
    plan.zones = SplitCommas(zones);
    return karpenter::cli::RunPlan(plan, std::cout, std::cerr);
  }
  if (simulate_cmd->parsed()) {
    return karpenter::cli::RunSimulate(simulate, std::cout, std::cerr);
  }
  if (validate_cmd->parsed()) {
    return karpenter::cli::RunValidate(validate_files, std::cout, std::cerr);
  }
  return 1;
}
