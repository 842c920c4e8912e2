#include "cli/migrate_html.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>

#include "simulate/html_page.h"

namespace karpenter::cli {
namespace {

using simulate::html::AppendCard;
using simulate::html::AppendTable;
using simulate::html::Escape;
using simulate::html::Row;

std::string_view StateClass(migrate::StepState state) {
  switch (state) {
    case migrate::StepState::kDone:
      return "state-done";
    case migrate::StepState::kToDo:
      return "state-todo";
    case migrate::StepState::kBlocked:
      return "state-blocked";
  }
  return "";
}

void AppendSteps(std::string& out, const migrate::MigrationPlan& plan) {
  out +=
      "<h2>Steps</h2>\n<table>\n<thead><tr><th class=\"num\">#</th><th>Step</th>"
      "<th>State</th><th>Details</th></tr></thead>\n<tbody>\n";
  for (const migrate::Step& step : plan.steps) {
    fmt::format_to(std::back_inserter(out),
                   "<tr><td class=\"num\">{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td>"
                   "</tr>\n",
                   step.number, Escape(step.title), StateClass(step.state),
                   Escape(migrate::StateName(step.state)),
                   Escape(fmt::format("{}", fmt::join(step.details, "; "))));
  }
  out += "</tbody>\n</table>\n";
}

void AppendList(std::string& out, std::string_view title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  fmt::format_to(std::back_inserter(out), "<h2>{}</h2>\n<ul>\n", Escape(title));
  for (const std::string& item : items) {
    fmt::format_to(std::back_inserter(out), "<li>{}</li>\n", Escape(item));
  }
  out += "</ul>\n";
}

void AppendNodeGroups(std::string& out, const migrate::AwsInventory& aws) {
  out += "<h2>Managed node groups</h2>\n";
  std::vector<Row> rows;
  for (const aws::EksNodegroup& group : aws.node_groups) {
    std::vector<std::string> marks;
    for (const auto& [key, value] : group.labels) marks.push_back(fmt::format("{}={}", key, value));
    for (const aws::EksTaint& taint : group.taints) {
      marks.push_back(fmt::format("{}={}:{}", taint.key, taint.value, taint.effect));
    }
    rows.push_back({group.name, group.capacity_type, group.ami_type,
                    fmt::format("{}", fmt::join(group.instance_types, ", ")),
                    fmt::format("{}/{}/{}", group.min_size, group.desired_size, group.max_size),
                    fmt::format("{}", fmt::join(marks, " "))});
  }
  AppendTable(out,
              {{"Name"},
               {"Capacity"},
               {"AMI type"},
               {"Instance types"},
               {"Min/desired/max", true},
               {"Labels, taints"}},
              rows, "The cluster has no managed node group.");
}

void AppendForecast(std::string& out, const PlanPage& page) {
  if (page.forecast == nullptr || !page.forecast->has_value()) return;
  const Result<simulate::SimulationResult>& forecast = **page.forecast;
  out += "<h2>Forecast</h2>\n";
  if (!forecast.ok()) {
    fmt::format_to(std::back_inserter(out), "<p class=\"empty\">Not run: {}</p>\n",
                   Escape(forecast.error().message));
    return;
  }
  const simulate::SimulationResult& result = *forecast;
  out += "<section class=\"cards\">\n";
  AppendCard(out, "Nodes",
             fmt::format("{} → {} (±{:.0f} %)", result.before.nodes, result.after.nodes,
                         result.accuracy.nodes_error * 100));
  AppendCard(out, "Price per hour",
             fmt::format("${:.2f} → ${:.2f} (±{:.0f} %)", result.before.price_per_hour,
                         result.after.price_per_hour, result.accuracy.price_error * 100),
             "wide");
  AppendCard(out, "PDB violations", fmt::format("{}", result.pdb_violations),
             result.pdb_violations > 0 ? "bad" : "good");
  AppendCard(out, "Pods disrupted", fmt::format("{}", result.pods_disrupted));
  AppendCard(out, "Pods left pending", fmt::format("{}", result.unschedulable_pods),
             result.unschedulable_pods > 0 ? "bad" : "good");
  AppendCard(out, "Longest pending", fmt::format("{:.0f} s", result.max_pending_seconds));
  out += "</section>\n";
  std::vector<std::string> notes = *page.forecast_notes;
  notes.insert(notes.end(), result.accuracy.not_modelled.begin(),
               result.accuracy.not_modelled.end());
  if (!notes.empty()) {
    out += "<ul>\n";
    for (const std::string& note : notes) {
      fmt::format_to(std::back_inserter(out), "<li>{}</li>\n", Escape(note));
    }
    out += "</ul>\n";
  }
}

}  // namespace

std::string RenderPlanHtml(const PlanPage& page) {
  const migrate::AwsInventory& aws = *page.aws;
  const migrate::MigrationPlan& plan = *page.plan;
  const migrate::DerivedNodePools& derived = *page.derived;
  std::string out;
  simulate::html::AppendHead(out, "Karpenter migration plan — " + aws.cluster.name);
  out += "<body>\n<main>\n<header>\n<h1>Karpenter migration plan</h1>\n";
  int done = 0;
  int blocked = 0;
  for (const migrate::Step& step : plan.steps) {
    done += step.state == migrate::StepState::kDone ? 1 : 0;
    blocked += step.state == migrate::StepState::kBlocked ? 1 : 0;
  }
  fmt::format_to(std::back_inserter(out),
                 "<p class=\"scenario\">cluster {} · {} · Kubernetes {} · authentication mode "
                 "{}</p>\n<p class=\"verdict\">{} of {} steps done, {} blocked, {} warnings</p>\n"
                 "</header>\n",
                 Escape(aws.cluster.name), Escape(aws.region), Escape(aws.cluster.version),
                 Escape(aws.cluster.authentication_mode), done, plan.steps.size(), blocked,
                 plan.warnings.size());
  AppendForecast(out, page);
  AppendSteps(out, plan);
  AppendList(out, "Warnings", plan.warnings);
  AppendNodeGroups(out, aws);
  out += "<h2>NodePools that take over</h2>\n";
  std::vector<Row> pools;
  for (size_t i = 0; i < derived.node_pools.size(); ++i) {
    pools.push_back({derived.node_pools[i]["metadata"]["name"].get<std::string>(),
                     fmt::format("{}", fmt::join(derived.node_groups[i], ", "))});
  }
  AppendTable(out, {{"NodePool"}, {"From node groups"}}, pools,
              "No node group can be carried over.");
  AppendList(out, "Not carried over", derived.notes);
  out += "<h2>IAM roles (step 2)</h2>\n";
  std::vector<Row> roles;
  for (const migrate::RoleArtifact& role : *page.roles) {
    const bool exists =
        role.inline_policy_name.empty() ? aws.node_role_exists : aws.controller_role_exists;
    std::vector<std::string> policies = role.managed_policies;
    if (!role.inline_policy_name.empty()) policies.push_back(role.inline_policy_name + " (inline)");
    roles.push_back(
        {role.name, exists ? "exists" : "to create", fmt::format("{}", fmt::join(policies, ", "))});
  }
  AppendTable(out, {{"Role"}, {"State"}, {"Policies"}}, roles);
  out += "<h2>The chart's values (step 5)</h2>\n<pre>";
  out += Escape(page.chart_values->dump(2));
  out += "</pre>\n<h2>Manifests</h2>\n<pre>";
  for (const Json& object : derived.node_classes) out += Escape("---\n" + object.dump(2) + "\n");
  for (const Json& object : derived.node_pools) out += Escape("---\n" + object.dump(2) + "\n");
  out +=
      "</pre>\n<footer>karpenter migrate plan · reads only; apply with karpenter migrate apply"
      "</footer>\n</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace karpenter::cli
