#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <filesystem>
#include <sstream>
#include <string_view>
#include <vector>

#include "cli/controller_command.h"
#include "cli/iam_command.h"
#include "cli/migrate_command.h"
#include "cli/plan_command.h"
#include "cli/simulate_command.h"
#include "cli/validate_command.h"
#include "cli/version.h"
#include "common/duration.h"

namespace karpenter::cli {
namespace {

constexpr std::array<std::string_view, 6> kCommands = {"controller", "iam",      "migrate",
                                                       "plan",       "simulate", "validate"};

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// --catalog names a built-in catalog or a file; what the file holds is checked when it loads.
std::string CheckCatalog(const std::string& value) {
  const bool fake = value.starts_with("fake") && value.size() > 4 &&
                    value.find_first_not_of("0123456789", 4) == std::string::npos;
  if (value == "aws" || fake || std::filesystem::is_regular_file(value)) return "";
  return "\"" + value + "\" is not aws, fake<N> or a catalog file";
}

std::string CheckPositiveDuration(const std::string& value) {
  Result<Duration> duration = Duration::Parse(value, /*allow_never=*/false);
  if (!duration.ok()) return "\"" + value + "\": " + duration.error().message;
  if (duration->value().count() <= 0) return "\"" + value + "\" is not a positive duration";
  return "";
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
    for (std::string_view command : kCommands) {
      known += (known.empty() ? "" : ", ") + std::string(command);
    }
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
      ->capture_default_str()
      ->check(CheckCatalog);
  plan_cmd->add_option("--region", plan.region, "AWS region")->capture_default_str();
  plan_cmd->add_option("--zones", zones, "Comma-separated zones (default: all)");
  plan_cmd->add_option("--output,-o", plan.output, "table | json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));

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
      ->capture_default_str()
      ->check(CheckPositiveDuration);
  simulate_cmd->add_option("--seed", simulate.seed, "Seed of every random choice")
      ->capture_default_str();
  simulate_cmd->add_option("--catalog", simulate.catalog, "aws | fake<N> | a catalog JSON file")
      ->capture_default_str()
      ->check(CheckCatalog);
  simulate_cmd->add_option("--region", simulate.region, "AWS region")->capture_default_str();
  std::string simulate_zones;
  simulate_cmd->add_option("--zones", simulate_zones,
                           "Comma-separated zones of the EC2NodeClass's subnets (default: those "
                           "of the cluster's nodes and node groups)");
  simulate_cmd->add_option("--spot-prices", simulate.spot_prices, "Spot prices file (aws catalog)");
  simulate_cmd->add_option("--output,-o", simulate.output, "text | json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  simulate_cmd->add_option("--report", simulate.report, "Write a self-contained HTML report");
  simulate_cmd->add_option("--feature-gates", simulate.feature_gates,
                           "The controller's feature gates, as FEATURE_GATES "
                           "(NodeRepair=true,SpotToSpotConsolidation=true)");

  std::vector<std::string> validate_files;
  auto* validate_cmd =
      app.add_subcommand("validate", "Validate NodePool, NodeClaim and EC2NodeClass manifests");
  validate_cmd->add_option("files", validate_files, "Manifest files")->required();

  aws::iam::PolicyInputs iam;
  auto* iam_cmd = app.add_subcommand(
      "iam",
      "The IAM the controller needs: its policy, its node role's aws-auth entry, a CloudFormation "
      "template; and the policy of `karpenter migrate`");
  iam_cmd->require_subcommand(1);
  auto* iam_policy_cmd = iam_cmd->add_subcommand(
      "policy", "Print the controller policy (JSON), scoped to the cluster like upstream's");
  auto* iam_migrate_policy_cmd = iam_cmd->add_subcommand(
      "migrate-policy",
      "Print the policy `karpenter migrate` needs (JSON): plan's reads, apply's and rollback's "
      "writes");
  auto* iam_aws_auth_cmd = iam_cmd->add_subcommand(
      "aws-auth", "Print the aws-auth mapRoles entry that lets the node role's nodes join");
  aws::iam::StackInputs stack;
  bool irsa = false;
  bool pod_identity = false;
  auto* iam_cloudformation_cmd = iam_cmd->add_subcommand(
      "cloudformation",
      "Print a CloudFormation template: node role, controller policy, interruption queue and its "
      "EventBridge rules, and with --irsa or --pod-identity the controller role");
  for (CLI::App* cmd :
       {iam_policy_cmd, iam_migrate_policy_cmd, iam_aws_auth_cmd, iam_cloudformation_cmd}) {
    aws::iam::PolicyInputs& inputs = cmd == iam_cloudformation_cmd ? stack.policy : iam;
    cmd->add_option("--cluster-name", inputs.cluster_name, "The EKS cluster")->required();
    cmd->add_option("--account", inputs.account, "The AWS account ID (twelve digits)")->required();
    cmd->add_option("--partition", inputs.partition, "aws | aws-cn | aws-us-gov")
        ->capture_default_str();
    cmd->add_option("--node-role", inputs.node_role,
                    "The node role's name (default: KarpenterNodeRole-<cluster>)");
    if (cmd == iam_aws_auth_cmd) continue;
    cmd->add_option("--region", inputs.region, "The cluster's region")->required();
    if (cmd == iam_migrate_policy_cmd) continue;
    cmd->add_option("--interruption-queue", inputs.interruption_queue,
                    cmd == iam_policy_cmd
                        ? "The SQS queue of interruption events (settings.interruptionQueue)"
                        : "The SQS queue to make (default: the cluster's name)");
  }
  auto* irsa_flag = iam_cloudformation_cmd->add_flag(
      "--irsa", irsa, "Add the controller role, trusted by the cluster's OIDC provider (IRSA)");
  iam_cloudformation_cmd
      ->add_flag("--pod-identity", pod_identity,
                 "Add the controller role, trusted by EKS Pod Identity")
      ->excludes(irsa_flag);
  iam_cloudformation_cmd->add_option("--oidc-provider", stack.oidc_provider,
                                     "With --irsa: the cluster's OIDC issuer URL");
  iam_cloudformation_cmd
      ->add_option("--namespace", stack.namespace_, "With --irsa: the controller's namespace")
      ->capture_default_str();
  iam_cloudformation_cmd
      ->add_option("--service-account", stack.service_account,
                   "With --irsa: the controller's ServiceAccount")
      ->capture_default_str();

  MigratePlanOptions migrate_plan;
  auto* migrate_cmd = app.add_subcommand(
      "migrate", "Move an EKS cluster from Cluster Autoscaler to Karpenter (the seed's steps)");
  migrate_cmd->require_subcommand(1);
  auto* migrate_plan_cmd = migrate_cmd->add_subcommand(
      "plan",
      "Read the account and the cluster (never writes): the seed's nine steps, each done, to do "
      "or blocked, and the NodePools and EC2NodeClasses that would take over from the node "
      "groups");
  MigrateApplyOptions migrate_apply;
  auto* migrate_apply_cmd = migrate_cmd->add_subcommand(
      "apply",
      "Carry out the steps (--step N, or --all), each recorded in the ConfigMap "
      "karpenter-migration first and skipped when done: run again to resume");
  MigrateVerifyOptions migrate_verify;
  auto* migrate_verify_cmd = migrate_cmd->add_subcommand(
      "verify",
      "Check the seed's step 9 and more: steps done, the controller on node-group nodes, "
      "NodeClaims Ready, Karpenter's nodes joined, no pod pending, interruptions handled");
  MigrateRollbackOptions migrate_rollback;
  auto* migrate_rollback_cmd = migrate_cmd->add_subcommand(
      "rollback",
      "Undo what apply recorded: Cluster Autoscaler's replicas, the node groups' sizes and the "
      "pinning; with --all also the NodePools, the chart, the node role's access, the discovery "
      "tags "
      "and the IAM roles");
  for (auto [cmd, target] : {std::pair{migrate_plan_cmd, &migrate_plan.target},
                             std::pair{migrate_apply_cmd, &migrate_apply.target},
                             std::pair{migrate_verify_cmd, &migrate_verify.target},
                             std::pair{migrate_rollback_cmd, &migrate_rollback.target}}) {
    cmd->add_option("--cluster-name", target->cluster_name, "The EKS cluster")->required();
    cmd->add_option("--region", target->region,
                    "AWS region (default: AWS_REGION, then AWS_DEFAULT_REGION)");
    cmd->add_option("--kubeconfig", target->kubeconfig,
                    "The cluster's kubeconfig (default: KUBECONFIG, then ~/.kube/config)");
  }
  for (auto [cmd, alias] : {std::pair{migrate_plan_cmd, &migrate_plan.alias_version},
                            std::pair{migrate_apply_cmd, &migrate_apply.alias_version}}) {
    cmd->add_option("--alias-version", *alias,
                    "The version the EC2NodeClass pins its al2023 alias to (default: the release "
                    "SSM recommends for the cluster's version)");
  }
  for (auto [cmd, namespace_] : {std::pair{migrate_plan_cmd, &migrate_plan.namespace_},
                                 std::pair{migrate_apply_cmd, &migrate_apply.namespace_},
                                 std::pair{migrate_verify_cmd, &migrate_verify.namespace_},
                                 std::pair{migrate_rollback_cmd, &migrate_rollback.namespace_}}) {
    cmd->add_option("--namespace", *namespace_, "Karpenter's namespace, where the record is kept")
        ->capture_default_str();
  }
  for (auto [cmd, dry_run] : {std::pair{migrate_apply_cmd, &migrate_apply.dry_run},
                              std::pair{migrate_rollback_cmd, &migrate_rollback.dry_run}}) {
    cmd->add_flag("--dry-run", *dry_run, "Say what would change; change nothing");
  }
  migrate_plan_cmd
      ->add_option("--output,-o", migrate_plan.output,
                   "text | json | html (one self-contained page)")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json", "html"}));
  migrate_verify_cmd->add_option("--output,-o", migrate_verify.output, "text | json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  auto* apply_step =
      migrate_apply_cmd->add_option("--step", migrate_apply.step, "Only this step (1 to 9)")
          ->check(CLI::Range(1, 9));
  bool apply_all = false;
  migrate_apply_cmd->add_flag("--all", apply_all, "Every step, in order")->excludes(apply_step);
  migrate_apply_cmd->add_option(
      "--chart", migrate_apply.chart,
      "Step 5: the karpenter-cpp chart helm installs (a directory, a .tgz or an oci:// reference)");
  migrate_apply_cmd->add_option("--values,-f", migrate_apply.values_files,
                                "Step 5: a values file over the seed's values (repeatable)");
  migrate_apply_cmd
      ->add_option("--batch", migrate_apply.batch, "Nodes a node group loses at a time (step 8)")
      ->capture_default_str();
  migrate_apply_cmd->add_flag(
      "--allow-unprotected", migrate_apply.allow_unprotected,
      "Shrink node groups although workloads on them have no PodDisruptionBudget");
  migrate_apply_cmd
      ->add_option("--settle-timeout", migrate_apply.settle_timeout,
                   "How long each batch of step 8 may take to settle")
      ->capture_default_str();
  migrate_rollback_cmd->add_flag(
      "--all", migrate_rollback.all,
      "Also the NodePools, the chart, the node role's access, the tags and the "
      "IAM roles it created");
  migrate_plan_cmd
      ->add_option("--forecast", migrate_plan.forecast,
                   "How long to simulate the migration for the forecast (0: no forecast)")
      ->capture_default_str();
  migrate_plan_cmd
      ->add_option("--batch", migrate_plan.batch,
                   "Nodes a node group loses at a time in the forecast, as apply's --batch")
      ->capture_default_str();

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
  if (simulate_cmd->parsed()) {
    simulate.zones = SplitCommas(simulate_zones);
    return RunSimulate(simulate, out, err);
  }
  if (iam_policy_cmd->parsed()) return RunIamPolicy(iam, out, err);
  if (iam_migrate_policy_cmd->parsed()) return RunIamMigratePolicy(iam, out, err);
  if (iam_aws_auth_cmd->parsed()) return RunIamAwsAuth(iam, out, err);
  if (iam_cloudformation_cmd->parsed()) {
    if (irsa) stack.trust = aws::iam::ControllerTrust::kIrsa;
    if (pod_identity) stack.trust = aws::iam::ControllerTrust::kPodIdentity;
    return RunIamCloudFormation(stack, out, err);
  }
  if (validate_cmd->parsed()) return RunValidate(validate_files, out, err);
  if (migrate_plan_cmd->parsed()) return RunMigrateCommand(migrate_plan, out, err);
  if (migrate_apply_cmd->parsed()) {
    if (!apply_all && migrate_apply.step == 0) {
      return UsageError(err, "migrate apply", "give --step N or --all");
    }
    return RunMigrateCommand(migrate_apply, out, err);
  }
  if (migrate_rollback_cmd->parsed()) return RunMigrateCommand(migrate_rollback, out, err);
  if (migrate_verify_cmd->parsed()) return RunMigrateCommand(migrate_verify, out, err);
  return kExitFailure;
}

}  // namespace karpenter::cli
