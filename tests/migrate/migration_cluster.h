#pragma once
// A cluster of its own for each `karpenter migrate apply` test, made in moto through AWS's APIs (so
// tests can change and roll it back without touching the seeded account): a VPC with two subnets in
// two zones and a security group, none tagged for discovery; the seed's two roles; an EKS cluster
// in the given authentication mode with a managed node group `general` of 3 nodes over both
// subnets. And its Kubernetes side in an in-memory API server, as a cluster that runs Cluster
// Autoscaler and has just installed Karpenter has it: the node group's nodes, Cluster Autoscaler,
// coredns with a PodDisruptionBudget, Karpenter's Deployment, aws-auth mapping the node group's
// role.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/api/ec2_api.h"
#include "aws/api/eks_api.h"
#include "aws/api/iam_api.h"
#include "aws/sdk/query_protocol.h"
#include "common/json.h"
#include "common/result.h"
#include "kube/client.h"
#include "kube/object.h"
#include "migrate/inventory.h"
#include "migrate/workload_objects.h"

namespace karpenter::migrate::testing {

struct MigrationCluster {
  std::string name;
  std::vector<std::string> subnets;
  std::string security_group;
  std::string node_group_role;  // the node group's role ARN (aws-auth maps it)
};

inline Result<std::string> QueryText(aws::ServiceClient& client, const aws::QueryRequest& request,
                                     std::initializer_list<std::string_view> path,
                                     std::string_view field) {
  ASSIGN_OR_RETURN(const aws::XmlDocument document, aws::CallQuery(client, request));
  aws::XmlElement element = document.root();
  for (const std::string_view child : path) element = element.Child(child);
  return element.Text(field);
}

inline Result<Json> PostEks(aws::ServiceClient& eks, std::string operation, std::string path,
                            const Json& body) {
  aws::HttpRequest request;
  request.method = "POST";
  request.path = std::move(path);
  request.headers.emplace_back("Content-Type", "application/json");
  request.body = body.dump();
  ASSIGN_OR_RETURN(const aws::HttpResponse response, eks.Call(operation, request));
  return Json::parse(response.body);
}

// Makes the AWS side; `mode` is the cluster's authentication mode.
inline Result<MigrationCluster> CreateMigrationCluster(aws::AwsClients& clients,
                                                       const std::string& name,
                                                       const std::string& mode,
                                                       const std::vector<std::string>& zones) {
  MigrationCluster out;
  out.name = name;
  ASSIGN_OR_RETURN(
      const std::string vpc,
      QueryText(clients.ec2(),
                aws::QueryRequest("CreateVpc", "2016-11-15").Add("CidrBlock", "10.9.0.0/16"),
                {"vpc"}, "vpcId"));
  for (size_t i = 0; i < zones.size(); ++i) {
    ASSIGN_OR_RETURN(std::string subnet,
                     QueryText(clients.ec2(),
                               aws::QueryRequest("CreateSubnet", "2016-11-15")
                                   .Add("VpcId", vpc)
                                   .Add("CidrBlock", "10.9." + std::to_string(i) + ".0/24")
                                   .Add("AvailabilityZone", zones[i]),
                               {"subnet"}, "subnetId"));
    out.subnets.push_back(std::move(subnet));
  }
  ASSIGN_OR_RETURN(out.security_group,
                   QueryText(clients.ec2(),
                             aws::QueryRequest("CreateSecurityGroup", "2016-11-15")
                                 .Add("GroupName", name + "-nodes")
                                 .Add("GroupDescription", "EKS nodes")
                                 .Add("VpcId", vpc),
                             {}, "groupId"));
  const std::string trust =
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow",)"
      R"("Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]})";
  // The node groups' role; Karpenter's two roles are step 2's to make.
  ASSIGN_OR_RETURN(const std::string node_role,
                   QueryText(clients.iam(),
                             aws::QueryRequest("CreateRole", "2010-05-08")
                                 .Add("RoleName", "eks-nodegroup-" + name)
                                 .Add("AssumeRolePolicyDocument", trust),
                             {"CreateRoleResult", "Role"}, "Arn"));
  out.node_group_role = node_role;
  RETURN_IF_ERROR(
      PostEks(clients.eks(), "CreateCluster", "/clusters",
              {{"name", name},
               {"version", "1.31"},
               {"roleArn", node_role},
               {"resourcesVpcConfig",
                {{"subnetIds", out.subnets}, {"securityGroupIds", {out.security_group}}}},
               {"accessConfig", {{"authenticationMode", mode}}}}));
  RETURN_IF_ERROR(
      PostEks(clients.eks(), "CreateNodegroup", "/clusters/" + name + "/node-groups",
              {{"nodegroupName", "general"},
               {"nodeRole", node_role},
               {"subnets", out.subnets},
               {"instanceTypes", {"m5.xlarge"}},
               {"capacityType", "ON_DEMAND"},
               {"amiType", "AL2023_x86_64_STANDARD"},
               {"scalingConfig", {{"minSize", 3}, {"maxSize", 6}, {"desiredSize", 3}}}}));
  return out;
}

