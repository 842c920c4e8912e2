// The seed's nine steps judged on an inventory: a cluster with nothing done, one with everything
// done, what blocks a step, and the warnings and node-group targets of step 8.

#include "migrate/steps.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace karpenter::migrate {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

aws::EksNodegroup Group(std::string name, std::vector<std::string> subnets, int64_t desired,
                        std::string capacity = "ON_DEMAND") {
  aws::EksNodegroup group;
  group.name = std::move(name);
  group.subnets = std::move(subnets);
  group.desired_size = desired;
  group.capacity_type = std::move(capacity);
  return group;
}

// A cluster as it is before the migration: two node groups, nothing of the seed's done.
AwsInventory Before() {
  AwsInventory aws;
  aws.region = "us-west-2";
  aws.cluster.name = "prod";
  aws.cluster.arn = "arn:aws:eks:us-west-2:111122223333:cluster/prod";
  aws.cluster.status = "ACTIVE";
  aws.cluster.version = "1.31";
  aws.cluster.oidc_issuer = "https://oidc.eks.us-west-2.amazonaws.com/id/ABC";
  aws.cluster.authentication_mode = "CONFIG_MAP";
  aws.alias_version = "v20240807";
  aws::EksNodegroup batch = Group("batch", {"subnet-a"}, 4, "SPOT");
  batch.taints = {{"dedicated", "batch", "NO_SCHEDULE"}};
  aws.node_groups = {batch, Group("general", {"subnet-a", "subnet-b", "subnet-c"}, 5)};
  aws.subnets = {{"subnet-a", "us-west-2a", false, ""},
                 {"subnet-b", "us-west-2b", false, ""},
                 {"subnet-c", "us-west-2c", true, ""}};
  aws.security_groups = {{"sg-1", "", false, ""}};
  return aws;
}

ClusterInventory BeforeCluster() {
  ClusterInventory cluster;
  cluster.aws_auth_exists = true;
  cluster.cluster_autoscalers = {{"Deployment", "kube-system", "cluster-autoscaler", 1}};
  cluster.unpinned_add_ons = {{"Deployment", "kube-system", "coredns", 2}};
  cluster.cluster_autoscaler_flags = {"--nodes=1:10:eks-general-0a1b"};
  cluster.pinned_workloads = {{"StatefulSet", "default", "db", 1}};
  cluster.unprotected = {{"Deployment", "default", "web", 3}};
  return cluster;
}

std::vector<std::string> States(const MigrationPlan& plan) {
  std::vector<std::string> states;
  for (const Step& step : plan.steps) states.emplace_back(StateName(step.state));
  return states;
}

TEST(PlanMigration, BeforeTheMigrationEveryStepButTheFirstIsToDo) {
  const MigrationPlan plan = PlanMigration(Before(), BeforeCluster());
  ASSERT_EQ(plan.steps.size(), 9);
  for (size_t i = 0; i < plan.steps.size(); ++i) EXPECT_EQ(plan.steps[i].number, i + 1);
  EXPECT_THAT(States(plan), ElementsAre("done", "to do", "to do", "to do", "to do", "to do",
                                        "to do", "to do", "to do"));
  // The controller goes to the untainted on-demand node group.
  EXPECT_EQ(plan.controller_node_group, "general");
  EXPECT_THAT(plan.steps[0].details, Contains("AMI alias al2023@v20240807"));
  EXPECT_THAT(plan.steps[1].details, Contains("create KarpenterNodeRole-prod"));
  EXPECT_THAT(plan.steps[1].details, Contains("create KarpenterControllerRole-prod"));
  EXPECT_THAT(plan.steps[2].details, Contains("tag subnets subnet-a, subnet-b"));
  EXPECT_THAT(plan.steps[2].details, Contains("tag security groups sg-1"));
  EXPECT_THAT(plan.steps[3].details[0],
              AllOf(HasSubstr("to aws-auth's mapRoles"), HasSubstr("add "),
                    HasSubstr("arn:aws:iam::111122223333:role/KarpenterNodeRole-prod")));
  EXPECT_THAT(plan.steps[4].details[0], HasSubstr("pinned to node group general"));
  EXPECT_THAT(plan.steps[6].details[0], HasSubstr("Deployment kube-system/coredns"));
  // Step 8: Cluster Autoscaler to 0; general spans three zones (2 nodes), batch one (1 node).
  EXPECT_THAT(plan.steps[7].details,
              ElementsAre("scale Deployment kube-system/cluster-autoscaler to 0 replicas",
                          "(it manages: --nodes=1:10:eks-general-0a1b)",
                          "shrink node group batch from 4 to 1 nodes",
                          "shrink node group general from 5 to 2 nodes"));
  ASSERT_EQ(plan.warnings.size(), 2);
  EXPECT_THAT(plan.warnings[0], HasSubstr("StatefulSet default/db may only run on node groups"));
  EXPECT_THAT(plan.warnings[1], HasSubstr("Deployment default/web"));
  EXPECT_THAT(plan.steps[8].details, ElementsAre("after the steps above"));
}

