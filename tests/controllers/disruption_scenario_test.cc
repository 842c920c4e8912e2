// Disruption scenarios on the virtual-clock world: emptiness, consolidation (delete and replace),
// drift, expiration, budgets (counts and cron windows), do-not-disrupt, PodDisruptionBudgets, and
// rolling back a command whose replacement fails.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "api/condition.h"
#include "controllers/disruption_controller.h"
#include "controllers/node_taints.h"
#include "controllers/nodeclaim_disruption.h"
#include "controllers/nodeclass_hash.h"
#include "controllers/scenario_world.h"
#include "support/matchers.h"

namespace karpenter::scenario {
namespace {

using controllers::ConditionStatus;
using std::chrono::hours;
using std::chrono::minutes;
using testing::AllOf;
using testing::Contains;
using testing::Each;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::SizeIs;

// The NodePool "default" of the world with `disruption` as its spec.disruption and
// `requirements` in its template.
Object Pool(const Object& disruption, const Object& requirements = kOnDemand) {
  Object pool = NodePool("default", "default", requirements);
  pool["spec"]["disruption"] = disruption;
  return pool;
}

Object Budgets(const Object& budgets) {
  return {{"consolidationPolicy", "WhenEmptyOrUnderutilized"},
          {"consolidateAfter", "0s"},
          {"budgets", budgets}};
}

const Object kAllAtOnce = Budgets(Object::array({{{"nodes", "100%"}}}));

void StartWith(World& world, const Object& pool) {
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, pool);
  world.Start();
}

bool AllRunning(World& world) {
  if (!world.PendingPods().empty()) return false;
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    if (ConditionStatus(claim, "Initialized") != "True") return false;
  }
  return true;
}

size_t NodeCount(World& world) { return world.List(resources::kNodes).size(); }

// Nodes marked for disruption or going away right now.
size_t Disrupting(World& world) {
  size_t disrupting = 0;
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    if (!kube::DeletionTimestamp(claim).empty() ||
        ConditionStatus(claim, api::kConditionDisruptionReason) == "True") {
      ++disrupting;
    }
  }
  return disrupting;
}

// All Events with `reason`, whatever they are about.
std::vector<std::string> AllEvents(World& world, std::string_view reason) {
  std::vector<std::string> messages;
  for (const Object& event : world.List(resources::kEvents)) {
    if (event.value("reason", "") == reason) messages.push_back(event.value("message", ""));
  }
  return messages;
}

// The messages of the Events with `reason` about objects of `kind`.
std::vector<std::string> EventsAbout(World& world, std::string_view kind, std::string_view reason) {
  std::vector<std::string> messages;
  for (const Object& event : world.List(resources::kEvents)) {
    if (event.value("reason", "") == reason && event["involvedObject"].value("kind", "") == kind) {
      messages.push_back(event.value("message", ""));
    }
  }
  return messages;
}

// Four small nodes with one 1.5-CPU pod each, then three of the pods go.
void FourNodesThenOnePod(World& world) {
  world.KeepReplicas("web", 4, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world) && NodeCount(world) == 4; }));
  world.KeepReplicas("web", 1, "1500m");
}

// A large node ($0.40) left with one 500m pod once the 5-CPU pod beside it is gone.
void LargeNodeWithOneSmallPod(World& world, const Object& annotations = Object::object()) {
  world.KeepReplicas("big", 1, "5");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world) && NodeCount(world) == 1; }));
  world.KeepReplicas("web", 1, "500m", annotations);
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  ASSERT_EQ(InstanceTypes(world), std::vector<std::string>{"large"});
  world.KeepReplicas("big", 0, "5");
}

