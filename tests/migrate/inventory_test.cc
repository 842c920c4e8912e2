// The cluster side of `karpenter migrate plan`'s inventory, read from the in-memory API server:
// aws-auth's mapping of the node role, Karpenter and Cluster Autoscaler, the add-ons of kube-system
// that are not pinned to a node group, the owners of pods on node-group nodes that no
// PodDisruptionBudget covers, pending pods.

#include "migrate/inventory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/clock.h"
#include "kube/memory/memory_client.h"
#include "migrate/workload_objects.h"
#include "support/matchers.h"

namespace karpenter::migrate {
namespace {

using kube::Object;
using testing::Deployment;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

aws::EksCluster Cluster() {
  aws::EksCluster cluster;
  cluster.name = "prod";
  cluster.arn = "arn:aws:eks:us-west-2:111122223333:cluster/prod";
  return cluster;
}

Object AwsAuth(std::string_view map_roles) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", "aws-auth"}, {"namespace", "kube-system"}}},
          {"data", {{"mapRoles", map_roles}}}};
}

Object Node(std::string_view name, Object labels) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", std::move(labels)}}}};
}

// A pod of `app` on `node` ("" for pending), owned by `owner_kind`/`owner`.
Object Pod(std::string_view name, std::string_view app, std::string_view node,
           std::string_view owner_kind, std::string_view owner) {
  Object pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", "default"},
        {"labels", {{"app", app}}},
        {"ownerReferences",
         {{{"apiVersion", "apps/v1"},
           {"kind", owner_kind},
           {"name", owner},
           {"uid", std::string(owner) + "-uid"},
           {"controller", true}}}}}},
      {"spec", {{"containers", {{{"name", "main"}, {"image", "registry.k8s.io/pause:3.10"}}}}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

TEST(ParseArnTest, ReadsEachFieldAndRefusesWhatIsNotAnArn) {
  const Arn role = ParseArn("arn:aws-cn:iam::111122223333:role/path/KarpenterNodeRole-prod");
  EXPECT_EQ(role.partition, "aws-cn");
  EXPECT_EQ(role.service, "iam");
  EXPECT_EQ(role.region, "");
  EXPECT_EQ(role.account, "111122223333");
  EXPECT_EQ(role.resource, "role/path/KarpenterNodeRole-prod");
  EXPECT_EQ(ParseArn("arn:aws:eks:us-west-2:111122223333:cluster/prod").region, "us-west-2");
  EXPECT_EQ(ParseArn("not:an:arn:at:all:x").partition, "");
  EXPECT_EQ(ParseArn("arn:aws:eks").account, "");
}

class ReadClusterTest : public ::testing::Test {
 protected:
  void Create(const kube::Resource& resource, const Object& object) {
    ASSERT_THAT(client_.Create(resource, object, {}), IsOk()) << object.dump();
  }

  // The inventory of what the in-memory API server holds.
  Result<ClusterInventory> ReadCluster(const AwsInventory& aws) {
    ASSIGN_OR_RETURN(const ClusterObjects objects, ReadClusterObjects(client_));
    return migrate::ReadCluster(objects, aws);
  }

  RealClock clock_;
  kube::memory::MemoryClient client_{clock_};
};

TEST_F(ReadClusterTest, AnEmptyClusterHasNothingDone) {
  AwsInventory aws;
  aws.cluster = Cluster();
  Result<ClusterInventory> read = ReadCluster(aws);
  ASSERT_THAT(read, IsOk());
  EXPECT_FALSE(read->aws_auth_exists);
  EXPECT_FALSE(read->aws_auth_maps_node_role);
  EXPECT_THAT(read->karpenter, IsEmpty());
  EXPECT_EQ(read->node_pools, 0);
  EXPECT_EQ(read->pending_pods, 0);
}

TEST_F(ReadClusterTest, ReadsWhatTheStepsDependOn) {
  AwsInventory aws;
  aws.cluster = Cluster();
  EXPECT_EQ(NodeRoleArn(aws.cluster), "arn:aws:iam::111122223333:role/KarpenterNodeRole-prod");
  Create(kube::resources::kConfigMaps,
         AwsAuth("- rolearn: arn:aws:iam::111122223333:role/eks-nodegroup\n"
                 "  username: system:node:{{EC2PrivateDNSName}}\n"
                 "  groups: [system:bootstrappers, system:nodes]\n"
                 "- rolearn: arn:aws:iam::111122223333:role/KarpenterNodeRole-prod\n"
                 "  username: system:node:{{EC2PrivateDNSName}}\n"
                 "  groups: [system:bootstrappers, system:nodes]\n"));
  Create(kube::resources::kDeployments, Deployment("kube-system", "karpenter", 2, Object::object(),
                                                   {{"app.kubernetes.io/name", "karpenter"}}));
  Create(kube::resources::kDeployments, Deployment("kube-system", "cluster-autoscaler", 1));
  const Object pinned = {{"affinity",
                          {{"nodeAffinity",
                            {{"requiredDuringSchedulingIgnoredDuringExecution",
                              {{"nodeSelectorTerms",
                                {{{"matchExpressions",
                                   {{{"key", std::string(kLabelNodeGroup)},
                                     {"operator", "In"},
                                     {"values", {"general"}}}}}}}}}}}}}}};
  Create(kube::resources::kDeployments, Deployment("kube-system", "coredns", 2, pinned));
  Create(kube::resources::kDeployments, Deployment("kube-system", "metrics-server", 1));
  Create(kube::resources::kDeployments, Deployment("default", "web", 2));
  Create(kube::resources::kDeployments, Deployment("default", "api", 1));
  Create(
      kube::resources::kReplicaSets,
      {{"apiVersion", "apps/v1"},
       {"kind", "ReplicaSet"},
       {"metadata",
        {{"name", "web-5d8f7"},
         {"namespace", "default"},
         {"ownerReferences",
          {{{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"name", "web"},
            {"uid", "web-uid"},
            {"controller", true}}}}}},
       {"spec",
        {{"selector", {{"matchLabels", {{"app", "web"}}}}},
         {"template",
          {{"metadata", {{"labels", {{"app", "web"}}}}},
           {"spec",
            {{"containers", {{{"name", "main"}, {"image", "registry.k8s.io/pause:3.10"}}}}}}}}}}});
  Create(kube::resources::kPodDisruptionBudgets,
         {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", {{"name", "api"}, {"namespace", "default"}}},
          {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app", "api"}}}}}}}});
  Create(kube::resources::kNodes, Node("ng-1", {{std::string(kLabelNodeGroup), "general"}}));
  Create(kube::resources::kNodes, Node("kp-1", {{"karpenter.sh/nodepool", "default"}}));
  Create(kube::resources::kPods, Pod("web-1", "web", "ng-1", "ReplicaSet", "web-5d8f7"));
  Create(kube::resources::kPods, Pod("web-2", "web", "ng-1", "ReplicaSet", "web-5d8f7"));
  Create(kube::resources::kPods, Pod("api-1", "api", "ng-1", "ReplicaSet", "api-77c4"));
  Create(kube::resources::kPods, Pod("agent-1", "agent", "ng-1", "DaemonSet", "agent"));
  Create(kube::resources::kPods, Pod("batch-1", "batch", "kp-1", "Job", "batch"));
  Create(kube::resources::kPods, Pod("web-3", "web", "", "ReplicaSet", "web-5d8f7"));
  // Cluster Autoscaler's own pod needs no budget: it is scaled to 0 before any node group shrinks.
  Object autoscaler_set = {
      {"apiVersion", "apps/v1"},
      {"kind", "ReplicaSet"},
      {"metadata",
       {{"name", "cluster-autoscaler-6b9"},
        {"namespace", "kube-system"},
        {"ownerReferences",
         {{{"apiVersion", "apps/v1"},
           {"kind", "Deployment"},
           {"name", "cluster-autoscaler"},
           {"uid", "cas-uid"},
           {"controller", true}}}}}},
      {"spec",
       {{"selector", {{"matchLabels", {{"app", "cas"}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "cas"}}}}},
          {"spec",
           {{"containers", {{{"name", "main"}, {"image", "registry.k8s.io/pause:3.10"}}}}}}}}}}};
  Create(kube::resources::kReplicaSets, autoscaler_set);
  Object autoscaler_pod = Pod("cas-1", "cas", "ng-1", "ReplicaSet", "cluster-autoscaler-6b9");
  autoscaler_pod["metadata"]["namespace"] = "kube-system";
  Create(kube::resources::kPods, autoscaler_pod);

  Result<ClusterInventory> read = ReadCluster(aws);
  ASSERT_THAT(read, IsOk());
  EXPECT_TRUE(read->aws_auth_exists);
  EXPECT_TRUE(read->aws_auth_maps_node_role);
  ASSERT_EQ(read->karpenter.size(), 1);
  EXPECT_EQ(read->karpenter[0].Describe(), "Deployment kube-system/karpenter");
  ASSERT_EQ(read->cluster_autoscalers.size(), 1);
  EXPECT_EQ(read->cluster_autoscalers[0].replicas, 1);
  ASSERT_EQ(read->unpinned_add_ons.size(), 1);
  EXPECT_EQ(read->unpinned_add_ons[0].Describe(), "Deployment kube-system/metrics-server");
  // web's pods (through their ReplicaSet) have no budget; api's have one; the DaemonSet's pod stays
  // with its node; the Job's pod is on Karpenter's node.
  std::vector<std::string> unprotected;
  for (const WorkloadRef& ref : read->unprotected) unprotected.push_back(ref.Describe());
  EXPECT_THAT(unprotected, ElementsAre("Deployment default/web"));
  EXPECT_EQ(read->unprotected[0].replicas, 2);
  EXPECT_EQ(read->pending_pods, 1);
  EXPECT_EQ(read->karpenter_nodes, 1);
}

TEST_F(ReadClusterTest, ReadsWhatClusterAutoscalerManagesAndWhatOnlyNodeGroupsMayRun) {
  AwsInventory aws;
  aws.cluster = Cluster();
  Object autoscaler = Deployment("kube-system", "cluster-autoscaler", 1);
  autoscaler["spec"]["template"]["spec"]["containers"][0]["command"] = {
      "./cluster-autoscaler", "--cloud-provider=aws", "--nodes=1:10:eks-general-0a1b",
      "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled"};
  Create(kube::resources::kDeployments, autoscaler);
  const Object on_group = {{"nodeSelector", {{std::string(kLabelNodeGroup), "general"}}}};
  Create(kube::resources::kDeployments, Deployment("default", "ledger", 2, on_group));
  Create(kube::resources::kDeployments, Deployment("default", "web", 2));
  Object database = Deployment("default", "db", 1, on_group);
  database["kind"] = "StatefulSet";
  database["spec"]["serviceName"] = "db";
  Create(kube::resources::kStatefulSets, database);
  Result<ClusterInventory> read = ReadCluster(aws);
  ASSERT_THAT(read, IsOk());
  EXPECT_THAT(read->cluster_autoscaler_flags,
              ElementsAre("--nodes=1:10:eks-general-0a1b",
                          "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled"));
  std::vector<std::string> pinned;
  for (const WorkloadRef& ref : read->pinned_workloads) pinned.push_back(ref.Describe());
  EXPECT_THAT(pinned, ElementsAre("Deployment default/ledger", "StatefulSet default/db"));
}

TEST_F(ReadClusterTest, AnotherRoleInAwsAuthIsNotTheNodeRole) {
  AwsInventory aws;
  aws.cluster = Cluster();
  Create(kube::resources::kConfigMaps,
         AwsAuth("- rolearn: arn:aws:iam::111122223333:role/KarpenterNodeRole-prod-old\n"
                 "  username: system:node:{{EC2PrivateDNSName}}\n"));
  Result<ClusterInventory> read = ReadCluster(aws);
  ASSERT_THAT(read, IsOk());
  EXPECT_TRUE(read->aws_auth_exists);
  EXPECT_FALSE(read->aws_auth_maps_node_role);
}

TEST_F(ReadClusterTest, MalformedMapRolesNamesTheConfigMap) {
  AwsInventory aws;
  aws.cluster = Cluster();
  Create(kube::resources::kConfigMaps, AwsAuth("- rolearn: [unclosed\n"));
  Result<ClusterInventory> read = ReadCluster(aws);
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.error().message, ::testing::HasSubstr("kube-system/aws-auth"));
}

}  // namespace
}  // namespace karpenter::migrate
