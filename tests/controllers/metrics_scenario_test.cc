// The controllers' series against what happened, on the virtual-clock world: NodeClaims and
// Nodes created and terminated, pods' states and start times, NodePool usage, the scheduler's and
// disruption's series, and the series of a node that is gone leaving with it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "controllers/scenario_world.h"
#include "metrics/exposition.h"
#include "support/matchers.h"
#include "support/metrics_text.h"

namespace karpenter::scenario {
namespace {

using controllers::ConditionStatus;
using std::chrono::minutes;
using support::Count;
using support::Sum;

std::vector<support::Sample> Scrape(World& world) { return world.Scrape(); }

bool AllRunning(World& world) {
  if (!world.PendingPods().empty()) return false;
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    if (ConditionStatus(claim, "Initialized") != "True") return false;
  }
  return true;
}

Object Consolidating() {
  Object pool = NodePool("default", "default", kSmallOnly);
  pool["spec"]["disruption"] = {{"consolidationPolicy", "WhenEmptyOrUnderutilized"},
                                {"consolidateAfter", "0s"},
                                {"budgets", Object::array({{{"nodes", "100%"}}})}};
  pool["spec"]["limits"] = {{"cpu", "100"}};
  return pool;
}

// A NodePool created after the controller started has its instance types' series within a
// round, not at the next minute's refresh (a CI run once scraped before that minute).
TEST(MetricsScenarioTest, ANewNodePoolsInstanceTypesShowAtOnce) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Start();
  EXPECT_EQ(Count(Scrape(world), "karpenter_cloudprovider_instance_type_cpu_cores"), 0u);
  world.Create(resources::kNodePools, NodePool("default", "default", kSmallOnly));
  world.RunFor(std::chrono::seconds(1));
  EXPECT_EQ(Sum(Scrape(world), "karpenter_cloudprovider_instance_type_cpu_cores",
                {{"instance_type", "small"}}),
            2);
}

