#include "cli/migrate_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/sdk/curl_transport.h"
#include "cli/command_line.h"
#include "cli/migrate_forecast.h"
#include "cli/migrate_html.h"
#include "common/clock.h"
#include "common/duration.h"
#include "common/run_program.h"
#include "kube/http/config.h"
#include "kube/http/http_client.h"
#include "migrate/apply.h"
#include "migrate/artifacts.h"
#include "migrate/inventory.h"
#include "migrate/node_pools.h"
#include "migrate/steps.h"
#include "migrate/verify.h"

namespace karpenter::cli {
namespace {

Json NodeGroupJson(const aws::EksNodegroup& group) {
  Json taints = Json::array();
  for (const aws::EksTaint& taint : group.taints) {
    taints.push_back({{"key", taint.key}, {"value", taint.value}, {"effect", taint.effect}});
  }
  return {{"name", group.name},
          {"status", group.status},
          {"nodeRole", group.node_role},
          {"instanceTypes", group.instance_types},
          {"capacityType", group.capacity_type},
          {"amiType", group.ami_type},
          {"labels", group.labels},
          {"taints", std::move(taints)},
          {"scalingConfig",
           {{"minSize", group.min_size},
            {"maxSize", group.max_size},
            {"desiredSize", group.desired_size}}},
          {"subnets", group.subnets}};
}

// Whether the account has the role, as the inventory read it.
bool RoleExists(const migrate::AwsInventory& aws, const migrate::RoleArtifact& role) {
  return role.inline_policy_name.empty() ? aws.node_role_exists : aws.controller_role_exists;
}

Json RolesJson(const migrate::AwsInventory& aws, const std::vector<migrate::RoleArtifact>& roles) {
  Json out = Json::array();
  for (const migrate::RoleArtifact& role : roles) {
    Json entry = {{"name", role.name},
                  {"exists", RoleExists(aws, role)},
                  {"trust", Json::parse(role.trust.dump())},
                  {"managedPolicies", role.managed_policies}};
    if (!role.inline_policy_name.empty()) {
      entry["inlinePolicy"] = {{"name", role.inline_policy_name},
                               {"document", Json::parse(role.inline_policy.dump())}};
    }
    out.push_back(std::move(entry));
  }
  return out;
}

Json ReportJson(const migrate::AwsInventory& aws, const migrate::MigrationPlan& plan,
                const migrate::DerivedNodePools& derived,
                const std::vector<migrate::RoleArtifact>& roles, const Json& chart_values) {
  Json node_groups = Json::array();
  for (const aws::EksNodegroup& group : aws.node_groups) {
    node_groups.push_back(NodeGroupJson(group));
  }
  Json steps = Json::array();
  for (const migrate::Step& step : plan.steps) {
    steps.push_back({{"number", step.number},
                     {"title", step.title},
                     {"state", migrate::StateName(step.state)},
                     {"details", step.details}});
  }
  Json targets = Json::array();
  for (const migrate::NodeGroupTarget& target : plan.targets) {
    targets.push_back(
        {{"name", target.name}, {"desiredSize", target.desired}, {"targetSize", target.target}});
  }
  return {{"cluster",
           {{"name", aws.cluster.name},
            {"region", aws.region},
            {"version", aws.cluster.version},
            {"status", aws.cluster.status},
            {"oidcIssuer", aws.cluster.oidc_issuer},
            {"authenticationMode", aws.cluster.authentication_mode},
            {"interruptionQueue", aws.interruption_queue},
            {"aliasVersion", aws.alias_version}}},
          {"nodeGroups", std::move(node_groups)},
          {"steps", std::move(steps)},
          {"warnings", plan.warnings},
          {"controllerNodeGroup", plan.controller_node_group},
          {"nodeGroupTargets", std::move(targets)},
          {"nodeClasses", derived.node_classes},
          {"nodePools", derived.node_pools},
          {"nodePoolNodeGroups", derived.node_groups},
          {"notes", derived.notes},
          {"iamRoles", RolesJson(aws, roles)},
          {"chartValues", chart_values}};
}

void PrintText(const migrate::AwsInventory& aws, const migrate::MigrationPlan& plan,
               const migrate::DerivedNodePools& derived,
               const std::vector<migrate::RoleArtifact>& roles, const Json& chart_values,
               std::ostream& out) {
  const aws::EksCluster& cluster = aws.cluster;
  out << fmt::format("Cluster {} ({}): Kubernetes {}, {}, authentication mode {}\n", cluster.name,
                     aws.region, cluster.version, cluster.status, cluster.authentication_mode);
  out << fmt::format("\nManaged node groups ({}):\n", aws.node_groups.size());
  out << fmt::format("  {:<20} {:<10} {:<26} {:<28} {:>15}  {}\n", "NAME", "CAPACITY", "AMI TYPE",
                     "INSTANCE TYPES", "MIN/DESIRED/MAX", "LABELS, TAINTS");
  for (const aws::EksNodegroup& group : aws.node_groups) {
    std::vector<std::string> marks;
    for (const auto& [key, value] : group.labels) marks.push_back(fmt::format("{}={}", key, value));
    for (const aws::EksTaint& taint : group.taints) {
      marks.push_back(fmt::format("{}={}:{}", taint.key, taint.value, taint.effect));
    }
    out << fmt::format("  {:<20} {:<10} {:<26} {:<28} {:>15}  {}\n", group.name,
                       group.capacity_type, group.ami_type, fmt::join(group.instance_types, ","),
                       fmt::format("{}/{}/{}", group.min_size, group.desired_size, group.max_size),
                       marks.empty() ? std::string("-") : fmt::format("{}", fmt::join(marks, " ")));
  }
  out << "\nSteps:\n";
  for (const migrate::Step& step : plan.steps) {
    out << fmt::format("  {}. {:<28} {}\n", step.number, step.title,
                       migrate::StateName(step.state));
    for (const std::string& detail : step.details) out << "       " << detail << "\n";
  }
  if (!plan.warnings.empty()) {
    out << "\nWarnings:\n";
    for (const std::string& warning : plan.warnings) out << "  - " << warning << "\n";
  }
  out << "\nNodePools that take over:\n";
  for (size_t i = 0; i < derived.node_pools.size(); ++i) {
    out << fmt::format("  {:<20} from {}\n",
                       derived.node_pools[i]["metadata"]["name"].get<std::string>(),
                       fmt::join(derived.node_groups[i], ", "));
  }
  if (!derived.notes.empty()) {
    out << "\nNot carried over:\n";
    for (const std::string& note : derived.notes) out << "  - " << note << "\n";
  }
  out << "\nIAM roles (step 2):\n";
  for (const migrate::RoleArtifact& role : roles) {
    std::vector<std::string> policies = role.managed_policies;
    if (!role.inline_policy_name.empty()) policies.push_back(role.inline_policy_name + " (inline)");
    out << fmt::format("  {:<44} {}  {}\n", role.name,
                       RoleExists(aws, role) ? "exists" : "to create", fmt::join(policies, ", "));
  }
  out << "\n# The chart's values (step 5; helm upgrade --install ... --values):\n"
      << chart_values.dump(2) << "\n";
  out << "\n# The EC2NodeClasses and NodePools (kubectl apply -f once the chart runs):\n";
  for (const Json& object : derived.node_classes) out << "---\n" << object.dump(2) << "\n";
  for (const Json& object : derived.node_pools) out << "---\n" << object.dump(2) << "\n";
}

// A subcommand's AWS side: the region (--region, else the environment's) and clients for it, with
// the real clock and transport they hold on to.
class AwsSession {
 public:
  // 0, or the exit status after saying on `err` why not: no region is a usage error, clients that
  // cannot be made a failure.
  int Open(const MigrateTarget& target, const aws::Environment& environment,
           std::string_view command, std::ostream& err) {
    region_ = target.region.empty() ? std::string(environment.Region()) : target.region;
    if (region_.empty()) {
      err << "karpenter migrate " << command << ": no region: give --region or set AWS_REGION\n";
      return kExitUsage;
    }
    Result<aws::AwsClients> clients =
        aws::AwsClients::Create(environment, region_, transport_, clock_);
    if (!clients.ok()) {
      err << "karpenter migrate " << command << ": " << clients.error().message << "\n";
      return kExitFailure;
    }
    clients_.emplace(std::move(*clients));
    return 0;
  }