TEST(DisruptionScenarioTest, EmptyNodesGoAfterValidationWithAnEventAndTheSavings) {
  World world;
  StartWith(world, Pool(kAllAtOnce, kSmallOnly));
  FourNodesThenOnePod(world);
  const TimePoint emptied = world.Now();
  world.RunFor(seconds(20));
  EXPECT_EQ(NodeCount(world), 4u) << "decided, but waiting 15s to validate";
  ASSERT_TRUE(world.RunUntil([&] { return NodeCount(world) == 1; }, seconds(60)));
  EXPECT_GE(world.Now() - emptied, seconds(15));
  EXPECT_THAT(AllEvents(world, "DisruptionTerminating"),
              Contains(HasSubstr("Empty: deleting 3 nodes with no pods to move, saving $0.30/h")));
  const std::deque<controllers::DisruptionDecision>& decisions =
      world.manager().disruption().decisions();
  ASSERT_THAT(decisions, SizeIs(1));
  EXPECT_EQ(decisions[0].method, disruption::Method::kEmptiness);
  EXPECT_THAT(decisions[0].nodes, SizeIs(3));
  EXPECT_DOUBLE_EQ(decisions[0].savings_per_hour, 0.30);
  EXPECT_THAT(world.PendingPods(), IsEmpty());
  EXPECT_THAT(*world.cloud().List(), SizeIs(1)) << "the instances went with their nodes";
}

TEST(DisruptionScenarioTest, BudgetCountsNodesAlreadyDisrupting) {
  World world;
  StartWith(world, Pool(Budgets(Object::array({{{"nodes", "1"}}})), kSmallOnly));
  FourNodesThenOnePod(world);
  size_t most = 0;
  ASSERT_TRUE(world.RunUntil(
      [&] {
        most = std::max(most, Disrupting(world));
        return NodeCount(world) == 1;
      },
      seconds(300)));
  EXPECT_EQ(most, 1u) << "one node at a time";
  EXPECT_THAT(world.manager().disruption().decisions(), SizeIs(3));
}

TEST(DisruptionScenarioTest, PercentBudgetRoundsUp) {
  World world;
  // 10% of 4 nodes is 0.4: one node at a time, not none.
  StartWith(world, Pool(Budgets(Object::array({{{"nodes", "10%"}}})), kSmallOnly));
  FourNodesThenOnePod(world);
  ASSERT_TRUE(world.RunUntil([&] { return NodeCount(world) == 3; }, seconds(60)));
  EXPECT_THAT(world.manager().disruption().decisions()[0].nodes, SizeIs(1));
}

TEST(DisruptionScenarioTest, ScheduledZeroBudgetHoldsUntilItsWindowEnds) {
  World world;
  // Nothing may be disrupted from midnight UTC for 2h (the world starts at midnight).
  StartWith(
      world,
      Pool(Budgets(Object::array({{{"nodes", "0"}, {"schedule", "0 0 * * *"}, {"duration", "2h"}},
                                  {{"nodes", "100%"}}})),
           kSmallOnly));
  FourNodesThenOnePod(world);
  world.RunFor(minutes(30), seconds(5));
  EXPECT_EQ(NodeCount(world), 4u);
  world.RunUntilTime(kStart + hours(2) - seconds(1), seconds(5));
  EXPECT_EQ(NodeCount(world), 4u);
  ASSERT_TRUE(world.RunUntil([&] { return NodeCount(world) == 1; }, seconds(60)));
}

TEST(DisruptionScenarioTest, BudgetReasonsLimitOnlyTheirReason) {
  World world(7, kThreeSizes);
  // No node may be disrupted for being underutilized; empty ones may go.
  StartWith(
      world,
      Pool(Budgets(Object::array({{{"nodes", "0"}, {"reasons", Object::array({"Underutilized"})}},
                                  {{"nodes", "100%"}}}))));
  LargeNodeWithOneSmallPod(world);
  world.RunFor(minutes(5), seconds(1));
  EXPECT_EQ(InstanceTypes(world), std::vector<std::string>{"large"});
  // The NodePool says why, once in the repeat window, not at every pass.
  EXPECT_THAT(EventsAbout(world, "NodePool", "DisruptionBlocked"),
              ElementsAre("No disruptions for reason Underutilized allowed by the NodePool's "
                          "budgets now"));
  world.KeepReplicas("web", 0, "500m");
  ASSERT_TRUE(world.RunUntil([&] { return NodeCount(world) == 0; }, seconds(60)));
}

