#include "cli/migrate_forecast.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aws/catalog/load_catalog.h"
#include "kube/object.h"
#include "simulate/inputs.h"
#include "simulate/launch_zones.h"

namespace karpenter::cli {

Result<simulate::SimulationResult> ForecastMigration(
    const migrate::ClusterObjects& objects, const migrate::AwsInventory& aws,
    const migrate::ClusterInventory& inventory, const migrate::MigrationPlan& plan,
    const migrate::DerivedNodePools& derived, int64_t batch, std::chrono::milliseconds duration,
    std::vector<std::string>& notes) {
  std::vector<Json> snapshot;
  for (const std::vector<kube::SharedObject>* list :
       {&objects.nodes, &objects.pods, &objects.budgets, &objects.deployments,
        &objects.replica_sets, &objects.stateful_sets, &objects.daemon_sets, &objects.jobs,
        &objects.node_pools, &objects.node_classes}) {
    for (const kube::SharedObject& object : *list) snapshot.push_back(*object);
  }
  std::set<std::string, std::less<>> groups_with_nodes;
  for (const kube::SharedObject& node : objects.nodes) {
    groups_with_nodes.emplace(kube::Label(*node, migrate::kLabelNodeGroup));
  }
  if (objects.node_pools.empty()) {
    snapshot.insert(snapshot.end(), derived.node_classes.begin(), derived.node_classes.end());
    snapshot.insert(snapshot.end(), derived.node_pools.begin(), derived.node_pools.end());
  }
  simulate::SimulationInput input;
  input.scenario = "the migration of cluster " + aws.cluster.name;
  input.region = aws.region;
  input.duration = duration;
  std::vector<std::string> errors;
  simulate::AddObjects(std::move(snapshot), "cluster " + aws.cluster.name, input, errors);
  if (!errors.empty()) {
    return Error(fmt::format("{} object(s) the simulation cannot take, the first: {}",
                             errors.size(), errors.front()));
  }
  for (const migrate::WorkloadRef& autoscaler : inventory.cluster_autoscalers) {
    if (autoscaler.replicas == 0) continue;
    input.timeline.actions.push_back(
        {std::chrono::milliseconds(0),
         simulate::ScaleWorkload{"Deployment", autoscaler.namespace_, autoscaler.name, 0}});
  }
  bool shrinks = false;
  for (const migrate::NodeGroupTarget& target : plan.targets) {
    if (target.desired <= target.target) continue;
    if (!groups_with_nodes.contains(target.name)) {
      notes.push_back(fmt::format(
          "node group {} has no Node in the cluster: its shrinking is not simulated", target.name));
      continue;
    }
    // In the plan's order, one after another, as apply shrinks them.
    input.timeline.actions.push_back(
        {std::chrono::minutes(1),
         simulate::ScaleNodeGroup{target.name, static_cast<int>(target.target),
                                  static_cast<int>(batch), /*settle=*/true}});
    shrinks = true;
  }
  if (shrinks) {
    notes.push_back(fmt::format(
        "the node groups shrink one after another, {} node{} at a time, each batch once the pods "
        "the last displaced run again, as `karpenter migrate apply --batch {}` does (its settle "
        "timeout is not simulated: a batch that never settles holds the rest back)",
        batch, batch == 1 ? "" : "s", batch));
  }
  aws::AwsCatalogOptions catalog;
  catalog.region = aws.region;
  ASSIGN_OR_RETURN(input.catalog, aws::LoadCatalog("aws", catalog));
  // Karpenter launches in the node groups' subnets, which step 3 tags for it (without any the
  // simulation takes the zones of the cluster's Nodes).
  std::set<std::string> zones;
  for (const migrate::TaggedResource& subnet : aws.subnets) {
    if (!subnet.zone.empty()) zones.insert(subnet.zone);
  }
  std::vector<std::string> launch_zones(zones.begin(), zones.end());
  if (!simulate::OfferedIn(input.catalog, launch_zones).empty()) {
    input.launch_zones = std::move(launch_zones);
  }
  return simulate::Simulate(std::move(input));
}

Json ForecastJson(const simulate::SimulationResult& result, const std::vector<std::string>& notes) {
  auto figures = [](const simulate::ClusterFigures& figures) {
    return Json{{"nodes", figures.nodes},
                {"pricePerHour", figures.price_per_hour},
                {"pods", figures.pods},
                {"pendingPods", figures.pending_pods}};
  };
  return {{"virtualSeconds", result.virtual_seconds},
          {"before", figures(result.before)},
          {"after", figures(result.after)},
          {"podsDisrupted", result.pods_disrupted},
          {"pdbViolations", result.pdb_violations},
          {"unschedulablePods", result.unschedulable_pods},
          {"maxPendingSeconds", result.max_pending_seconds},
          {"nodesError", result.accuracy.nodes_error},
          {"priceError", result.accuracy.price_error},
          {"notModelled", result.accuracy.not_modelled},
          {"notes", notes}};
}

void PrintForecast(const Result<simulate::SimulationResult>& result,
                   const std::vector<std::string>& notes, std::ostream& out) {
  out << "\nForecast (simulated: Cluster Autoscaler at 0, the node groups shrunk a minute later, "
         "the NodePools below):\n";
  if (!result.ok()) {
    out << "  not run: " << result.error().message << "\n";
    return;
  }
  out << fmt::format(
      "  nodes {} → {}, ${:.2f}/h → ${:.2f}/h after {:.0f} minutes (measured error: ±{:.0f} % "
      "nodes, ±{:.0f} % $/h)\n",
      result->before.nodes, result->after.nodes, result->before.price_per_hour,
      result->after.price_per_hour, result->virtual_seconds / 60,
      result->accuracy.nodes_error * 100, result->accuracy.price_error * 100);
  out << fmt::format(
      "  {} PDB violations, {} pods disrupted, {} pods left pending, longest pending {:.0f} s\n",
      result->pdb_violations, result->pods_disrupted, result->unschedulable_pods,
      result->max_pending_seconds);
  for (const std::string& note : notes) out << "  - " << note << "\n";
  for (const std::string& note : result->accuracy.not_modelled) out << "  - " << note << "\n";
}

}  // namespace karpenter::cli
