#include "migrate/steps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace karpenter::migrate {
namespace {

Step Make(int number, std::string title) {
  Step step;
  step.number = number;
  step.title = std::move(title);
  return step;
}

void Set(Step& step, StepState state, std::string detail) {
  step.state = state;
  step.details.push_back(std::move(detail));
}

std::vector<std::string> Untagged(const std::vector<TaggedResource>& resources) {
  std::vector<std::string> out;
  for (const TaggedResource& resource : resources) {
    if (!resource.tagged) out.push_back(resource.id);
  }
  return out;
}

std::string ControllerNodeGroup(const std::vector<aws::EksNodegroup>& groups) {
  const aws::EksNodegroup* untainted = nullptr;
  for (const aws::EksNodegroup& group : groups) {
    if (!group.taints.empty()) continue;
    if (group.capacity_type == "ON_DEMAND") return group.name;
    if (untainted == nullptr) untainted = &group;
  }
  return untainted != nullptr ? untainted->name : "";
}

}  // namespace

std::string_view StateName(StepState state) {
  switch (state) {
    case StepState::kDone:
      return "done";
    case StepState::kToDo:
      return "to do";
    case StepState::kBlocked:
      return "blocked";
  }
  return "to do";
}

MigrationPlan PlanMigration(const AwsInventory& aws, const ClusterInventory& cluster) {
  MigrationPlan plan;
  const std::string& name = aws.cluster.name;
  plan.controller_node_group = ControllerNodeGroup(aws.node_groups);

  Step environment = Make(1, "environment");
  environment.details.push_back(
      fmt::format("Kubernetes {}, region {}", aws.cluster.version, aws.region));
  if (aws.cluster.status != "ACTIVE") {
    Set(environment, StepState::kBlocked,
        fmt::format("the cluster is {}, not ACTIVE", aws.cluster.status));
  } else if (aws.cluster.oidc_issuer.empty()) {
    Set(environment, StepState::kBlocked,
        "the cluster has no OIDC issuer: the controller's role (IRSA) needs one");
  } else {
    Set(environment, StepState::kDone, "OIDC issuer " + aws.cluster.oidc_issuer);
  }
  if (aws.alias_version.empty()) {
    plan.warnings.push_back("the AMI release could not be read (" + aws.alias_problem +
                            "): the EC2NodeClass follows al2023@latest");
  } else {
    environment.details.push_back("AMI alias al2023@" + aws.alias_version);
  }

  Step roles = Make(2, "IAM roles");
  if (aws.node_role_exists && aws.controller_role_exists) {
    Set(roles, StepState::kDone,
        fmt::format("KarpenterNodeRole-{0} and KarpenterControllerRole-{0} exist", name));
  } else {
    roles.state = StepState::kToDo;
    for (const auto& [exists, role] :
         {std::pair{aws.node_role_exists, "KarpenterNodeRole-"},
          std::pair{aws.controller_role_exists, "KarpenterControllerRole-"}}) {
      if (!exists) roles.details.push_back(fmt::format("create {}{}", role, name));
    }
    roles.details.push_back("karpenter iam cloudformation --cluster-name " + name +
                            " prints them as a stack");
  }

  Step tags = Make(3, "discovery tags");
  std::vector<std::string> claimed;  // tagged for another cluster
  for (const auto* resources : {&aws.subnets, &aws.security_groups}) {
    for (const TaggedResource& resource : *resources) {
      if (!resource.other_cluster.empty()) {
        claimed.push_back(fmt::format("{} (cluster {})", resource.id, resource.other_cluster));
      }
    }
  }
  if (aws.subnets.empty()) {
    Set(tags, StepState::kBlocked, "no node group names a subnet to tag");
  } else if (!claimed.empty()) {
    Set(tags, StepState::kBlocked,
        fmt::format("{} already carry {} for another cluster: one tag key cannot discover them "
                    "for both (give the EC2NodeClass other selector terms)",
                    fmt::join(claimed, ", "), kDiscoveryTag));
  } else {
    const std::vector<std::string> subnets = Untagged(aws.subnets);
    const std::vector<std::string> groups = Untagged(aws.security_groups);
    if (subnets.empty() && groups.empty() && !aws.security_groups.empty()) {
      Set(tags, StepState::kDone,
          fmt::format(
              "the node groups' {} subnets and the cluster's {} security groups carry {}={}",
              aws.subnets.size(), aws.security_groups.size(), kDiscoveryTag, name));
    } else {
      tags.state = StepState::kToDo;
      if (!subnets.empty()) {
        tags.details.push_back(fmt::format("tag subnets {}", fmt::join(subnets, ", ")));
      }
      if (!groups.empty()) {
        tags.details.push_back(fmt::format("tag security groups {}", fmt::join(groups, ", ")));
      }
      if (aws.security_groups.empty()) {
        tags.details.emplace_back("the cluster names no security group to tag");
      }
      tags.details.push_back(fmt::format("with {}={}", kDiscoveryTag, name));
    }
  }

  Step access = Make(4, "node role access");
  const std::string role_arn = NodeRoleArn(aws.cluster);
  const bool api = aws.cluster.authentication_mode == "API";
  if (aws.node_role_access_entry) {
    Set(access, StepState::kDone, "an EKS access entry admits " + role_arn);
  } else if (!api && cluster.aws_auth_maps_node_role) {
    Set(access, StepState::kDone, "aws-auth maps " + role_arn);
  } else if (api || aws.cluster.authentication_mode == "API_AND_CONFIG_MAP") {
    Set(access, StepState::kToDo,
        fmt::format("create an EKS access entry of type EC2_LINUX for {} (the authentication "
                    "mode is {})",
                    role_arn, aws.cluster.authentication_mode));
  } else {
    Set(access, StepState::kToDo,
        (cluster.aws_auth_exists
             ? fmt::format("add {} to aws-auth's mapRoles", role_arn)
             : fmt::format("create kube-system/aws-auth mapping {}", role_arn)) +
            " (karpenter iam aws-auth prints the entry)");
  }

  Step deploy = Make(5, "deploy Karpenter");
  if (!cluster.karpenter.empty()) {
    Set(deploy, StepState::kDone, "running: " + cluster.karpenter.front().Describe());
  } else if (plan.controller_node_group.empty()) {
    Set(deploy, StepState::kBlocked,
        "no untainted node group to run the controller on (it must not run on nodes it manages)");
  } else {
    Set(deploy, StepState::kToDo,
        "helm install the chart with the controller pinned to node group " +
            plan.controller_node_group);
  }

  Step pools = Make(6, "NodePool and EC2NodeClass");
  if (cluster.node_pools > 0) {
    Set(pools, StepState::kDone, fmt::format("{} NodePool(s) exist", cluster.node_pools));
  } else {
    Set(pools, StepState::kToDo, "apply the NodePools and EC2NodeClasses below");
  }

  Step pin = Make(7, "pin critical workloads");
  if (cluster.unpinned_add_ons.empty()) {
    Set(pin, StepState::kDone, "every Deployment of kube-system stays on a node group");
  } else {
    pin.state = plan.controller_node_group.empty() ? StepState::kBlocked : StepState::kToDo;
    for (const WorkloadRef& ref : cluster.unpinned_add_ons) {
      pin.details.push_back(fmt::format(
          "require {} onto node group {}", ref.Describe(),
          plan.controller_node_group.empty() ? "(none untainted)" : plan.controller_node_group));
    }
  }

  Step retire = Make(8, "retire Cluster Autoscaler");
  std::map<std::string, std::string, std::less<>> zone_of;
  for (const TaggedResource& subnet : aws.subnets) zone_of[subnet.id] = subnet.zone;
  for (const aws::EksNodegroup& group : aws.node_groups) {
    std::set<std::string> zones;
    for (const std::string& subnet : group.subnets) {
      if (const auto zone = zone_of.find(subnet); zone != zone_of.end()) zones.insert(zone->second);
    }
    const int64_t target = std::min<int64_t>(group.desired_size, zones.size() > 1 ? 2 : 1);
    plan.targets.push_back({group.name, group.desired_size, target});
  }
  for (const WorkloadRef& ref : cluster.cluster_autoscalers) {
    if (ref.replicas > 0) retire.details.push_back("scale " + ref.Describe() + " to 0 replicas");
  }
  if (!retire.details.empty() && !cluster.cluster_autoscaler_flags.empty()) {
    retire.details.push_back(
        fmt::format("(it manages: {})", fmt::join(cluster.cluster_autoscaler_flags, " ")));
  }
  for (const NodeGroupTarget& target : plan.targets) {
    if (target.desired > target.target) {
      retire.details.push_back(fmt::format("shrink node group {} from {} to {} nodes", target.name,
                                           target.desired, target.target));
    }
  }
  if (retire.details.empty()) {
    Set(retire, StepState::kDone,
        "Cluster Autoscaler runs no replica; node groups at their targets");
  } else {
    retire.state = StepState::kToDo;
  }
  for (const WorkloadRef& ref : cluster.pinned_workloads) {
    plan.warnings.push_back(fmt::format(
        "{} may only run on node groups: Karpenter's nodes cannot take its pods, which stay on "
        "the node groups as they shrink to their targets",
        ref.Describe()));
  }
  for (const WorkloadRef& ref : cluster.unprotected) {
    plan.warnings.push_back(fmt::format(
        "{} runs on node-group nodes without a PodDisruptionBudget: shrinking the node groups may "
        "take all its pods down at once",
        ref.Describe()));
  }

  plan.steps = {std::move(environment), std::move(roles), std::move(tags), std::move(access),
                std::move(deploy),      std::move(pools), std::move(pin),  std::move(retire)};
  Step verify = Make(9, "verify");
  const bool all_done = std::all_of(plan.steps.begin(), plan.steps.end(), [](const Step& step) {
    return step.state == StepState::kDone;
  });
  if (!all_done) {
    Set(verify, StepState::kToDo, "after the steps above");
  } else if (cluster.pending_pods > 0) {
    Set(verify, StepState::kToDo, fmt::format("{} pods are pending", cluster.pending_pods));
  } else if (cluster.karpenter_nodes == 0) {
    Set(verify, StepState::kToDo, "no node of Karpenter's has joined yet");
  } else {
    Set(verify, StepState::kDone,
        fmt::format("no pod pending; {} nodes of Karpenter's", cluster.karpenter_nodes));
  }
  plan.steps.push_back(std::move(verify));
  return plan;
}

Result<MigrationState> ReadMigrationState(aws::AwsClients& clients, kube::Client& cluster,
                                          const std::string& cluster_name) {
  MigrationState out;
  ASSIGN_OR_RETURN(out.aws, ReadAws(clients, cluster_name));
  ASSIGN_OR_RETURN(out.objects, ReadClusterObjects(cluster));
  ASSIGN_OR_RETURN(out.cluster, ReadCluster(out.objects, out.aws));
  out.plan = PlanMigration(out.aws, out.cluster);
  return out;
}

}  // namespace karpenter::migrate