TEST(DisruptionScenarioTest, ConsolidateAfterWaitsForQuietNodes) {
  World world;
  Object disruption = kAllAtOnce;
  disruption["consolidateAfter"] = "5m";
  StartWith(world, Pool(disruption, kSmallOnly));
  FourNodesThenOnePod(world);
  const TimePoint emptied = world.Now();
  world.RunFor(minutes(4), seconds(1));
  EXPECT_EQ(NodeCount(world), 4u);
  bool any_false = false;
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    any_false |= ConditionStatus(claim, api::kConditionConsolidatable) == "False";
    EXPECT_FALSE(claim["status"].value("lastPodEventTime", "").empty()) << kube::Name(claim);
  }
  EXPECT_TRUE(any_false);
  ASSERT_TRUE(world.RunUntil([&] { return NodeCount(world) == 1; }, minutes(2)));
  EXPECT_GE(world.Now() - emptied, minutes(5));
}

TEST(DisruptionScenarioTest, ConsolidateAfterNeverKeepsEveryNode) {
  World world;
  Object disruption = kAllAtOnce;
  disruption["consolidateAfter"] = "Never";
  StartWith(world, Pool(disruption, kSmallOnly));
  FourNodesThenOnePod(world);
  world.RunFor(minutes(30), seconds(1));
  EXPECT_EQ(NodeCount(world), 4u);
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    EXPECT_EQ(ConditionStatus(claim, api::kConditionConsolidatable), "False");
  }
}

TEST(DisruptionScenarioTest, UnderutilizedNodeIsReplacedByACheaperOneFirst) {
  World world(7, kThreeSizes);
  StartWith(world, Pool(kAllAtOnce));
  LargeNodeWithOneSmallPod(world);
  const std::string large(kube::Name(world.List(resources::kNodeClaims)[0]));
  // The replacement launches while the large node is marked; its pod moves only once the
  // replacement is ready.
  ASSERT_TRUE(
      world.RunUntil([&] { return world.List(resources::kNodeClaims).size() == 2; }, seconds(60)));
  const Object marked = world.Get(resources::kNodeClaims, large);
  EXPECT_EQ(ConditionStatus(marked, api::kConditionDisruptionReason), "True");
  EXPECT_THAT(marked["status"].dump(), HasSubstr("Underutilized"));
  const Object node = world.List(resources::kNodes)[0];
  EXPECT_TRUE(controllers::HasTaint(node, controllers::DisruptedTaint()));

  ASSERT_TRUE(world.RunUntil(
      [&] { return InstanceTypes(world) == std::vector<std::string>{"tiny"} && AllRunning(world); },
      seconds(120)));
  EXPECT_THAT(AllEvents(world, "DisruptionLaunching"),
              Contains("Underutilized: consolidating 1 node into 1 tiny, saving $0.30/h"));
  const auto& decisions = world.manager().disruption().decisions();
  ASSERT_THAT(decisions, SizeIs(1));
  EXPECT_EQ(decisions[0].method, disruption::Method::kSingleNodeConsolidation);
  EXPECT_THAT(decisions[0].replacements, SizeIs(1));
}