TEST(PlanMigration, AfterTheMigrationEveryStepIsDone) {
  AwsInventory aws = Before();
  aws.node_role_exists = aws.controller_role_exists = true;
  for (TaggedResource& resource : aws.subnets) resource.tagged = true;
  for (TaggedResource& resource : aws.security_groups) resource.tagged = true;
  aws.node_groups[0].desired_size = 1;
  aws.node_groups[1].desired_size = 2;
  ClusterInventory cluster;
  cluster.aws_auth_exists = cluster.aws_auth_maps_node_role = true;
  cluster.karpenter = {{"Deployment", "kube-system", "karpenter", 2}};
  cluster.node_pools = 2;
  cluster.cluster_autoscalers = {{"Deployment", "kube-system", "cluster-autoscaler", 0}};
  cluster.karpenter_nodes = 12;
  const MigrationPlan plan = PlanMigration(aws, cluster);
  EXPECT_THAT(States(plan),
              ElementsAre("done", "done", "done", "done", "done", "done", "done", "done", "done"));
  EXPECT_THAT(plan.warnings, IsEmpty());
  // Pending pods keep the verification open.
  cluster.pending_pods = 3;
  EXPECT_THAT(PlanMigration(aws, cluster).steps[8].details, ElementsAre("3 pods are pending"));
}

TEST(PlanMigration, WhatBlocksAStepIsSaid) {
  AwsInventory aws = Before();
  aws.cluster.oidc_issuer.clear();
  aws.node_groups = {aws.node_groups[0]};  // only the tainted batch group
  aws.alias_version.clear();
  aws.alias_problem = "ParameterNotFound";
  const MigrationPlan plan = PlanMigration(aws, BeforeCluster());
  EXPECT_EQ(plan.steps[0].state, StepState::kBlocked);
  EXPECT_THAT(plan.steps[0].details.back(), HasSubstr("no OIDC issuer"));
  EXPECT_EQ(plan.controller_node_group, "");
  EXPECT_EQ(plan.steps[4].state, StepState::kBlocked);
  EXPECT_THAT(plan.steps[4].details[0], HasSubstr("no untainted node group"));
  EXPECT_EQ(plan.steps[6].state, StepState::kBlocked);
  EXPECT_THAT(plan.warnings, Contains(HasSubstr("ParameterNotFound")));

  aws.cluster.status = "UPDATING";
  EXPECT_THAT(PlanMigration(aws, BeforeCluster()).steps[0].details.back(),
              HasSubstr("the cluster is UPDATING"));
}

TEST(PlanMigration, AnApiAuthenticationModeWantsAnAccessEntry) {
  AwsInventory aws = Before();
  aws.cluster.authentication_mode = "API";
  ClusterInventory cluster = BeforeCluster();
  cluster.aws_auth_maps_node_role = true;  // aws-auth does not count in API mode
  MigrationPlan plan = PlanMigration(aws, cluster);
  EXPECT_EQ(plan.steps[3].state, StepState::kToDo);
  EXPECT_THAT(plan.steps[3].details[0],
              HasSubstr("create an EKS access entry of type EC2_LINUX for "
                        "arn:aws:iam::111122223333:role/KarpenterNodeRole-prod"));
  aws.node_role_access_entry = true;
  plan = PlanMigration(aws, cluster);
  EXPECT_EQ(plan.steps[3].state, StepState::kDone);
  EXPECT_THAT(plan.steps[3].details[0], HasSubstr("an EKS access entry admits"));
  // Both ways count in API_AND_CONFIG_MAP mode.
  aws.cluster.authentication_mode = "API_AND_CONFIG_MAP";
  aws.node_role_access_entry = false;
  EXPECT_EQ(PlanMigration(aws, cluster).steps[3].state, StepState::kDone);
  cluster.aws_auth_maps_node_role = false;
  EXPECT_THAT(PlanMigration(aws, cluster).steps[3].details[0],
              HasSubstr("the authentication mode is API_AND_CONFIG_MAP"));
}

}  // namespace
}  // namespace karpenter::migrate
