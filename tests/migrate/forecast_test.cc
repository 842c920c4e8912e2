// The forecast of `karpenter migrate plan`: a cluster of three node-group nodes whose Deployment
// is behind a PodDisruptionBudget, migrated in the simulation — Cluster Autoscaler at 0, the node
// group shrunk to the plan's two nodes, Karpenter's NodePool taking the displaced pods — without a
// PDB violation or a pod left pending.

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/migrate_forecast.h"
#include "common/clock.h"
#include "kube/memory/memory_client.h"
#include "migrate/workload_objects.h"
#include "support/matchers.h"

namespace karpenter::cli {
namespace {

using kube::Object;
using ::testing::HasSubstr;

Object Node(int i, std::string_view zone) {
  const std::string name = "ng-" + std::to_string(i);
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels",
             {{std::string(migrate::kLabelNodeGroup), "general"},
              {"node.kubernetes.io/instance-type", "m5.xlarge"},
              {"topology.kubernetes.io/zone", zone},
              {"kubernetes.io/arch", "amd64"},
              {"kubernetes.io/os", "linux"},
              {"kubernetes.io/hostname", name}}}}},
          {"spec", {{"providerID", fmt::format("aws:///{}/i-{}", zone, i)}}},
          {"status",
           {{"allocatable", {{"cpu", "3920m"}, {"memory", "15Gi"}, {"pods", "58"}}},
            {"capacity", {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "58"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

class ForecastTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Create(kube::resources::kNamespaces,
           {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "shop"}}}});
    const char* zones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
    for (int i = 0; i < 3; ++i) Create(kube::resources::kNodes, Node(i + 1, zones[i]));
    // Three 1-CPU pods a node: two nodes cannot hold all nine.
    Create(
        kube::resources::kDeployments,
        migrate::testing::Requesting(migrate::testing::Deployment("shop", "web", 9), "1", "1Gi"));
    Create(
        kube::resources::kDeployments,
        migrate::testing::Requesting(
            migrate::testing::Deployment("kube-system", "cluster-autoscaler", 1), "100m", "1Gi"));
    Create(kube::resources::kPodDisruptionBudgets,
           {{"apiVersion", "policy/v1"},
            {"kind", "PodDisruptionBudget"},
            {"metadata", {{"name", "web"}, {"namespace", "shop"}}},
            {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}});
    aws_.region = "us-east-1";
    aws_.cluster.name = "prod";
    aws_.cluster.arn = "arn:aws:eks:us-east-1:111122223333:cluster/prod";
    aws_.cluster.status = "ACTIVE";
    aws_.cluster.version = "1.31";
    aws::EksNodegroup group;
    group.name = "general";
    group.instance_types = {"m5.xlarge"};
    group.ami_type = "AL2023_x86_64_STANDARD";
    group.capacity_type = "ON_DEMAND";
    group.desired_size = 3;
    group.subnets = {"subnet-a", "subnet-b", "subnet-c"};
    aws_.node_groups = {group};
    aws_.subnets = {{"subnet-a", "us-east-1a", true, ""},
                    {"subnet-b", "us-east-1b", true, ""},
                    {"subnet-c", "us-east-1c", true, ""}};
  }

  // The forecast of the cluster as the test has set it up.
  Result<simulate::SimulationResult> Forecast(std::chrono::minutes duration,
                                              std::vector<std::string>& notes) {
    Result<migrate::ClusterObjects> objects = migrate::ReadClusterObjects(client_);
    if (!objects.ok()) return objects.error();
    Result<migrate::ClusterInventory> inventory = migrate::ReadCluster(*objects, aws_);
    if (!inventory.ok()) return inventory.error();
    const migrate::MigrationPlan plan = migrate::PlanMigration(aws_, *inventory);
    const migrate::DerivedNodePools derived =
        migrate::DeriveNodePools({"prod", "latest", aws_.node_groups});
    return ForecastMigration(*objects, aws_, *inventory, plan, derived, /*batch=*/1, duration,
                             notes);
  }

  void Create(const kube::Resource& resource, const Object& object) {
    ASSERT_THAT(client_.Create(resource, object, {}), IsOk()) << object.dump();
  }

  RealClock clock_;
  kube::memory::MemoryClient client_{clock_};
  migrate::AwsInventory aws_;
};