TEST(DisruptionScenarioTest, PodsMoveOntoNodesThatStayWhenTheyFit) {
  World world;
  StartWith(world, Pool(kAllAtOnce, kSmallOnly));
  // Eight 900m pods fill four small nodes two by two; with four left, two nodes suffice.
  world.KeepReplicas("web", 8, "900m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world) && NodeCount(world) == 4; }));
  world.KeepReplicas("web", 4, "900m");
  ASSERT_TRUE(
      world.RunUntil([&] { return NodeCount(world) == 2 && AllRunning(world); }, seconds(300)));
  EXPECT_THAT(world.List(resources::kPods), SizeIs(4));
  for (const auto& decision : world.manager().disruption().decisions()) {
    EXPECT_THAT(decision.replacements, IsEmpty()) << decision.description;
  }
}

TEST(DisruptionScenarioTest, DoNotDisruptPodKeepsItsNode) {
  World world(7, kThreeSizes);
  StartWith(world, Pool(kAllAtOnce));
  LargeNodeWithOneSmallPod(world, {{std::string(api::kAnnotationDoNotDisrupt), "true"}});
  world.RunFor(minutes(10), seconds(1));
  EXPECT_EQ(InstanceTypes(world), std::vector<std::string>{"large"});
  EXPECT_THAT(world.manager().disruption().decisions(), IsEmpty());
  // kubectl describe shows why, on the Node and on its NodeClaim, once in 15 minutes.
  std::string pod;
  for (const Object& object : world.List(resources::kPods)) {
    if (kube::Name(object).starts_with("web")) pod = kube::Name(object);
  }
  const std::string why =
      "Pod \"default/" + pod + "\" has the karpenter.sh/do-not-disrupt annotation";
  EXPECT_THAT(EventsAbout(world, "Node", "DisruptionBlocked"), ElementsAre(why));
  EXPECT_THAT(EventsAbout(world, "NodeClaim", "DisruptionBlocked"), ElementsAre(why));
  world.RunFor(minutes(6), seconds(10));
  EXPECT_THAT(EventsAbout(world, "Node", "DisruptionBlocked"), ElementsAre(why, why));
}

TEST(DisruptionScenarioTest, DoNotDisruptNodeIsKept) {
  World world;
  StartWith(world, Pool(kAllAtOnce, kSmallOnly));
  FourNodesThenOnePod(world);
  for (const Object& node : world.List(resources::kNodes)) {
    ASSERT_THAT(world.client().Patch(
                    resources::kNodes, "", kube::Name(node), kube::PatchType::kMerge,
                    {{"metadata",
                      {{"annotations", {{std::string(api::kAnnotationDoNotDisrupt), "true"}}}}}},
                    kube::Subresource::kNone),
                IsOk());
  }
  world.RunFor(minutes(5), seconds(1));
  EXPECT_EQ(NodeCount(world), 4u);
  EXPECT_THAT(EventsAbout(world, "NodeClaim", "DisruptionBlocked"),
              AllOf(SizeIs(4), Each("Node has the karpenter.sh/do-not-disrupt annotation")));
}

TEST(DisruptionScenarioTest, PodDisruptionBudgetThatAllowsNothingBlocksTheNode) {
  World world(7, kThreeSizes);
  StartWith(world, Pool(kAllAtOnce));
  world.Create(resources::kPodDisruptionBudgets, Pdb(0));
  LargeNodeWithOneSmallPod(world);
  world.RunFor(minutes(10), seconds(1));
  EXPECT_EQ(InstanceTypes(world), std::vector<std::string>{"large"});
  EXPECT_THAT(world.manager().disruption().decisions(), IsEmpty());
  EXPECT_THAT(EventsAbout(world, "Node", "DisruptionBlocked"),
              ElementsAre(AllOf(HasSubstr("PodDisruptionBudget \"default/"),
                                HasSubstr("allows no eviction of pod \"default/"))));
}

TEST(DisruptionScenarioTest, ANodeNothingCheaperCanReplaceSaysSo) {
  World world;
  StartWith(world, Pool(kAllAtOnce, kSmallOnly));
  FourNodesThenOnePod(world);
  ASSERT_TRUE(world.RunUntil([&] { return NodeCount(world) == 1; }, seconds(120)));
  world.RunFor(minutes(2), seconds(5));
  // The last small node with its 1.5-CPU pod: only another small would do.
  const std::string node(kube::Name(world.List(resources::kNodes).at(0)));
  EXPECT_THAT(EventsAbout(world, "Node", "Unconsolidatable"),
              ElementsAre("No cheaper node can replace it"));
  EXPECT_THAT(EventsAbout(world, "NodeClaim", "Unconsolidatable"),
              ElementsAre("No cheaper node can replace it"));
  for (const Object& event : world.List(resources::kEvents)) {
    if (event.value("reason", "") == "Unconsolidatable" &&
        event["involvedObject"].value("kind", "") == "Node") {
      EXPECT_EQ(event["involvedObject"].value("name", ""), node);
    }
  }
}

TEST(DisruptionScenarioTest, PodDisruptionBudgetThatAllowsOneLetsTheNodeGo) {
  World world(7, kThreeSizes);
  StartWith(world, Pool(kAllAtOnce));
  world.Create(resources::kPodDisruptionBudgets, Pdb(1));
  LargeNodeWithOneSmallPod(world);
  ASSERT_TRUE(world.RunUntil(
      [&] { return InstanceTypes(world) == std::vector<std::string>{"tiny"} && AllRunning(world); },
      seconds(120)));
}

TEST(DisruptionScenarioTest, WhenEmptyPolicyOnlyRemovesEmptyNodes) {
  World world(7, kThreeSizes);
  Object disruption = kAllAtOnce;
  disruption["consolidationPolicy"] = "WhenEmpty";
  StartWith(world, Pool(disruption));
  LargeNodeWithOneSmallPod(world);
  world.RunFor(minutes(5), seconds(1));
  EXPECT_EQ(InstanceTypes(world), std::vector<std::string>{"large"});
  world.KeepReplicas("web", 0, "500m");
  ASSERT_TRUE(world.RunUntil([&] { return NodeCount(world) == 0; }, seconds(60)));
}

TEST(DisruptionScenarioTest, TemplateChangeDriftsAndReplacesEveryNodeWithinBudget) {
  World world;
  StartWith(world, Pool(Budgets(Object::array({{{"nodes", "1"}}})), kSmallOnly));
  world.KeepReplicas("web", 3, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world) && NodeCount(world) == 3; }));
  std::set<std::string> old_claims;
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    old_claims.emplace(kube::Name(claim));
  }
  Object pool = world.Get(resources::kNodePools, "default");
  pool["spec"]["template"]["metadata"]["labels"] = {{"team", "a"}};
  ASSERT_THAT(world.client().Update(resources::kNodePools, pool, kube::Subresource::kNone), IsOk());
  world.RunFor(seconds(2));
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    EXPECT_EQ(ConditionStatus(claim, api::kConditionDrifted), "True");
    EXPECT_THAT(claim["status"].dump(), HasSubstr("NodePoolDrifted"));
  }
  size_t most = 0;
  ASSERT_TRUE(world.RunUntil(
      [&] {
        // Drift replaces: one node marked at a time, its replacement launched first.
        size_t marked = 0;
        for (const Object& claim : world.List(resources::kNodeClaims)) {
          if (old_claims.contains(std::string(kube::Name(claim))) &&
              (ConditionStatus(claim, api::kConditionDisruptionReason) == "True" ||
               !kube::DeletionTimestamp(claim).empty())) {
            ++marked;
          }
        }
        most = std::max(most, marked);
        for (const Object& node : world.List(resources::kNodes)) {
          if (kube::Label(node, "team") != "a") return false;
        }
        return AllRunning(world) && NodeCount(world) == 3;
      },
      minutes(10)));
  EXPECT_EQ(most, 1u);
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    EXPECT_FALSE(old_claims.contains(std::string(kube::Name(claim))));
  }
  EXPECT_THAT(
      AllEvents(world, "DisruptionLaunching"),
      Contains(HasSubstr("Drifted: replacing 1 node drifted (NodePoolDrifted) with 1 small")));
}

