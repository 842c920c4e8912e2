#include "migrate/inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "api/labels.h"
#include "api/pod.h"
#include "aws/api/ec2_api.h"
#include "aws/api/events_api.h"
#include "aws/api/iam_api.h"
#include "aws/api/sqs_api.h"
#include "aws/api/ssm_api.h"
#include "common/document.h"
#include "kube/disruption_budget.h"
#include "kube/object.h"

namespace karpenter::migrate {
namespace {

using kube::Object;

// The seed's step 1: the AMI release the cluster version's recommended AL2023 image belongs to,
// from its name (amazon-eks-node-al2023-x86_64-standard-1.31-v20240807 → v20240807).
Result<std::string> AliasVersion(aws::AwsClients& clients, const std::string& kubernetes_version) {
  aws::SsmApi ssm(clients.ssm());
  const std::string parameter = fmt::format(
      "/aws/service/eks/optimized-ami/{}/amazon-linux-2023/x86_64/standard/recommended/image_id",
      kubernetes_version);
  ASSIGN_OR_RETURN(const std::string image_id, ssm.GetParameter(parameter));
  aws::Ec2Api ec2(clients.ec2());
  ASSIGN_OR_RETURN(const std::vector<aws::Image> images, ec2.DescribeImages({{}, {image_id}, {}}));
  if (images.empty()) {
    return Error(fmt::format("{} names {}, which EC2 does not describe", parameter, image_id));
  }
  const std::string& name = images.front().name;
  const size_t dash = name.rfind('-');
  if (dash == std::string::npos || dash + 1 >= name.size() || name[dash + 1] != 'v') {
    return Error(
        fmt::format("image {} ({}): its name ends in no release (v<date>)", image_id, name));
  }
  return name.substr(dash + 1);
}

Result<bool> RoleExists(aws::IamApi& iam, const std::string& name) {
  ASSIGN_OR_RETURN(const std::optional<aws::IamRole> role, iam.GetRole(name));
  return role.has_value();
}

int64_t ReplicasOf(const Object& workload) {
  const Object* replicas = kube::Find(workload, {"spec", "replicas"});
  return replicas != nullptr && replicas->is_number_integer() ? replicas->get<int64_t>() : 1;
}

WorkloadRef RefOf(std::string_view kind, const Object& object) {
  return {std::string(kind), std::string(kube::Namespace(object)), std::string(kube::Name(object)),
          ReplicasOf(object)};
}

// Whether a workload's pod template can only land on node-group nodes: a nodeSelector on the
// node-group label, or a required node affinity whose every term requires it.
bool PinnedToNodeGroup(const Object& workload) {
  const Object* pod = kube::Find(workload, {"spec", "template", "spec"});
  if (pod == nullptr) return false;
  if (!kube::StringAt(*pod, {"nodeSelector", kLabelNodeGroup}).empty()) return true;
  const Object* terms = kube::Find(
      *pod, {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  if (terms == nullptr) return false;
  const auto list = terms->find("nodeSelectorTerms");
  if (list == terms->end() || !list->is_array() || list->empty()) return false;
  return std::all_of(list->begin(), list->end(), [](const Object& term) {
    const auto expressions = term.find("matchExpressions");
    if (expressions == term.end() || !expressions->is_array()) return false;
    return std::any_of(expressions->begin(), expressions->end(), [](const Object& expression) {
      return kube::StringAt(expression, {"key"}) == kLabelNodeGroup &&
             kube::StringAt(expression, {"operator"}) == "In";
    });
  });
}

// The flags of Cluster Autoscaler's containers that name the node groups it manages.
std::vector<std::string> NodeGroupFlags(const Object& deployment) {
  std::vector<std::string> out;
  const Object* containers = kube::Find(deployment, {"spec", "template", "spec"});
  if (containers == nullptr) return out;
  const auto list = containers->find("containers");
  if (list == containers->end() || !list->is_array()) return out;
  for (const Object& container : *list) {
    for (const char* field : {"command", "args"}) {
      const auto args = container.find(field);
      if (args == container.end() || !args->is_array()) continue;
      for (const Object& arg : *args) {
        if (!arg.is_string()) continue;
        const std::string& text = arg.get_ref<const std::string&>();
        if (text.starts_with("--nodes=") || text.starts_with("--node-group-auto-discovery=")) {
          out.push_back(text);
        }
      }
    }
  }
  return out;
}

// Whether aws-auth's mapRoles (YAML text) maps `role_arn`.
Result<bool> MapsRole(std::string_view map_roles, const std::string& role_arn) {
  ASSIGN_OR_RETURN(const std::vector<Document> documents,
                   ParseDocuments(map_roles, "configmap kube-system/aws-auth data.mapRoles"));
  for (const Document& document : documents) {
    if (!document.value.is_array()) continue;
    for (const Json& entry : document.value) {
      if (kube::StringAt(entry, {"rolearn"}) == role_arn) return true;
    }
  }
  return false;
}

// The detail-types of the events EventBridge sends to the queue named after the cluster.
Result<std::vector<std::string>> InterruptionEvents(aws::AwsClients& clients,
                                                    const aws::EksCluster& cluster) {
  const aws::iam::PolicyInputs inputs = PolicyInputsOf(cluster);
  aws::EventsApi events(clients.events());
  ASSIGN_OR_RETURN(
      const std::vector<std::string> rules,
      events.ListRuleNamesByTarget(fmt::format("arn:{}:sqs:{}:{}:{}", inputs.partition,
                                               clients.region(), inputs.account, cluster.name)));
  std::set<std::string> types;
  for (const std::string& rule : rules) {
    ASSIGN_OR_RETURN(const Json pattern, events.DescribeRulePattern(rule));
    const Object* detail_types = kube::Find(pattern, {"detail-type"});
    if (detail_types == nullptr || !detail_types->is_array()) continue;
    for (const Json& type : *detail_types) {
      if (type.is_string()) types.insert(type.get<std::string>());
    }
  }
  return std::vector<std::string>(types.begin(), types.end());
}

TaggedResource Tagged(std::string id, std::string zone, const aws::Ec2Tags& tags,
                      const std::string& cluster_name) {
  TaggedResource out{std::move(id), std::move(zone), false, ""};
  if (const auto tag = tags.find(std::string(kDiscoveryTag)); tag != tags.end()) {
    out.tagged = tag->second == cluster_name;
    if (!out.tagged) out.other_cluster = tag->second;
  }
  return out;
}

}  // namespace

Arn ParseArn(std::string_view text) {
  std::vector<std::string> fields;
  for (int i = 0; i < 5; ++i) {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos) return {};
    fields.emplace_back(text.substr(0, colon));
    text.remove_prefix(colon + 1);
  }
  if (fields[0] != "arn") return {};
  return {fields[1], fields[2], fields[3], fields[4], std::string(text)};
}

aws::iam::PolicyInputs PolicyInputsOf(const aws::EksCluster& cluster) {
  const Arn arn = ParseArn(cluster.arn);
  aws::iam::PolicyInputs out;
  if (!arn.partition.empty()) out.partition = arn.partition;
  out.region = arn.region;
  out.account = arn.account;
  out.cluster_name = cluster.name;
  return out;
}

std::string NodeRoleArn(const aws::EksCluster& cluster) {
  const aws::iam::PolicyInputs inputs = PolicyInputsOf(cluster);
  return fmt::format("arn:{}:iam::{}:role/{}", inputs.partition, inputs.account,
                     aws::iam::NodeRoleName(inputs));
}

Result<AwsInventory> ReadAws(aws::AwsClients& clients, const std::string& cluster_name) {
  AwsInventory out;
  out.region = clients.region();
  aws::EksApi eks(clients.eks());
  ASSIGN_OR_RETURN(out.cluster, eks.DescribeCluster(cluster_name));
  ASSIGN_OR_RETURN(const std::vector<std::string> names, eks.ListNodegroups(cluster_name));
  for (const std::string& name : names) {
    ASSIGN_OR_RETURN(aws::EksNodegroup group, eks.DescribeNodegroup(cluster_name, name));
    out.node_groups.push_back(std::move(group));
  }
  std::sort(out.node_groups.begin(), out.node_groups.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });

  // An AMI release that cannot be read leaves the alias at "latest"; the plan says why.
  Result<std::string> alias = AliasVersion(clients, out.cluster.version);
  if (alias.ok()) {
    out.alias_version = *alias;
  } else {
    out.alias_problem = alias.error().message;
  }

  if (out.cluster.authentication_mode != "CONFIG_MAP") {
    ASSIGN_OR_RETURN(const std::vector<std::string> entries, eks.ListAccessEntries(cluster_name));
    const std::string role_arn = NodeRoleArn(out.cluster);
    out.node_role_access_entry =
        std::find(entries.begin(), entries.end(), role_arn) != entries.end();
  }

  aws::SqsApi sqs(clients.sqs());
  if (Result<std::string> queue = sqs.GetQueueUrl(cluster_name); queue.ok()) {
    out.interruption_queue = true;
    ASSIGN_OR_RETURN(out.interruption_events, InterruptionEvents(clients, out.cluster));
  } else if (queue.error().reason.find("NonExistentQueue") == std::string::npos &&
             queue.error().reason != "QueueDoesNotExist") {
    return queue.error();
  }

  aws::IamApi iam(clients.iam());
  ASSIGN_OR_RETURN(out.node_role_exists, RoleExists(iam, "KarpenterNodeRole-" + cluster_name));
  ASSIGN_OR_RETURN(out.controller_role_exists,
                   RoleExists(iam, "KarpenterControllerRole-" + cluster_name));