TEST_F(ForecastTest, ShrinksTheNodeGroupWithoutAViolationAndKarpenterTakesTheRest) {
  Result<migrate::ClusterObjects> objects = migrate::ReadClusterObjects(client_);
  ASSERT_THAT(objects, IsOk());
  Result<migrate::ClusterInventory> inventory = migrate::ReadCluster(*objects, aws_);
  ASSERT_THAT(inventory, IsOk());
  const migrate::MigrationPlan plan = migrate::PlanMigration(aws_, *inventory);
  ASSERT_EQ(plan.targets.size(), 1);
  EXPECT_EQ(plan.targets[0].target, 2);
  const migrate::DerivedNodePools derived =
      migrate::DeriveNodePools({"prod", "latest", aws_.node_groups});
  std::vector<std::string> notes;
  Result<simulate::SimulationResult> result = ForecastMigration(
      *objects, aws_, *inventory, plan, derived, /*batch=*/1, std::chrono::minutes(30), notes);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->before.nodes, 3);
  EXPECT_EQ(result->pdb_violations, 0);
  EXPECT_EQ(result->unschedulable_pods, 0);
  EXPECT_GT(result->pods_disrupted, 0);  // the drained node's pods moved
  int group_nodes = 0;
  int karpenter_nodes = 0;
  for (const simulate::FinalNode& node : result->nodes) {
    if (node.node_group == "general") ++group_nodes;
    if (node.node_pool.empty()) continue;
    ++karpenter_nodes;
    // In the node groups' subnets only: the test's are in us-east-1a, b and c, as the Nodes.
    EXPECT_TRUE(node.zone == "us-east-1a" || node.zone == "us-east-1b" || node.zone == "us-east-1c")
        << node.zone;
  }
  EXPECT_EQ(group_nodes, 2);
  EXPECT_GE(karpenter_nodes, 1);
  ASSERT_EQ(notes.size(), 1);
  EXPECT_THAT(notes[0], HasSubstr("1 node at a time"));
  EXPECT_THAT(notes[0], HasSubstr("karpenter migrate apply --batch 1"));

  std::ostringstream text;
  PrintForecast(result, notes, text);
  EXPECT_THAT(text.str(), HasSubstr("nodes 3 → "));
  EXPECT_THAT(text.str(), HasSubstr("0 PDB violations"));
  const Json json = ForecastJson(*result, notes);
  EXPECT_EQ(json["before"]["nodes"], 3);
  EXPECT_EQ(json["pdbViolations"], 0);
}

// Karpenter launches in the subnets step 3 tags, the node groups': here only us-east-1b's, though
// the Nodes are in three zones.
TEST_F(ForecastTest, KarpenterLaunchesInTheNodeGroupsSubnets) {
  aws_.subnets = {{"subnet-b", "us-east-1b", true, ""}};
  std::vector<std::string> notes;
  Result<simulate::SimulationResult> result = Forecast(std::chrono::minutes(30), notes);
  ASSERT_THAT(result, IsOk());
  int karpenter_nodes = 0;
  for (const simulate::FinalNode& node : result->nodes) {
    if (node.node_pool.empty()) continue;
    ++karpenter_nodes;
    EXPECT_EQ(node.zone, "us-east-1b");
  }
  EXPECT_GE(karpenter_nodes, 1);
}

TEST_F(ForecastTest, ANodeGroupWithoutNodesIsNotedAndARegionWithoutDataIsAnError) {
  aws_.node_groups.push_back(aws_.node_groups[0]);
  aws_.node_groups[1].name = "elsewhere";
  std::vector<std::string> notes;
  ASSERT_THAT(Forecast(std::chrono::minutes(5), notes), IsOk());
  ASSERT_EQ(notes.size(), 2);
  EXPECT_THAT(notes[0], HasSubstr("node group elsewhere has no Node"));
  EXPECT_THAT(notes[1], HasSubstr("one after another"));

  aws_.region = "eu-north-1";
  notes.clear();
  Result<simulate::SimulationResult> elsewhere = Forecast(std::chrono::minutes(5), notes);
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_THAT(elsewhere.error().message, HasSubstr("eu-north-1"));
  std::ostringstream text;
  PrintForecast(elsewhere, notes, text);
  EXPECT_THAT(text.str(), HasSubstr("not run: "));
}

}  // namespace
}  // namespace karpenter::cli