TEST(MetricsScenarioTest, SeriesFollowProvisioningConsolidationAndTermination) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, Consolidating());
  world.Start();
  world.KeepReplicas("web", 4, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  world.RunFor(std::chrono::seconds(15));  // a disruption pass (each node full: nothing to do)

  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  const std::vector<Object> nodes = world.List(resources::kNodes);
  ASSERT_EQ(nodes.size(), 4u);
  std::vector<support::Sample> scrape = Scrape(world);
  EXPECT_EQ(
      Sum(scrape, "karpenter_nodeclaims_created_total",
          {{"reason", "provisioned"}, {"nodepool", "default"}, {"min_values_relaxed", "false"}}),
      static_cast<double>(claims.size()));
  EXPECT_EQ(Sum(scrape, "karpenter_nodes_created_total", {{"nodepool", "default"}}), 4);
  EXPECT_EQ(Count(scrape, "karpenter_nodes_allocatable", {{"resource_type", "cpu"}}), 4u);
  EXPECT_EQ(Count(scrape, "karpenter_nodes_current_lifetime_seconds", {{"managed", "true"}}), 4u);
  // Usage is the NodePool's status: the capacity of its nodes.
  double capacity = 0;
  for (const Object& node : nodes) {
    capacity += Quantity::Parse(node["status"]["capacity"].value("cpu", "0"))->as_double();
  }
  EXPECT_EQ(
      Sum(scrape, "karpenter_nodepools_usage", {{"nodepool", "default"}, {"resource_type", "cpu"}}),
      capacity);
  EXPECT_EQ(
      Sum(scrape, "karpenter_nodepools_limit", {{"nodepool", "default"}, {"resource_type", "cpu"}}),
      100);
  EXPECT_EQ(Sum(scrape, "karpenter_nodes_total_pod_requests", {{"resource_type", "cpu"}}), 6);
  EXPECT_EQ(Sum(scrape, "karpenter_pods_state", {{"phase", "Running"}, {"scheduled", "true"}}), 4);
  EXPECT_EQ(Count(scrape, "karpenter_pods_unbound_time_seconds"), 0u);
  EXPECT_EQ(Sum(scrape, "karpenter_pods_bound_duration_seconds_count"), 4);
  EXPECT_EQ(Sum(scrape, "karpenter_pods_startup_duration_seconds_count"), 4);
  EXPECT_GE(Sum(scrape, "karpenter_scheduler_scheduling_duration_seconds_count",
                {{"controller", "provisioner"}}),
            1);
  EXPECT_EQ(
      Sum(scrape, "karpenter_scheduler_unschedulable_pods_count", {{"controller", "provisioner"}}),
      0);
  EXPECT_EQ(Sum(scrape, "karpenter_cluster_state_node_count"), 4);
  EXPECT_EQ(Sum(scrape, "karpenter_cluster_state_synced"), 1);
  EXPECT_EQ(Sum(scrape, "karpenter_nodepools_allowed_disruptions",
                {{"nodepool", "default"}, {"reason", "Underutilized"}}),
            4);
  // The cloud as each controller called it, and the instance types the NodePool may launch.
  EXPECT_EQ(Sum(scrape, "karpenter_cloudprovider_duration_seconds_count",
                {{"controller", "nodeclaim.lifecycle"}, {"method", "Create"}, {"provider", "sim"}}),
            static_cast<double>(claims.size()));
  EXPECT_GE(Sum(scrape, "karpenter_cloudprovider_duration_seconds_count",
                {{"controller", "provisioner"}, {"method", "GetInstanceTypes"}}),
            1);
  EXPECT_EQ(Count(scrape, "karpenter_cloudprovider_errors_total"), 0u);
  // controller-runtime's series under our controllers' names: each NodeClaim went through the
  // lifecycle queue (again at each change of it), every key added was taken and reconciled or
  // still waits.
  const support::LabelFilter lifecycle = {{"name", "nodeclaim.lifecycle"}};
  EXPECT_GE(Sum(scrape, "workqueue_adds_total", lifecycle), 4);
  EXPECT_EQ(Sum(scrape, "workqueue_adds_total", lifecycle),
            Sum(scrape, "workqueue_queue_duration_seconds_count", lifecycle) +
                Sum(scrape, "workqueue_depth", lifecycle));
  EXPECT_EQ(
      Sum(scrape, "workqueue_queue_duration_seconds_count", lifecycle),
      Sum(scrape, "controller_runtime_reconcile_total", {{"controller", "nodeclaim.lifecycle"}}));
  EXPECT_GE(Sum(scrape, "controller_runtime_reconcile_total",
                {{"controller", "nodeclaim.lifecycle"}, {"result", "success"}}),
            4);
  EXPECT_EQ(Sum(scrape, "controller_runtime_reconcile_errors_total"), 0);
  EXPECT_GE(Sum(scrape, "controller_runtime_reconcile_total",
                {{"controller", "provisioner"}, {"result", "success"}}),
            1);
  EXPECT_EQ(Count(scrape, "workqueue_depth", {{"name", "nodeclaim.lifecycle"}}), 1u);
  EXPECT_GE(Sum(scrape, "controller_runtime_reconcile_time_seconds_count",
                {{"controller", "nodeclaim.lifecycle"}}),
            4);
  // Each pod's Nominated event, written.
  EXPECT_GE(Sum(scrape, "karpenter_events_written_total"), 4);
  EXPECT_EQ(Sum(scrape, "karpenter_events_dropped_total", {{"reason", "queue_full"}}), 0);
  EXPECT_EQ(
      Sum(scrape, "karpenter_cloudprovider_instance_type_cpu_cores", {{"instance_type", "small"}}),
      2);
  EXPECT_EQ(Sum(scrape, "karpenter_cloudprovider_instance_type_memory_bytes",
                {{"instance_type", "small"}}),
            8.0 * 1024 * 1024 * 1024);
  const support::LabelFilter offering = {
      {"instance_type", "small"}, {"capacity_type", "on-demand"}, {"zone", "us-east-1b"}};
  EXPECT_EQ(Sum(scrape, "karpenter_cloudprovider_instance_type_offering_price_estimate", offering),
            0.12);
  EXPECT_EQ(Sum(scrape, "karpenter_cloudprovider_instance_type_offering_available", offering), 1);

  // Each well-known label of a node is a label of its series (AWS's too), empty when it lacks it.
  ASSERT_THAT(world.client().Patch(
                  resources::kNodes, "", kube::Name(nodes[0]), kube::PatchType::kMerge,
                  {{"metadata", {{"labels", {{std::string(api::kLabelInstanceFamily), "m7i"}}}}}},
                  kube::Subresource::kNone),
              IsOk());
  world.RunFor(std::chrono::seconds(1));
  scrape = Scrape(world);
  EXPECT_EQ(Count(scrape, "karpenter_nodes_allocatable",
                  {{"resource_type", "cpu"},
                   {"instance_family", "m7i"},
                   {"node_name", std::string(kube::Name(nodes[0]))}}),
            1u);
  EXPECT_EQ(Count(scrape, "karpenter_nodes_allocatable",
                  {{"resource_type", "cpu"}, {"instance_family", ""}, {"instance_gpu_count", ""}}),
            3u);

  // Three pods go: emptiness removes their nodes.
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(
      world.RunUntil([&] { return world.List(resources::kNodes).size() == 1; }, minutes(3)));
  world.RunFor(std::chrono::seconds(5));
  scrape = Scrape(world);
  EXPECT_EQ(Sum(scrape, "karpenter_voluntary_disruption_decisions_total",
                {{"decision", "delete"}, {"reason", "empty"}, {"consolidation_type", "empty"}}),
            1);
  EXPECT_EQ(Sum(scrape, "karpenter_nodeclaims_disrupted_total",
                {{"reason", "empty"}, {"nodepool", "default"}, {"capacity_type", "on-demand"}}),
            3);
  EXPECT_EQ(Sum(scrape, "karpenter_nodeclaims_terminated_total", {{"nodepool", "default"}}), 3);
  EXPECT_EQ(Sum(scrape, "karpenter_nodes_terminated_total", {{"nodepool", "default"}}), 3);
  EXPECT_EQ(Sum(scrape, "karpenter_nodes_drained_total", {{"nodepool", "default"}}), 3);
  EXPECT_EQ(Sum(scrape, "karpenter_nodes_termination_duration_seconds_count"), 3);
  EXPECT_EQ(Sum(scrape, "karpenter_nodeclaims_instance_termination_duration_seconds_count"), 3);
  EXPECT_EQ(Sum(scrape, "karpenter_cloudprovider_duration_seconds_count",
                {{"controller", "nodeclaim.lifecycle"}, {"method", "Delete"}}),
            3);
  EXPECT_GE(Sum(scrape, "karpenter_voluntary_disruption_decision_evaluation_duration_seconds_count",
                {{"reason", "empty"}}),
            1);
  // The pods of the empty nodes were deleted by their ReplicaSet, not evicted: none drained.
  EXPECT_EQ(Sum(scrape, "karpenter_pods_eviction_requests_total"), 0);
  // The nodes that went took their series with them.
  EXPECT_EQ(Count(scrape, "karpenter_nodes_allocatable", {{"resource_type", "cpu"}}), 1u);
  EXPECT_EQ(Count(scrape, "karpenter_pods_state"), 1u);
  EXPECT_EQ(Sum(scrape, "karpenter_cluster_state_node_count"), 1);
  // Created counts what was ever created: those that exist and those deleted.
  EXPECT_EQ(Sum(scrape, "karpenter_nodeclaims_created_total"),
            static_cast<double>(world.List(resources::kNodeClaims).size()) +
                Sum(scrape, "karpenter_nodeclaims_terminated_total"));
}