  aws::AwsClients& clients() { return *clients_; }
  const std::string& region() const { return region_; }

  // Real time and real programs, for apply and rollback.
  migrate::ApplyHooks Hooks() const {
    migrate::ApplyHooks hooks;
    hooks.clock = &clock_;
    hooks.sleep = [](std::chrono::milliseconds duration) { std::this_thread::sleep_for(duration); };
    hooks.run = RunProgram;
    return hooks;
  }

 private:
  RealClock clock_;
  aws::CurlTransport transport_;
  std::optional<aws::AwsClients> clients_;
  std::string region_;
};

}  // namespace

int RunMigratePlan(const MigratePlanOptions& options, const aws::Environment& environment,
                   kube::Client& cluster, std::ostream& out, std::ostream& err) {
  AwsSession session;
  if (const int opened = session.Open(options.target, environment, "plan", err); opened != 0) {
    return opened;
  }
  Result<Duration> forecast_duration = Duration::Parse(options.forecast, /*allow_never=*/false);
  if (!forecast_duration.ok() || forecast_duration->value().count() < 0) {
    err << fmt::format("karpenter migrate plan: --forecast: \"{}\" is not a duration\n",
                       options.forecast);
    return kExitUsage;
  }
  if (options.batch < 1) {
    err << "karpenter migrate plan: --batch: at least 1 node at a time\n";
    return kExitUsage;
  }
  const std::string& name = options.target.cluster_name;
  Result<migrate::MigrationState> state =
      migrate::ReadMigrationState(session.clients(), cluster, name);
  if (!state.ok()) {
    err << fmt::format("karpenter migrate plan: cluster {} in {}: {}\n", name, session.region(),
                       state.error().message);
    return kExitFailure;
  }
  const migrate::AwsInventory& aws = state->aws;
  const migrate::MigrationPlan& plan = state->plan;
  const migrate::DerivedNodePools derived = migrate::DeriveNodePools(
      {name, migrate::PinnedAliasVersion(options.alias_version, aws.alias_version),
       aws.node_groups});
  Result<std::vector<migrate::RoleArtifact>> roles = migrate::SeedRoles(aws, options.namespace_);
  if (!roles.ok()) {
    err << fmt::format("karpenter migrate plan: cluster {}: {}\n", name, roles.error().message);
    return kExitFailure;
  }
  const Json chart_values = migrate::ChartValues(aws, plan.controller_node_group);
  std::optional<Result<simulate::SimulationResult>> forecast;
  std::vector<std::string> forecast_notes;
  if (forecast_duration->value().count() > 0) {
    forecast = ForecastMigration(state->objects, aws, state->cluster, plan, derived, options.batch,
                                 forecast_duration->value(), forecast_notes);
  }
  if (options.output == "html") {
    out << RenderPlanHtml(
        {&aws, &plan, &derived, &forecast, &forecast_notes, &*roles, &chart_values});
  } else if (options.output == "json") {
    Json report = ReportJson(aws, plan, derived, *roles, chart_values);
    if (forecast && forecast->ok()) {
      report["forecast"] = ForecastJson(**forecast, forecast_notes);
    } else if (forecast) {
      report["forecast"] = {{"error", forecast->error().message}};
    }
    out << report.dump(2) << "\n";
  } else {
    PrintText(aws, plan, derived, *roles, chart_values, out);
    if (forecast) PrintForecast(*forecast, forecast_notes, out);
  }
  return 0;
}

int RunMigrateApply(const MigrateApplyOptions& options, const aws::Environment& environment,
                    kube::Client& cluster, std::ostream& out, std::ostream& err) {
  Result<Duration> settle = Duration::Parse(options.settle_timeout, /*allow_never=*/false);
  if (!settle.ok() || settle->value().count() <= 0) {
    err << fmt::format("karpenter migrate apply: --settle-timeout: \"{}\" is not a duration\n",
                       options.settle_timeout);
    return kExitUsage;
  }
  if (options.batch < 1) {
    err << "karpenter migrate apply: --batch: at least 1 node at a time\n";
    return kExitUsage;
  }
  migrate::ApplyOptions apply;
  apply.cluster_name = options.target.cluster_name;
  apply.namespace_ = options.namespace_;
  apply.alias_version = options.alias_version;
  apply.kubeconfig = options.target.kubeconfig;
  apply.chart = options.chart;
  apply.values_files = options.values_files;
  if (options.step == 0) {
    for (int step = 1; step <= 9; ++step) apply.steps.push_back(step);
  } else {
    apply.steps.push_back(options.step);
  }
  apply.dry_run = options.dry_run;
  apply.batch = options.batch;
  apply.allow_unprotected = options.allow_unprotected;
  apply.settle_timeout = std::chrono::duration_cast<std::chrono::seconds>(settle->value());
  AwsSession session;
  if (const int opened = session.Open(options.target, environment, "apply", err); opened != 0) {
    return opened;
  }
  if (Status applied =
          migrate::ApplyMigration(session.clients(), cluster, apply, session.Hooks(), out);
      !applied.ok()) {
    err << fmt::format("karpenter migrate apply: cluster {}: {}\n", apply.cluster_name,
                       applied.error().message);
    return kExitFailure;
  }
  return 0;
}

int RunMigrateRollback(const MigrateRollbackOptions& options, const aws::Environment& environment,
                       kube::Client& cluster, std::ostream& out, std::ostream& err) {
  AwsSession session;
  if (const int opened = session.Open(options.target, environment, "rollback", err); opened != 0) {
    return opened;
  }
  migrate::RollbackOptions rollback;
  rollback.cluster_name = options.target.cluster_name;
  rollback.namespace_ = options.namespace_;
  rollback.all = options.all;
  rollback.dry_run = options.dry_run;
  rollback.kubeconfig = options.target.kubeconfig;
  if (Status undone =
          migrate::RollbackMigration(session.clients(), cluster, rollback, session.Hooks(), out);
      !undone.ok()) {
    err << fmt::format("karpenter migrate rollback: cluster {}: {}\n", rollback.cluster_name,
                       undone.error().message);
    return kExitFailure;
  }
  return 0;
}

int RunMigrateVerify(const MigrateVerifyOptions& options, const aws::Environment& environment,
                     kube::Client& cluster, std::ostream& out, std::ostream& err) {
  AwsSession session;
  if (const int opened = session.Open(options.target, environment, "verify", err); opened != 0) {
    return opened;
  }
  const std::string& name = options.target.cluster_name;
  Result<migrate::MigrationState> state =
      migrate::ReadMigrationState(session.clients(), cluster, name);
  if (!state.ok()) {
    err << fmt::format("karpenter migrate verify: cluster {} in {}: {}\n", name, session.region(),
                       state.error().message);
    return kExitFailure;
  }
  const std::vector<migrate::Check> checks = migrate::VerifyMigration(
      {&state->aws, &state->objects, &state->cluster, &state->plan, options.namespace_});
  const bool verified = std::all_of(checks.begin(), checks.end(),
                                    [](const migrate::Check& check) { return check.ok; });
  if (options.output == "json") {
    Json list = Json::array();
    for (const migrate::Check& check : checks) {
      list.push_back({{"name", check.name}, {"ok", check.ok}, {"detail", check.detail}});
    }
    out << Json{{"cluster", name}, {"verified", verified}, {"checks", std::move(list)}}.dump(2)
        << "\n";
  } else {
    for (const migrate::Check& check : checks) {
      out << fmt::format("{} {}: {}\n", check.ok ? "ok  " : "FAIL", check.name, check.detail);
    }
    out << (verified ? "verified\n" : "not verified\n");
  }
  return verified ? 0 : kExitFailure;
}

namespace {

// Runs `run` on the cluster of the target's kubeconfig, with the process's environment.
template <class Options, class Run>
int WithCluster(const Options& options, std::string_view command, Run run, std::ostream& out,
                std::ostream& err) {
  const aws::Environment environment = aws::Environment::OfProcess();
  std::string kubeconfig = options.target.kubeconfig;
  if (kubeconfig.empty()) kubeconfig = std::string(environment.Get("KUBECONFIG"));
  if (kubeconfig.empty() && !environment.Get("HOME").empty()) {
    kubeconfig = std::string(environment.Get("HOME")) + "/.kube/config";
  }
  Result<std::unique_ptr<kube::Client>> client = [&]() -> Result<std::unique_ptr<kube::Client>> {
    if (kubeconfig.empty()) return Error("no kubeconfig: give --kubeconfig or set KUBECONFIG");
    ASSIGN_OR_RETURN(kube::http::Config config, kube::http::LoadKubeconfig(kubeconfig));
    return kube::http::NewClient(config);
  }();
  if (!client.ok()) {
    err << "karpenter migrate " << command << ": " << client.error().message << "\n";
    return kExitFailure;
  }
  return run(options, environment, **client, out, err);
}

}  // namespace

int RunMigrateCommand(const MigratePlanOptions& options, std::ostream& out, std::ostream& err) {
  return WithCluster(options, "plan", RunMigratePlan, out, err);
}

int RunMigrateCommand(const MigrateApplyOptions& options, std::ostream& out, std::ostream& err) {
  return WithCluster(options, "apply", RunMigrateApply, out, err);
}

int RunMigrateCommand(const MigrateRollbackOptions& options, std::ostream& out, std::ostream& err) {
  return WithCluster(options, "rollback", RunMigrateRollback, out, err);
}

int RunMigrateCommand(const MigrateVerifyOptions& options, std::ostream& out, std::ostream& err) {
  return WithCluster(options, "verify", RunMigrateVerify, out, err);
}

}  // namespace karpenter::cli
