#include "cli/migrate_command.h"

#include <fmt/format.h>

#include <string_view>
#include <utility>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/api/eks_api.h"
#include "aws/sdk/curl_transport.h"
#include "cli/command_line.h"
#include "common/clock.h"
#include "migrate/node_pools.h"

namespace karpenter::cli {
namespace {

struct Inventory {
  aws::EksCluster cluster;
  std::vector<aws::EksNodegroup> node_groups;
};

Result<Inventory> ReadInventory(aws::AwsClients& clients, const std::string& cluster_name) {
  aws::EksApi eks(clients.eks());
  Inventory inventory;
  ASSIGN_OR_RETURN(inventory.cluster, eks.DescribeCluster(cluster_name));
  ASSIGN_OR_RETURN(std::vector<std::string> names, eks.ListNodegroups(cluster_name));
  for (const std::string& name : names) {
    ASSIGN_OR_RETURN(aws::EksNodegroup group, eks.DescribeNodegroup(cluster_name, name));
    inventory.node_groups.push_back(std::move(group));
  }
  return inventory;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator = ",") {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

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

void PrintText(const Inventory& inventory, const std::string& region,
               const migrate::DerivedNodePools& derived, std::ostream& out) {
  const aws::EksCluster& cluster = inventory.cluster;
  out << fmt::format("Cluster {} ({}): Kubernetes {}, {}\n", cluster.name, region, cluster.version,
                     cluster.status);
  out << fmt::format("  OIDC issuer: {}\n",
                     cluster.oidc_issuer.empty() ? "(none)" : cluster.oidc_issuer);
  out << fmt::format("  authentication mode: {} ({})\n", cluster.authentication_mode,
                     cluster.authentication_mode == "API"
                         ? "the node role joins through an EKS access entry"
                         : "the node role joins through the aws-auth ConfigMap");
  out << fmt::format("\nManaged node groups ({}):\n", inventory.node_groups.size());
  out << fmt::format("  {:<20} {:<10} {:<26} {:<28} {:>15}  {}\n", "NAME", "CAPACITY", "AMI TYPE",
                     "INSTANCE TYPES", "MIN/DESIRED/MAX", "LABELS, TAINTS");
  for (const aws::EksNodegroup& group : inventory.node_groups) {
    std::vector<std::string> marks;
    for (const auto& [key, value] : group.labels) marks.push_back(fmt::format("{}={}", key, value));
    for (const aws::EksTaint& taint : group.taints) {
      marks.push_back(fmt::format("{}={}:{}", taint.key, taint.value, taint.effect));
    }
    out << fmt::format("  {:<20} {:<10} {:<26} {:<28} {:>15}  {}\n", group.name,
                       group.capacity_type, group.ami_type, Join(group.instance_types),
                       fmt::format("{}/{}/{}", group.min_size, group.desired_size, group.max_size),
                       marks.empty() ? "-" : Join(marks, " "));
  }
  out << "\nNodePools that take over:\n";
  for (size_t i = 0; i < derived.node_pools.size(); ++i) {
    out << fmt::format("  {:<20} from {}\n",
                       derived.node_pools[i]["metadata"]["name"].get<std::string>(),
                       Join(derived.node_groups[i], ", "));
  }
  if (!derived.notes.empty()) {
    out << "\nNot carried over:\n";
    for (const std::string& note : derived.notes) out << "  - " << note << "\n";
  }
  out << "\n# The EC2NodeClasses and NodePools (kubectl apply -f once the chart runs):\n";
  for (const Json& object : derived.node_classes) out << "---\n" << object.dump(2) << "\n";
  for (const Json& object : derived.node_pools) out << "---\n" << object.dump(2) << "\n";
}

}  // namespace

int RunMigratePlan(const MigratePlanOptions& options, const aws::Environment& environment,
                   std::ostream& out, std::ostream& err) {
  std::string region = options.region;
  for (const char* variable : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (region.empty()) region = std::string(environment.Get(variable));
  }
  if (region.empty()) {
    err << "karpenter migrate plan: no region: give --region or set AWS_REGION\n";
    return kExitUsage;
  }
  RealClock clock;
  aws::CurlTransport transport;
  Result<aws::AwsClients> clients = aws::AwsClients::Create(environment, region, transport, clock);
  if (!clients.ok()) {
    err << "karpenter migrate plan: " << clients.error().message << "\n";
    return kExitFailure;
  }
  Result<Inventory> inventory = ReadInventory(*clients, options.cluster_name);
  if (!inventory.ok()) {
    err << fmt::format("karpenter migrate plan: cluster {} in {}: {}\n", options.cluster_name,
                       region, inventory.error().message);
    return kExitFailure;
  }
  const migrate::DerivedNodePools derived = migrate::DeriveNodePools(
      {options.cluster_name, options.alias_version, inventory->node_groups});
  if (options.output == "json") {
    Json node_groups = Json::array();
    for (const aws::EksNodegroup& group : inventory->node_groups) {
      node_groups.push_back(NodeGroupJson(group));
    }
    const aws::EksCluster& cluster = inventory->cluster;
    const Json report = {{"cluster",
                          {{"name", cluster.name},
                           {"region", region},
                           {"version", cluster.version},
                           {"status", cluster.status},
                           {"oidcIssuer", cluster.oidc_issuer},
                           {"authenticationMode", cluster.authentication_mode}}},
                         {"nodeGroups", std::move(node_groups)},
                         {"nodeClasses", derived.node_classes},
                         {"nodePools", derived.node_pools},
                         {"nodePoolNodeGroups", derived.node_groups},
                         {"notes", derived.notes}};
    out << report.dump(2) << "\n";
    return 0;
  }
  PrintText(*inventory, region, derived, out);
  return 0;
}

}  // namespace karpenter::cli