  aws::Ec2Api ec2(clients.ec2());
  std::set<std::string> subnet_ids;
  for (const aws::EksNodegroup& group : out.node_groups) {
    subnet_ids.insert(group.subnets.begin(), group.subnets.end());
  }
  if (!subnet_ids.empty()) {
    ASSIGN_OR_RETURN(const std::vector<aws::Subnet> subnets,
                     ec2.DescribeSubnets({{"subnet-id", {subnet_ids.begin(), subnet_ids.end()}}}));
    for (const aws::Subnet& subnet : subnets) {
      out.subnets.push_back(Tagged(subnet.subnet_id, subnet.zone, subnet.tags, cluster_name));
    }
  }
  std::set<std::string> group_ids(out.cluster.security_group_ids.begin(),
                                  out.cluster.security_group_ids.end());
  if (!out.cluster.cluster_security_group_id.empty()) {
    group_ids.insert(out.cluster.cluster_security_group_id);
  }
  if (!group_ids.empty()) {
    ASSIGN_OR_RETURN(
        const std::vector<aws::SecurityGroup> groups,
        ec2.DescribeSecurityGroups({{"group-id", {group_ids.begin(), group_ids.end()}}}));
    for (const aws::SecurityGroup& group : groups) {
      out.security_groups.push_back(Tagged(group.group_id, "", group.tags, cluster_name));
    }
  }
  return out;
}

Result<ClusterObjects> ReadClusterObjects(kube::Client& client) {
  ClusterObjects out;
  Result<Object> aws_auth = client.Get(kube::resources::kConfigMaps, "kube-system", "aws-auth");
  if (aws_auth.ok()) {
    out.aws_auth = std::move(*aws_auth);
  } else if (aws_auth.error().status != 404) {
    return Error("reading configmap kube-system/aws-auth: " + aws_auth.error().message);
  }
  for (auto [resource, list] : {std::pair{&kube::resources::kNodes, &out.nodes},
                                std::pair{&kube::resources::kPods, &out.pods},
                                std::pair{&kube::resources::kPodDisruptionBudgets, &out.budgets},
                                std::pair{&kube::resources::kDeployments, &out.deployments},
                                std::pair{&kube::resources::kReplicaSets, &out.replica_sets},
                                std::pair{&kube::resources::kStatefulSets, &out.stateful_sets},
                                std::pair{&kube::resources::kDaemonSets, &out.daemon_sets},
                                std::pair{&kube::resources::kJobs, &out.jobs},
                                std::pair{&kube::resources::kNodePools, &out.node_pools},
                                std::pair{&kube::resources::kEC2NodeClasses, &out.node_classes},
                                std::pair{&kube::resources::kNodeClaims, &out.node_claims}}) {
    Result<kube::ObjectList> listed = client.List(*resource, {});
    if (!listed.ok()) {
      // Karpenter's kinds are absent until its CRDs are installed.
      if (listed.error().status == 404 && resource->group.starts_with("karpenter")) continue;
      return Error(fmt::format("listing {}: {}", resource->plural, listed.error().message));
    }
    *list = std::move(listed->items);
  }
  return out;
}

Result<ClusterInventory> ReadCluster(const ClusterObjects& objects, const AwsInventory& aws) {
  ClusterInventory out;
  if (objects.aws_auth) {
    out.aws_auth_exists = true;
    ASSIGN_OR_RETURN(out.aws_auth_maps_node_role,
                     MapsRole(kube::StringAt(*objects.aws_auth, {"data", "mapRoles"}),
                              NodeRoleArn(aws.cluster)));
  }
  out.node_pools = static_cast<int64_t>(objects.node_pools.size());

  std::map<std::string, int64_t> replicas;  // of each Deployment, by namespace/name
  for (const kube::SharedObject& deployment : objects.deployments) {
    replicas[kube::Key(*deployment)] = ReplicasOf(*deployment);
    if (kube::Label(*deployment, "app.kubernetes.io/name") == "karpenter") {
      out.karpenter.push_back(RefOf("Deployment", *deployment));
    } else if (kube::Name(*deployment).find("cluster-autoscaler") != std::string_view::npos) {
      out.cluster_autoscalers.push_back(RefOf("Deployment", *deployment));
      for (std::string& flag : NodeGroupFlags(*deployment)) {
        out.cluster_autoscaler_flags.push_back(std::move(flag));
      }
    } else if (kube::Namespace(*deployment) == "kube-system") {
      if (!PinnedToNodeGroup(*deployment)) {
        out.unpinned_add_ons.push_back(RefOf("Deployment", *deployment));
      }
    } else if (PinnedToNodeGroup(*deployment)) {
      out.pinned_workloads.push_back(RefOf("Deployment", *deployment));
    }
  }
  for (const kube::SharedObject& stateful_set : objects.stateful_sets) {
    if (kube::Namespace(*stateful_set) != "kube-system" && PinnedToNodeGroup(*stateful_set)) {
      out.pinned_workloads.push_back(RefOf("StatefulSet", *stateful_set));
    }
  }

  std::set<std::string, std::less<>> node_group_nodes;
  for (const kube::SharedObject& node : objects.nodes) {
    if (!kube::Label(*node, kLabelNodeGroup).empty()) {
      node_group_nodes.insert(std::string(kube::Name(*node)));
    }
    if (!kube::Label(*node, api::kLabelNodePool).empty()) ++out.karpenter_nodes;
  }
  // A budget selects pods of its own namespace only.
  std::map<std::string_view, std::vector<const Object*>> budgets;
  for (const kube::SharedObject& budget : objects.budgets) {
    budgets[kube::Namespace(*budget)].push_back(budget.get());
  }
  std::map<std::string, std::string> deployment_of_replica_set;  // namespace/name → its name
  for (const kube::SharedObject& replica_set : objects.replica_sets) {
    const Object* owner = kube::ControllerOwner(*replica_set);
    if (owner != nullptr && kube::StringAt(*owner, {"kind"}) == "Deployment") {
      deployment_of_replica_set[kube::Key(*replica_set)] = kube::StringAt(*owner, {"name"});
    }
  }

  std::set<std::string> unprotected;
  for (const kube::SharedObject& pod : objects.pods) {
    const std::string_view phase = kube::StringAt(*pod, {"status", "phase"});
    if (phase == "Succeeded" || phase == "Failed") continue;
    const std::string_view node = kube::StringAt(*pod, {"spec", "nodeName"});
    if (node.empty()) {
      ++out.pending_pods;
      continue;
    }
    // Pods that stay with their node (DaemonSets', static pods) do not move when it goes.
    if (!node_group_nodes.contains(node) || kube::ControllerKind(*pod) == "DaemonSet" ||
        !kube::Annotation(*pod, api::kAnnotationMirrorPod).empty()) {
      continue;
    }
    if (const auto candidates = budgets.find(kube::Namespace(*pod));
        candidates != budgets.end() &&
        std::any_of(candidates->second.begin(), candidates->second.end(),
                    [&](const Object* budget) { return kube::SelectsPod(*budget, *pod); })) {
      continue;
    }
    WorkloadRef ref{"Pod", std::string(kube::Namespace(*pod)), std::string(kube::Name(*pod)), 1};
    if (const Object* owner = kube::ControllerOwner(*pod)) {
      ref.kind = kube::StringAt(*owner, {"kind"});
      ref.name = kube::StringAt(*owner, {"name"});
    }
    if (const auto deployment = deployment_of_replica_set.find(kube::Key(ref.namespace_, ref.name));
        ref.kind == "ReplicaSet" && deployment != deployment_of_replica_set.end()) {
      ref.kind = "Deployment";
      ref.name = deployment->second;
      if (const auto known = replicas.find(kube::Key(ref.namespace_, ref.name));
          known != replicas.end()) {
        ref.replicas = known->second;
      }
    }
    // Cluster Autoscaler is scaled to 0 before any node group shrinks.
    const bool autoscaler =
        ref.kind == "Deployment" &&
        std::any_of(out.cluster_autoscalers.begin(), out.cluster_autoscalers.end(),
                    [&](const WorkloadRef& cas) {
                      return cas.namespace_ == ref.namespace_ && cas.name == ref.name;
                    });
    if (!autoscaler && unprotected.insert(ref.Describe()).second) {
      out.unprotected.push_back(std::move(ref));
    }
  }
  return out;
}

}  // namespace karpenter::migrate