// A drifted node stays drifted: upstream runs drift's command in the pass that finds it, without
// the 15 s second look consolidation gets.
TEST(DisruptionScenarioTest, DriftRunsInThePassThatFindsIt) {
  World world;
  StartWith(world, Pool(kAllAtOnce, kSmallOnly));
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  Object pool = world.Get(resources::kNodePools, "default");
  pool["spec"]["template"]["metadata"]["labels"] = {{"team", "a"}};
  ASSERT_THAT(world.client().Update(resources::kNodePools, pool, kube::Subresource::kNone), IsOk());
  // A pass every 10 s: the node is marked by the next one, well before a 15 s validation ends.
  EXPECT_TRUE(world.RunUntil([&] { return Disrupting(world) == 1; }, seconds(11)));
}

// The Drifted condition's reason for the only NodeClaim, once the marks caught up.
std::string DriftReason(World& world) {
  world.RunFor(seconds(1));
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  if (claims.size() != 1) return "claims: " + std::to_string(claims.size());
  for (const Object& condition : claims[0]["status"].value("conditions", Object::array())) {
    if (condition.value("type", "") == api::kConditionDrifted &&
        condition.value("status", "") == "True") {
      return condition.value("reason", "");
    }
  }
  return "";
}

TEST(DisruptionScenarioTest, NarrowedRequirementsDriftTheNodesOutsideThem) {
  World world(7, kThreeSizes);
  // Never (no disruption executes): only the Drifted marks are under test here.
  StartWith(world, Pool(Budgets(Object::array({{{"nodes", "0"}}}))));
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  ASSERT_EQ(InstanceTypes(world), std::vector<std::string>{"small"});
  EXPECT_EQ(DriftReason(world), "");
  Object pool = world.Get(resources::kNodePools, "default");
  pool["spec"]["template"]["spec"]["requirements"] =
      Object::array({Requirement(api::kLabelCapacityType, {"on-demand"}),
                     Requirement(api::kLabelInstanceType, {"large"})});
  ASSERT_THAT(world.client().Update(resources::kNodePools, pool, kube::Subresource::kNone), IsOk());
  EXPECT_EQ(DriftReason(world), "RequirementsDrifted");
  // Widening them again to include the node's type undrifts it.
  pool = world.Get(resources::kNodePools, "default");
  pool["spec"]["template"]["spec"]["requirements"] = kOnDemand;
  ASSERT_THAT(world.client().Update(resources::kNodePools, pool, kube::Subresource::kNone), IsOk());
  EXPECT_EQ(DriftReason(world), "");
}