TEST(MetricsScenarioTest, PodsThatCannotScheduleAreCountedAndTheirWaitShown) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, Consolidating());
  world.Start();
  world.KeepReplicas("huge", 2, "64");  // larger than any type
  world.RunFor(std::chrono::seconds(30));
  const std::vector<support::Sample> scrape = Scrape(world);
  EXPECT_EQ(
      Sum(scrape, "karpenter_scheduler_unschedulable_pods_count", {{"controller", "provisioner"}}),
      2);
  EXPECT_EQ(Count(scrape, "karpenter_pods_unbound_time_seconds", {{"namespace", "default"}}), 2u);
  EXPECT_GE(Sum(scrape, "karpenter_pods_unbound_time_seconds"), 2 * 20.0);
  EXPECT_EQ(Sum(scrape, "karpenter_pods_state", {{"phase", "Pending"}, {"scheduled", "false"}}), 2);
  EXPECT_EQ(Sum(scrape, "karpenter_nodeclaims_created_total"), 0);
}

TEST(MetricsScenarioTest, ADeletedNodePoolTakesItsSeriesWithIt) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, Consolidating());
  Object spare = Consolidating();
  spare["metadata"]["name"] = "spare";
  world.Create(resources::kNodePools, spare);
  world.Start();
  world.RunFor(std::chrono::seconds(15));  // a disruption pass: the budgets' series
  const support::LabelFilter of_spare = {{"nodepool", "spare"}};
  std::vector<support::Sample> scrape = Scrape(world);
  EXPECT_GT(Count(scrape, "karpenter_nodepools_limit", of_spare), 0u);
  EXPECT_GT(Count(scrape, "karpenter_nodepools_allowed_disruptions", of_spare), 0u);

  ASSERT_THAT(world.client().Delete(resources::kNodePools, "", "spare", {}), IsOk());
  world.RunFor(std::chrono::seconds(15));
  scrape = Scrape(world);
  for (const char* family : {"karpenter_nodepools_limit", "karpenter_nodepools_usage",
                             "karpenter_nodepools_allowed_disruptions"}) {
    EXPECT_EQ(Count(scrape, family, of_spare), 0u) << family;
  }
  EXPECT_GT(Count(scrape, "karpenter_nodepools_limit", {{"nodepool", "default"}}), 0u);
}