inline kube::Object Pod(std::string_view namespace_, std::string_view name, std::string_view app,
                        std::string_view node) {
  kube::Object pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", namespace_}, {"labels", {{"app", app}}}}},
      {"spec", {{"containers", {{{"name", "main"}, {"image", "registry.k8s.io/pause:3.10"}}}}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

inline std::string NodeName(const std::string& group, int i) {
  return group + "-node-" + std::to_string(i);
}

// The Kubernetes side. Errors name the object that could not be made.
inline Status CreateClusterObjects(kube::Client& client, const MigrationCluster& cluster) {
  auto create = [&](const kube::Resource& resource, const kube::Object& object) -> Status {
    Result<kube::Object> created = client.Create(resource, object, {});
    if (!created.ok()) return Error(kube::Key(object) + ": " + created.error().message);
    return {};
  };
  for (int i = 0; i < 3; ++i) {
    RETURN_IF_ERROR(
        create(kube::resources::kNodes,
               {{"apiVersion", "v1"},
                {"kind", "Node"},
                {"metadata",
                 {{"name", NodeName("general", i)}, {"labels", {{kLabelNodeGroup, "general"}}}}}}));
  }
  RETURN_IF_ERROR(create(
      kube::resources::kConfigMaps,
      {{"apiVersion", "v1"},
       {"kind", "ConfigMap"},
       {"metadata", {{"name", "aws-auth"}, {"namespace", "kube-system"}}},
       {"data",
        {{"mapRoles",
          "# the node groups' role\n- groups:\n  - system:bootstrappers\n"
          "  - system:nodes\n  rolearn: " +
              cluster.node_group_role + "\n  username: system:node:{{EC2PrivateDNSName}}\n"}}}}));
  RETURN_IF_ERROR(
      create(kube::resources::kDeployments, Deployment("kube-system", "cluster-autoscaler", 1)));
  RETURN_IF_ERROR(create(kube::resources::kDeployments, Deployment("kube-system", "coredns", 2)));
  RETURN_IF_ERROR(create(kube::resources::kDeployments,
                         Deployment("kube-system", "karpenter", 2, kube::Object::object(),
                                    {{"app.kubernetes.io/name", "karpenter"}})));
  // coredns runs on the node that stays; its budget allows one disruption.
  for (int i = 0; i < 2; ++i) {
    RETURN_IF_ERROR(create(
        kube::resources::kPods,
        Pod("kube-system", "coredns-" + std::to_string(i), "coredns", NodeName("general", 0))));
  }
  RETURN_IF_ERROR(create(
      kube::resources::kPodDisruptionBudgets,
      {{"apiVersion", "policy/v1"},
       {"kind", "PodDisruptionBudget"},
       {"metadata", {{"name", "coredns"}, {"namespace", "kube-system"}}},
       {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app", "coredns"}}}}}}}}));
  kube::Object status = {{"apiVersion", "policy/v1"},
                         {"kind", "PodDisruptionBudget"},
                         {"metadata", {{"name", "coredns"}, {"namespace", "kube-system"}}},
                         {"status",
                          {{"currentHealthy", 2},
                           {"desiredHealthy", 1},
                           {"disruptionsAllowed", 1},
                           {"expectedPods", 2}}}};
  Result<kube::Object> budget =
      client.Get(kube::resources::kPodDisruptionBudgets, "kube-system", "coredns");
  if (!budget.ok()) return budget.error();
  status["metadata"]["resourceVersion"] = std::string(kube::ResourceVersion(*budget));
  status["spec"] = (*budget)["spec"];
  Result<kube::Object> updated =
      client.Update(kube::resources::kPodDisruptionBudgets, status, kube::Subresource::kStatus);
  if (!updated.ok()) return Error("coredns budget status: " + updated.error().message);
  return {};
}

// What a migration may change and a rollback must restore, as JSON to compare: Karpenter's roles
// and their policies, the discovery tags of the subnets and the security group, the access entries,
// the node group's scaling; aws-auth, the Deployments' replicas and affinity, the NodePools and
// EC2NodeClasses, kube-system's ConfigMaps.
inline Result<Json> Inventory(aws::AwsClients& clients, kube::Client& client,
                              const MigrationCluster& cluster) {
  Json out;
  aws::Ec2Api ec2(clients.ec2());
  ASSIGN_OR_RETURN(const std::vector<aws::Subnet> subnets,
                   ec2.DescribeSubnets({{"subnet-id", cluster.subnets}}));
  for (const aws::Subnet& subnet : subnets) out["tags"][subnet.subnet_id] = subnet.tags;
  ASSIGN_OR_RETURN(const std::vector<aws::SecurityGroup> groups,
                   ec2.DescribeSecurityGroups({{"group-id", {cluster.security_group}}}));
  for (const aws::SecurityGroup& group : groups) out["tags"][group.group_id] = group.tags;
  aws::IamApi iam(clients.iam());
  for (const std::string& role :
       {"KarpenterNodeRole-" + cluster.name, "KarpenterControllerRole-" + cluster.name}) {
    ASSIGN_OR_RETURN(const std::optional<aws::IamRole> found, iam.GetRole(role));
    if (!found) continue;
    ASSIGN_OR_RETURN(out["roles"][role]["attached"], iam.ListAttachedRolePolicies(role));
    ASSIGN_OR_RETURN(out["roles"][role]["inline"], iam.ListRolePolicies(role));
  }
  aws::EksApi eks(clients.eks());
  ASSIGN_OR_RETURN(const aws::EksCluster described, eks.DescribeCluster(cluster.name));
  if (described.authentication_mode != "CONFIG_MAP") {
    ASSIGN_OR_RETURN(out["accessEntries"], eks.ListAccessEntries(cluster.name));
  }
  ASSIGN_OR_RETURN(const aws::EksNodegroup group, eks.DescribeNodegroup(cluster.name, "general"));
  out["general"] = {group.min_size, group.max_size, group.desired_size};
  kube::ListOptions kube_system;
  kube_system.namespace_ = "kube-system";
  ASSIGN_OR_RETURN(const kube::ObjectList config_maps,
                   client.List(kube::resources::kConfigMaps, kube_system));
  for (const kube::SharedObject& config_map : config_maps.items) {
    out["configMaps"][std::string(kube::Name(*config_map))] = (*config_map)["data"];
  }
  ASSIGN_OR_RETURN(const kube::ObjectList deployments,
                   client.List(kube::resources::kDeployments, {}));
  for (const kube::SharedObject& deployment : deployments.items) {
    const kube::Object* affinity =
        kube::Find(*deployment, {"spec", "template", "spec", "affinity"});
    out["deployments"][kube::Key(*deployment)] = {(*deployment)["spec"]["replicas"],
                                                  affinity != nullptr ? *affinity : Json()};
  }
  for (const kube::Resource* resource :
       {&kube::resources::kNodePools, &kube::resources::kEC2NodeClasses}) {
    ASSIGN_OR_RETURN(const kube::ObjectList list, client.List(*resource, {}));
    out[std::string(resource->kind)] = Json::array();
    for (const kube::SharedObject& object : list.items) {
      out[std::string(resource->kind)].push_back(kube::Name(*object));
    }
  }
  return out;
}

}  // namespace karpenter::migrate::testing