TEST(DisruptionScenarioTest, ChangedNodeClassDriftsItsNodes) {
  World world;
  StartWith(world, Pool(Budgets(Object::array({{{"nodes", "0"}}})), kSmallOnly));
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  EXPECT_EQ(DriftReason(world), "");
  // Another selector term finds what it finds (a capacity reservation term too): no drift by
  // itself; nor does writing out the alias's family, or an empty list where there was none.
  Object node_class = world.Get(resources::kEC2NodeClasses, "default");
  node_class["spec"]["subnetSelectorTerms"].push_back({{"id", "subnet-0123"}});
  node_class["spec"]["capacityReservationSelectorTerms"] = {{{"id", "cr-0123456789abcdef0"}}};
  node_class["spec"]["amiFamily"] = "AL2023";
  node_class["spec"]["blockDeviceMappings"] = Object::array();
  ASSERT_THAT(
      world.client().Update(resources::kEC2NodeClasses, node_class, kube::Subresource::kNone),
      IsOk());
  EXPECT_EQ(DriftReason(world), "");
  // A NodeClaim stamped by another hash version (upstream's, here) is re-stamped, not drifted.
  const std::string claim_name(kube::Name(world.List(resources::kNodeClaims)[0]));
  ASSERT_THAT(world.client().Patch(
                  resources::kNodeClaims, "", claim_name, kube::PatchType::kMerge,
                  {{"metadata",
                    {{"annotations",
                      {{std::string(controllers::kAnnotationNodeClassHash), "42"},
                       {std::string(controllers::kAnnotationNodeClassHashVersion), "v4"}}}}}},
                  kube::Subresource::kNone),
              IsOk());
  EXPECT_EQ(DriftReason(world), "");
  const Object restamped = world.Get(resources::kNodeClaims, claim_name);
  EXPECT_EQ(kube::Annotation(restamped, controllers::kAnnotationNodeClassHashVersion),
            controllers::kNodeClassHashVersion);
  EXPECT_EQ(kube::Annotation(restamped, controllers::kAnnotationNodeClassHash),
            controllers::NodeClassHash(world.Get(resources::kEC2NodeClasses, "default")));
  node_class = world.Get(resources::kEC2NodeClasses, "default");
  node_class["spec"]["role"] = "KarpenterNodeRole-other";
  ASSERT_THAT(
      world.client().Update(resources::kEC2NodeClasses, node_class, kube::Subresource::kNone),
      IsOk());
  EXPECT_EQ(DriftReason(world), "NodeClassDrift");
}

