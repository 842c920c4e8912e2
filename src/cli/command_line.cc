#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <sstream>
#include <string_view>
#include <vector>

#include "cli/controller_command.h"
#include "cli/plan_command.h"
#include "cli/simulate_command.h"
#include "cli/validate_command.h"
#include "cli/version.h"

namespace karpenter::cli {
namespace {

constexpr std::array<std::string_view, 4> kCommands = {"controller", "plan", "simulate",
                                                       "validate"};

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int UsageError(std::ostream& err, std::string_view command, std::string_view message) {
  err << "karpenter" << (command.empty() ? "" : " ") << command << ": " << message << "\n"
      << "Run 'karpenter" << (command.empty() ? "" : " ") << command << " --help' for usage.\n";
  return kExitUsage;
}

}  // namespace

int RunCommandLine(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  // The controller reads flags and environment variables together (as the Helm chart sets them),
  // with its own parser.
  if (!args.empty() && args[0] == "controller") {
    return RunController(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  if (!args.empty() && !args[0].starts_with("-") &&
      std::find(kCommands.begin(), kCommands.end(), args[0]) == kCommands.end()) {
    std::string known;
    for (std::string_view command : kCommands)
      known += (known.empty() ? "" : ", ") + std::string(command);
    return UsageError(err, "", "unknown command \"" + args[0] + "\" (commands: " + known + ")");
  }

  // Before a command only --help and --version mean anything (CLI11 would report the missing
  // command instead of the flag).
  if (!args.empty() && args[0].starts_with("-") && args[0] != "-h" && args[0] != "--help" &&
      args[0] != "--version") {
    return UsageError(err, "", "unknown flag \"" + args[0] + "\"");
  }

  CLI::App app{"karpenter-cpp: the Kubernetes node autoscaler for AWS"};
  app.name("karpenter");
  app.footer("Also: karpenter controller [--help]  (the node autoscaler itself)");
  app.set_version_flag("--version", VersionLine());
  app.require_subcommand(1);

  PlanOptions plan;
  std::string zones;
  auto* plan_cmd = app.add_subcommand(
      "plan", "Plan one provisioning pass for manifests (no files: a built-in example)");
  plan_cmd->add_option("files", plan.files, "Manifest files (YAML or JSON)");
  plan_cmd->add_option("--catalog", plan.catalog, "aws | fake400 | a catalog JSON file")
      ->capture_default_str();
  plan_cmd->add_option("--region", plan.region, "AWS region")->capture_default_str();
  plan_cmd->add_option("--zones", zones, "Comma-separated zones (default: all)");
  plan_cmd->add_option("--output,-o", plan.output, "table | json")->capture_default_str();

  SimulateOptions simulate;
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

  // CLI11 takes the arguments last first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(std::move(reversed));
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help, out, err);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help, out, err);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version, out, err);
  } catch (const CLI::ParseError& error) {
    std::string command;
    for (const CLI::App* sub : app.get_subcommands()) command = sub->get_name();
    return UsageError(err, command, error.what());
  }

  if (plan_cmd->parsed()) {
    plan.zones = SplitCommas(zones);
    return RunPlan(plan, out, err);
  }
  if (simulate_cmd->parsed()) return RunSimulate(simulate, out, err);
  if (validate_cmd->parsed()) return RunValidate(validate_files, out, err);
  return kExitFailure;
}

}  // namespace karpenter::cli
