#pragma once
// What `karpenter migrate plan` reads before it decides anything, and never writes: the AWS side —
// the EKS cluster and its managed node groups, the AMI release the cluster's version recommends
// (the seed's ALIAS_VERSION), the IAM roles the seed creates, the karpenter.sh/discovery tags of
// the node groups' subnets and the cluster's security groups, the node role's access entry, the
// interruption queue — and
// the cluster side: aws-auth, Karpenter's Deployment and NodePools, Cluster Autoscaler, the add-ons
// in kube-system, workloads only node groups may run, the pods on node-group nodes that no
// PodDisruptionBudget covers, pending pods.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/api/eks_api.h"
#include "aws/iam/controller_policy.h"
#include "common/result.h"
#include "kube/client.h"

namespace karpenter::migrate {

// The label EKS puts on the nodes of a managed node group.
inline constexpr std::string_view kLabelNodeGroup = "eks.amazonaws.com/nodegroup";
// The tag the seed's EC2NodeClass selects subnets and security groups by.
inline constexpr std::string_view kDiscoveryTag = "karpenter.sh/discovery";

struct TaggedResource {
  std::string id;
  std::string zone;     // subnets only
  bool tagged = false;  // carries karpenter.sh/discovery=<cluster>
  // The tag's value when it names another cluster: one tag key cannot discover it for both.
  std::string other_cluster;
};

struct AwsInventory {
  std::string region;
  aws::EksCluster cluster;
  std::vector<aws::EksNodegroup> node_groups;  // by name
  std::string alias_version;  // "v20240807"; "" when it could not be read (alias_problem says why)
  std::string alias_problem;
  bool node_role_exists = false;        // KarpenterNodeRole-<cluster>
  bool controller_role_exists = false;  // KarpenterControllerRole-<cluster>
  // An EKS access entry for the node role (read when the authentication mode is not CONFIG_MAP).
  bool node_role_access_entry = false;
  // An SQS queue named after the cluster: the seed's settings.interruptionQueue.
  bool interruption_queue = false;
  // The detail-types of the events the EventBridge rules that target the queue match.
  std::vector<std::string> interruption_events;
  std::vector<TaggedResource> subnets;          // the node groups'
  std::vector<TaggedResource> security_groups;  // the cluster's
};

// A Deployment, StatefulSet or other owner of pods, "Kind namespace/name".
struct WorkloadRef {
  std::string kind;
  std::string namespace_;
  std::string name;
  int64_t replicas = 0;
  std::string Describe() const { return kind + " " + namespace_ + "/" + name; }
};

struct ClusterInventory {
  bool aws_auth_exists = false;
  bool aws_auth_maps_node_role = false;  // mapRoles has KarpenterNodeRole-<cluster>'s ARN
  std::vector<WorkloadRef> karpenter;    // Deployments labelled app.kubernetes.io/name=karpenter
  int64_t node_pools = 0;
  std::vector<WorkloadRef> cluster_autoscalers;  // Deployments named *cluster-autoscaler*
  // Their flags that say which node groups they manage (--nodes=…, --node-group-auto-discovery=…).
  std::vector<std::string> cluster_autoscaler_flags;
  // Deployments of kube-system (coredns, metrics-server, …) not required onto a node group.
  std::vector<WorkloadRef> unpinned_add_ons;
  // Deployments and StatefulSets outside kube-system whose pods may only run on node groups (a
  // nodeSelector or required node affinity on eks.amazonaws.com/nodegroup): Karpenter's nodes
  // cannot take them, so they stay as the node groups shrink.
  std::vector<WorkloadRef> pinned_workloads;
  // Owners of pods on node-group nodes that no PodDisruptionBudget selects: shrinking the node
  // groups may take all their pods down at once.
  std::vector<WorkloadRef> unprotected;
  int64_t pending_pods = 0;
  int64_t karpenter_nodes = 0;  // Nodes labelled karpenter.sh/nodepool
};

// arn:<partition>:<service>:<region>:<account>:<resource>; every field empty for a text that is not
// an ARN.
struct Arn {
  std::string partition;
  std::string service;
  std::string region;
  std::string account;
  std::string resource;  // "cluster/prod", "role/KarpenterNodeRole-prod", …
};
Arn ParseArn(std::string_view text);

// The partition, region, account and name of the cluster (from its ARN), as `karpenter iam` takes
// them.
aws::iam::PolicyInputs PolicyInputsOf(const aws::EksCluster& cluster);
// The ARN of the seed's node role in the cluster's account and partition.
std::string NodeRoleArn(const aws::EksCluster& cluster);

// The cluster's objects, listed once: the inventory and the forecast both read them.
struct ClusterObjects {
  std::optional<kube::Object> aws_auth;  // kube-system/aws-auth, when there is one
  std::vector<kube::SharedObject> nodes;
  std::vector<kube::SharedObject> pods;
  std::vector<kube::SharedObject> budgets;  // PodDisruptionBudgets
  std::vector<kube::SharedObject> deployments;
  std::vector<kube::SharedObject> replica_sets;
  std::vector<kube::SharedObject> stateful_sets;
  std::vector<kube::SharedObject> daemon_sets;
  std::vector<kube::SharedObject> jobs;
  std::vector<kube::SharedObject> node_pools;    // empty when Karpenter's CRDs are not installed
  std::vector<kube::SharedObject> node_classes;  // EC2NodeClasses, likewise
  std::vector<kube::SharedObject> node_claims;   // NodeClaims, likewise
};

// Errors name the call and AWS's reason (an unknown cluster, a refused call).
Result<AwsInventory> ReadAws(aws::AwsClients& clients, const std::string& cluster_name);
// Errors name what could not be read.
Result<ClusterObjects> ReadClusterObjects(kube::Client& client);
// Errors: an aws-auth mapRoles that is not YAML.
Result<ClusterInventory> ReadCluster(const ClusterObjects& objects, const AwsInventory& aws);

}  // namespace karpenter::migrate