TEST(DisruptionScenarioTest, InstanceTypeGoneFromTheCloudDriftsItsNodes) {
  World world;
  StartWith(world, Pool(Budgets(Object::array({{{"nodes", "0"}}})), kSmallOnly));
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  world.cloud().RemoveInstanceType("small");
  world.RunFor(seconds(1));
  // Nothing tells the marks that the cloud changed but a NodePool event or their own timer.
  Object pool = world.Get(resources::kNodePools, "default");
  pool["spec"]["template"]["spec"]["requirements"] = kOnDemand;
  ASSERT_THAT(world.client().Update(resources::kNodePools, pool, kube::Subresource::kNone), IsOk());
  EXPECT_EQ(DriftReason(world), "InstanceTypeNotFound");
}

TEST(DisruptionScenarioTest, RestartUntaintsNodesAnUnfinishedCommandMarked) {
  World world;
  StartWith(world, Pool(kAllAtOnce, kSmallOnly));
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  const Object node = world.List(resources::kNodes)[0];
  ASSERT_THAT(controllers::AddTaint(world.client(), node, controllers::DisruptedTaint()), IsOk());
  world.RunFor(seconds(1));
  world.manager().Start();  // what a new leader does once its caches have synced
  world.RunFor(seconds(1));
  EXPECT_FALSE(
      controllers::HasTaint(world.List(resources::kNodes)[0], controllers::DisruptedTaint()));
}

TEST(DisruptionScenarioTest, ReplacementThatNeverInitializesIsRolledBackAfterTheTimeout) {
  World world;
  StartWith(world, Pool(kAllAtOnce, kSmallOnly));
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  const std::string original(kube::Name(world.List(resources::kNodeClaims)[0]));
  // A startup taint nothing removes: the template change drifts the node, and its replacement
  // registers but never initializes.
  Object pool = world.Get(resources::kNodePools, "default");
  pool["spec"]["template"]["spec"]["startupTaints"] =
      Object::array({{{"key", "example.com/never"}, {"effect", "NoSchedule"}}});
  ASSERT_THAT(world.client().Update(resources::kNodePools, pool, kube::Subresource::kNone), IsOk());
  ASSERT_TRUE(
      world.RunUntil([&] { return world.List(resources::kNodeClaims).size() == 2; }, seconds(60)));
  EXPECT_EQ(
      ConditionStatus(world.Get(resources::kNodeClaims, original), api::kConditionDisruptionReason),
      "True");
  world.RunFor(minutes(9), seconds(1));
  EXPECT_THAT(AllEvents(world, "DisruptionRollback"), IsEmpty()) << "still within the timeout";
  ASSERT_TRUE(
      world.RunUntil([&] { return !AllEvents(world, "DisruptionRollback").empty(); }, minutes(2)));
  EXPECT_THAT(AllEvents(world, "DisruptionRollback"),
              Contains("not disrupted: replacements did not initialize in time"));
  world.RunFor(seconds(2));
  const Object kept = world.Get(resources::kNodeClaims, original);
  ASSERT_FALSE(kept.is_null());
  EXPECT_TRUE(kube::DeletionTimestamp(kept).empty());
  EXPECT_EQ(ConditionStatus(kept, api::kConditionDisruptionReason), "");
  EXPECT_THAT(world.PendingPods(), IsEmpty()) << "the pod never left";
}