TEST(MetricsScenarioTest, ConsolidationTimeoutsAreCounted) {
  // No time at all for a search: each consolidation method stops at once, and says so.
  World world(7, kCatalog, [](op::ManagerOptions& options) {
    options.disruption.engine.multi_node_timeout = std::chrono::nanoseconds(0);
    options.disruption.engine.single_node_timeout = std::chrono::nanoseconds(0);
  });
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, Consolidating());
  world.Start();
  world.KeepReplicas("web", 4, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  // Every node is a consolidation candidate (consolidateAfter 0s): both searches start, and stop.
  world.RunFor(std::chrono::seconds(30));
  const std::vector<support::Sample> scrape = Scrape(world);
  EXPECT_GE(Sum(scrape, "karpenter_voluntary_disruption_consolidation_timeouts_total",
                {{"consolidation_type", "single"}}),
            1);
  EXPECT_GE(Sum(scrape, "karpenter_voluntary_disruption_consolidation_timeouts_total",
                {{"consolidation_type", "multi"}}),
            1);
  EXPECT_EQ(
      Sum(scrape, "karpenter_voluntary_disruption_decisions_total", {{"reason", "underutilized"}}),
      0);
}

TEST(MetricsScenarioTest, DisruptedNodeClaimsCountTheirPods) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  Object pool = Consolidating();
  pool["spec"]["template"]["spec"]["expireAfter"] = "5m";
  world.Create(resources::kNodePools, pool);
  world.Start();
  world.KeepReplicas("web", 4, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  // Each NodeClaim expires with its one pod, which must move.
  world.RunFor(std::chrono::minutes(6), std::chrono::seconds(1));
  const std::vector<support::Sample> scrape = Scrape(world);
  const double expired =
      Sum(scrape, "karpenter_nodeclaims_disrupted_total", {{"reason", "expired"}});
  EXPECT_GE(expired, 4);
  EXPECT_EQ(Sum(scrape, "karpenter_pods_disruption_initiated_total",
                {{"reason", "expired"},
                 {"nodepool", "default"},
                 {"capacity_type", "on-demand"},
                 {"consolidation_policy", "when_empty_or_underutilized"},
                 {"termination_mode", "graceful"}}),
            expired);
  EXPECT_EQ(Count(scrape, "karpenter_pods_disruption_initiated_total",
                  {{"termination_mode", "forceful"}}),
            0u);
}

TEST(MetricsScenarioTest, DebugStateTellsWhatTheControllerSees) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, Consolidating());
  world.Start();
  world.KeepReplicas("web", 2, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  world.RunFor(std::chrono::seconds(15));  // a disruption pass

  // Asked from another thread (the debug endpoint's), answered by the loop at its next round.
  std::future<Result<Object>> asked = std::async(std::launch::async, [&world] {
    return world.manager().DebugState(std::chrono::seconds(60));
  });
  ASSERT_TRUE(world.RunUntil(
      [&] { return asked.wait_for(std::chrono::milliseconds(1)) == std::future_status::ready; }));
  Result<Object> state = asked.get();
  ASSERT_THAT(state, IsOk());
  for (const Object& informer : (*state)["informers"]) {
    EXPECT_TRUE(informer["synced"].get<bool>()) << informer.dump();
    if (informer["resource"] == "nodeclaims") {
      EXPECT_EQ(informer["objects"], 2) << informer.dump();
    }
  }
  EXPECT_EQ((*state)["batch"]["open"], false);
  EXPECT_EQ((*state)["batch"]["idleSeconds"], 1.0);
  EXPECT_TRUE((*state)["lastProvisioning"].contains("podsUnschedulable")) << state->dump();
  const Object& disruption = (*state)["disruption"];
  EXPECT_FALSE(disruption["lastPass"]["outcome"].get<std::string>().empty()) << state->dump();
  EXPECT_EQ(disruption["lastPass"]["allowedDisruptions"]["default"]["Underutilized"], 2)
      << state->dump();
  EXPECT_EQ(disruption["decisionsMade"], 0);
  EXPECT_TRUE(disruption["pending"].is_null());
  EXPECT_EQ((*state)["queues"]["nodeclaim.lifecycle"], 0);
  EXPECT_GE((*state)["events"]["written"].get<int>(), 2);  // the pods' Nominated events

  // Without a loop to answer, the asker is told so rather than kept waiting.
  Result<Object> unanswered = world.manager().DebugState(std::chrono::milliseconds(50));
  ASSERT_FALSE(unanswered.ok());
  EXPECT_THAT(unanswered.error().message, testing::HasSubstr("not running"));
}

}  // namespace
}  // namespace karpenter::scenario