TEST(DisruptionScenarioTest, ExpiredNodeClaimsAreReplacedRegardlessOfBudgets) {
  World world;
  Object pool = Pool(Budgets(Object::array({{{"nodes", "0"}}})), kSmallOnly);
  pool["spec"]["template"]["spec"]["expireAfter"] = "1h";
  StartWith(world, pool);
  world.KeepReplicas("web", 1, "1500m");
  ASSERT_TRUE(world.RunUntil([&] { return AllRunning(world); }));
  const std::string first(kube::Name(world.List(resources::kNodeClaims)[0]));
  world.RunUntilTime(kStart + minutes(59), seconds(5));
  EXPECT_FALSE(world.Get(resources::kNodeClaims, first).is_null());
  ASSERT_TRUE(world.RunUntil(
      [&] {
        const std::vector<Object> claims = world.List(resources::kNodeClaims);
        return claims.size() == 1 && kube::Name(claims[0]) != first && AllRunning(world);
      },
      minutes(3)));
  EXPECT_THAT(world.EventMessages(first, "Expired"), ElementsAre("expired after 1h0m0s"));
}

TEST(DisruptionScenarioTest, ReplacementThatFailsRollsTheCommandBack) {
  World world(7, kThreeSizes);
  StartWith(world, Pool(kAllAtOnce));
  LargeNodeWithOneSmallPod(world);
  ASSERT_TRUE(
      world.RunUntil([&] { return world.List(resources::kNodeClaims).size() == 2; }, seconds(60)));
  // The replacement cannot launch: no capacity for "tiny" any more.
  world.cloud().SetOfferingAvailable("tiny", "us-east-1a", "on-demand", false);
  world.cloud().SetOfferingAvailable("small", "us-east-1a", "on-demand", false);
  ASSERT_TRUE(
      world.RunUntil([&] { return !AllEvents(world, "DisruptionRollback").empty(); }, seconds(30)));
  world.RunFor(seconds(2));
  EXPECT_EQ(InstanceTypes(world), std::vector<std::string>{"large"});
  const Object node = world.List(resources::kNodes)[0];
  EXPECT_FALSE(controllers::HasTaint(node, controllers::DisruptedTaint()));
  const Object claim = world.List(resources::kNodeClaims)[0];
  EXPECT_EQ(ConditionStatus(claim, api::kConditionDisruptionReason), "");
  EXPECT_THAT(world.PendingPods(), IsEmpty()) << "the pod never left";
}

TEST(DisruptionScenarioTest, AReplacementTheCacheHasNotSeenYetIsNotRolledBack) {
  World world(7, kThreeSizes);
  StartWith(world, Pool(kAllAtOnce));
  LargeNodeWithOneSmallPod(world);
  ASSERT_TRUE(world.RunUntil([&] {
    return ConditionStatus(world.List(resources::kNodeClaims)[0], "Consolidatable") == "True";
  }));
  world.Step(milliseconds(0));
  // The NodeClaim cache stops where it is: the replacement exists only on the API server while
  // the command watches it (a CI run once rolled a launching replacement back for this).
  world.Hold(resources::kNodeClaims);
  ASSERT_TRUE(
      world.RunUntil([&] { return world.List(resources::kNodeClaims).size() == 2; }, seconds(60)));
  world.RunFor(seconds(3));
  EXPECT_THAT(AllEvents(world, "DisruptionRollback"), IsEmpty());
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(2)) << "the replacement was deleted";
  world.Release(resources::kNodeClaims);
  ASSERT_TRUE(world.RunUntil(
      [&] { return InstanceTypes(world) == std::vector<std::string>{"tiny"} && AllRunning(world); },
      seconds(120)));
  EXPECT_THAT(AllEvents(world, "DisruptionRollback"), IsEmpty());
}

}  // namespace
}  // namespace karpenter::scenario
