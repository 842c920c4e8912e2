// The disruption methods on clusters built by hand: which candidates each method picks, the
// replacements it plans, what it saves, the budgets it respects, and revalidation.

#include "disruption/methods.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "cloud/catalog.h"
#include "disruption/simulation.h"
#include "support/matchers.h"

namespace karpenter::disruption {
namespace {

using testing::Contains;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Pair;
using testing::SizeIs;
using testing::StartsWith;
using testing::UnorderedElementsAre;

constexpr int kMany = 1000;
constexpr BudgetRemaining kUnlimited = {kMany, kMany, kMany};
constexpr double kCents = 1e-9;  // prices are compared exactly, up to rounding
const std::string kOnDemand(api::kCapacityTypeOnDemand);
const std::string kSpot(api::kCapacityTypeSpot);
const std::string kZone = "zone-a";

// On-demand types in one zone, priced by size: each is as cost-efficient as the others.
constexpr std::string_view kCatalog = R"({"instanceTypes": [
  {"name": "small", "capacity": {"cpu": "2", "memory": "8Gi"},
   "offerings": [{"zone": "zone-a", "capacityType": "on-demand", "price": 0.10}]},
  {"name": "medium", "capacity": {"cpu": "4", "memory": "16Gi"},
   "offerings": [{"zone": "zone-a", "capacityType": "on-demand", "price": 0.20}]},
  {"name": "large", "capacity": {"cpu": "8", "memory": "32Gi"},
   "offerings": [{"zone": "zone-a", "capacityType": "on-demand", "price": 0.40}]},
  {"name": "xlarge", "capacity": {"cpu": "16", "memory": "64Gi"},
   "offerings": [{"zone": "zone-a", "capacityType": "on-demand", "price": 0.80}]}
]})";

// Same-sized (4 CPU) types with spot and on-demand offerings: "current" at $0.50/h spot, `cheaper`
// types "cheap-NN" whose spot offering costs less ($0.10 + NN cents), three dearer ones, every
// on-demand offering at $1.00/h or more — and, with `cheap_on_demand`, "od-cheap" at $0.30/h
// on-demand (and $0.55/h spot).
std::string SpotCatalog(int cheaper, bool cheap_on_demand = false) {
  std::string types;
  auto add = [&](const std::string& name, double spot, double on_demand) {
    if (!types.empty()) types += ",\n";
    types += fmt::format(
        R"({{"name": "{}", "capacity": {{"cpu": "4", "memory": "16Gi"}}, "offerings": [)"
        R"({{"zone": "zone-a", "capacityType": "spot", "price": {}}},)"
        R"({{"zone": "zone-a", "capacityType": "on-demand", "price": {}}}]}})",
        name, spot, on_demand);
  };
  add("current", 0.50, 1.00);
  for (int i = 0; i < cheaper; ++i) add(fmt::format("cheap-{:02}", i), 0.10 + 0.01 * i, 1.00);
  for (int i = 0; i < 3; ++i) add(fmt::format("dear-{}", i), 0.60 + 0.01 * i, 1.20);
  if (cheap_on_demand) add("od-cheap", 0.55, 0.30);
  return R"({"instanceTypes": [)" + types + "]}";
}

api::Pod MakePod(std::string name, int64_t milli_cpu) {
  api::Pod pod;
  pod.metadata.name = std::move(name);
  pod.metadata.namespace_ = "t";
  api::Container container;
  container.name = "c";
  container.requests.Set(api::kResourceCpu, Quantity::FromMilli(milli_cpu));
  container.requests.Set(api::kResourceMemory, Quantity::FromUnits(int64_t{256} << 20));
  pod.spec.containers.push_back(std::move(container));
  pod.status.phase = "Running";
  return pod;
}

std::vector<std::string> TypeNames(const provisioning::PlannedNodeClaim& claim) {
  std::vector<std::string> names;
  for (const cloud::InstanceType* type : claim.instance_types) names.push_back(type->name);
  return names;
}

class MethodsTest : public testing::Test {
 protected:
  // Call before adding NodePools: their offers point into the catalog.
  void UseCatalog(std::string_view json) {
    Result<std::vector<cloud::InstanceType>> catalog = cloud::ParseCatalogJson(json, "test");
    ASSERT_THAT(catalog, IsOk());
    catalog_ = std::move(*catalog);
  }

  api::NodePool& AddPool(std::string name, BudgetRemaining budget = kUnlimited) {
    if (catalog_.empty()) UseCatalog(kCatalog);
    api::NodePool& pool = pools_.emplace_back();
    pool.metadata.name = name;
    provisioning::NodePoolOffer offer;
    offer.node_pool = &pool;
    for (const cloud::InstanceType& type : catalog_) offer.instance_types.push_back(&type);
    cluster_.capacity.node_pools.push_back(std::move(offer));
    cluster_.budgets[name] = budget;
    return pool;
  }

  void SetBudget(const api::NodePool& pool, api::DisruptionReason reason, int nodes) {
    cluster_.budgets[pool.metadata.name][static_cast<size_t>(reason)] = nodes;
  }

  const cloud::InstanceType& Type(std::string_view name) const {
    const auto it =
        std::find_if(catalog_.begin(), catalog_.end(),
                     [&](const cloud::InstanceType& type) { return type.name == name; });
    if (it == catalog_.end()) throw std::invalid_argument("no instance type " + std::string(name));
    return *it;
  }

  // A node of `type` (allocatable: the type's), its index in capacity.existing_nodes.
  size_t AddNode(const std::string& name, const std::string& type,
                 const api::NodePool* pool = nullptr, const std::string& capacity_type = kOnDemand,
                 bool accepts_pods = true) {
    provisioning::ExistingNode node;
    node.name = name;
    node.labels = {{std::string(api::kLabelInstanceType), type},
                   {std::string(api::kLabelCapacityType), capacity_type},
                   {std::string(api::kLabelZone), kZone},
                   {std::string(api::kLabelHostname), name}};
    if (pool != nullptr) node.labels[std::string(api::kLabelNodePool)] = pool->metadata.name;
    node.allocatable = Type(type).Allocatable();
    cluster_.capacity.existing_nodes.push_back(std::move(node));
    cluster_.accepts_pods.push_back(accepts_pods);
    return cluster_.capacity.existing_nodes.size() - 1;
  }

  api::Pod& AddPodToNode(size_t node, int64_t milli_cpu) {
    provisioning::ExistingNode& existing = cluster_.capacity.existing_nodes[node];
    api::Pod& pod = pods_.emplace_back(
        MakePod(fmt::format("{}-{}", existing.name, existing.pods.size()), milli_cpu));
    existing.pods.push_back(&pod);
    return pod;
  }

  // A consolidatable candidate of `pool` on a new node of `type`, running one pod per entry of
  // `pod_cpus` (millicores); its index in cluster_.candidates. Each pod costs 1 to evict.
  size_t AddCandidate(const std::string& name, const api::NodePool& pool, const std::string& type,
                      const std::vector<int64_t>& pod_cpus,
                      const std::string& capacity_type = kOnDemand) {
    const size_t node = AddNode(name, type, &pool, capacity_type);
    Candidate candidate;
    candidate.capacity_index = node;
    candidate.node = name;
    candidate.node_claim = name + "-claim";
    candidate.node_pool = &pool;
    candidate.instance_type = type;
    candidate.capacity_type = capacity_type;
    candidate.zone = kZone;
    candidate.price_per_hour = CheapestPrice(Type(type), {kZone}, {capacity_type});
    candidate.consolidatable = true;
    cluster_.candidates.push_back(std::move(candidate));
    const size_t index = cluster_.candidates.size() - 1;
    for (int64_t cpu : pod_cpus) AddPod(index, cpu);
    return index;
  }

  api::Pod& AddPod(size_t candidate, int64_t milli_cpu) {
    Candidate& c = cluster_.candidates[candidate];
    api::Pod& pod = AddPodToNode(c.capacity_index, milli_cpu);
    c.pods.push_back(&pod);
    c.disruption_cost += 1;
    c.node_disruption_cost += 1;
    return pod;
  }

  Candidate& At(size_t candidate) { return cluster_.candidates[candidate]; }

  // The node names of a command's candidates, in its order.
  std::vector<std::string> Nodes(const Command& command) const {
    std::vector<std::string> nodes;
    for (size_t index : command.candidates) nodes.push_back(cluster_.candidates[index].node);
    return nodes;
  }

  // What single-node consolidation says of each candidate it tried and could not move: (node, why).
  std::vector<std::pair<std::string, std::string>> WhyNot(const Options& options = {}) const {
    std::vector<std::pair<std::string, std::string>> why_not;
    (void)SingleNodeConsolidation(cluster_, options, [&](size_t index, std::string_view why) {
      why_not.emplace_back(cluster_.candidates[index].node, why);
    });
    return why_not;
  }

  std::vector<cloud::InstanceType> catalog_;
  std::deque<api::NodePool> pools_;
  std::deque<api::Pod> pods_;
  Cluster cluster_;
};

// ---- emptiness ----------------------------------------------------------------------------------

TEST_F(MethodsTest, EmptinessTakesOnlyConsolidatableNodesWithoutPods) {
  const api::NodePool& pool = AddPool("default");
  AddCandidate("empty-small", pool, "small", {});
  AddCandidate("empty-medium", pool, "medium", {});
  At(AddCandidate("empty-too-young", pool, "large", {})).consolidatable = false;
  AddCandidate("busy", pool, "small", {500});

  const std::optional<Command> command = Emptiness(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kEmptiness);
  EXPECT_THAT(Nodes(*command), ElementsAre("empty-medium", "empty-small"));
  EXPECT_THAT(command->replacements, IsEmpty());
  EXPECT_NEAR(command->savings_per_hour, 0.30, kCents);
  EXPECT_EQ(command->Describe(cluster_), "deleting 2 nodes with no pods to move, saving $0.30/h");
}

TEST_F(MethodsTest, EmptinessRespectsEachNodePoolsBudgetCheapestToDisruptPerDollarFirst) {
  const api::NodePool& one = AddPool("one", {kMany, 1, kMany});
  const api::NodePool& two = AddPool("two", {kMany, 2, kMany});
  const api::NodePool& none = AddPool("none", {kMany, 0, kMany});
  // Per dollar: one-a 3/0.10 = 30, one-b 1/0.20 = 5, one-c 1/0.10 = 10.
  At(AddCandidate("one-a", one, "small", {})).disruption_cost = 3;
  At(AddCandidate("one-b", one, "medium", {})).disruption_cost = 1;
  At(AddCandidate("one-c", one, "small", {})).disruption_cost = 1;
  AddCandidate("two-c", two, "small", {});
  AddCandidate("two-a", two, "small", {});
  AddCandidate("two-b", two, "large", {});
  AddCandidate("none-a", none, "xlarge", {});

  const std::optional<Command> command = Emptiness(cluster_);
  ASSERT_TRUE(command.has_value());
  // Equally cheap to disrupt: by name.
  EXPECT_THAT(Nodes(*command), ElementsAre("two-a", "two-b", "one-b"));
  EXPECT_NEAR(command->savings_per_hour, 0.10 + 0.40 + 0.20, kCents);
}

TEST_F(MethodsTest, EmptinessDoesNothingWithoutBudget) {
  const api::NodePool& pool = AddPool("default", {kMany, 0, kMany});
  AddCandidate("empty", pool, "small", {});
  EXPECT_FALSE(Emptiness(cluster_).has_value());

  // A NodePool without budgets in the cluster has none left either.
  cluster_.budgets.clear();
  EXPECT_FALSE(Emptiness(cluster_).has_value());

  cluster_.budgets["default"] = {0, 1, 0};
  EXPECT_TRUE(Emptiness(cluster_).has_value());
}

TEST_F(MethodsTest, EmptinessIncludesWhenEmptyNodePools) {
  api::NodePool& pool = AddPool("calm");
  pool.spec.disruption.consolidation_policy = api::ConsolidationPolicy::kWhenEmpty;
  AddCandidate("empty", pool, "small", {});
  const std::optional<Command> command = Emptiness(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("empty"));
}

// ---- drift --------------------------------------------------------------------------------------

TEST_F(MethodsTest, DriftDeletesEmptyDriftedNodesFirst) {
  const api::NodePool& pool = AddPool("default");
  At(AddCandidate("busy", pool, "small", {500})).drifted = "NodePoolDrifted";
  At(AddCandidate("empty-b", pool, "medium", {})).drifted = "NodePoolDrifted";
  At(AddCandidate("empty-a", pool, "small", {})).drifted = "NodePoolDrifted";
  AddCandidate("empty-not-drifted", pool, "small", {});
  // Drift does not wait for consolidateAfter.
  for (Candidate& candidate : cluster_.candidates) candidate.consolidatable = false;

  const std::optional<Command> command = Drift(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kDrift);
  EXPECT_THAT(Nodes(*command), ElementsAre("empty-a", "empty-b"));
  EXPECT_THAT(command->replacements, IsEmpty());
  EXPECT_NEAR(command->savings_per_hour, 0.30, kCents);
  EXPECT_EQ(command->Describe(cluster_),
            "deleting 2 nodes drifted (NodePoolDrifted), their pods fit elsewhere");
}

TEST_F(MethodsTest, DriftReplacesDriftedNodesWithAsManyNodeClaimsAsTheirPodsNeed) {
  const api::NodePool& a = AddPool("a");
  const api::NodePool& b = AddPool("b");
  // Each pod needs its own NodePool: one replacement per pool.
  const size_t in_a = AddCandidate("a-1", a, "medium", {});
  AddPod(in_a, 1000).spec.node_selector = {{std::string(api::kLabelNodePool), "a"}};
  const size_t in_b = AddCandidate("b-1", b, "medium", {});
  AddPod(in_b, 1000).spec.node_selector = {{std::string(api::kLabelNodePool), "b"}};
  for (Candidate& candidate : cluster_.candidates) {
    candidate.drifted = "NodePoolDrifted";
    candidate.consolidatable = false;
  }

  const std::optional<Command> command = Drift(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("a-1", "b-1"));
  ASSERT_THAT(command->replacements, SizeIs(2));
  EXPECT_EQ(command->replacements[0].node_pool, "a");
  EXPECT_EQ(command->replacements[1].node_pool, "b");
  // Drift does not look for cheaper nodes: every type that fits remains an option.
  EXPECT_THAT(TypeNames(command->replacements[0]),
              ElementsAre("small", "medium", "large", "xlarge"));
  const double worst =
      WorstCasePrice(command->replacements[0]) + WorstCasePrice(command->replacements[1]);
  EXPECT_NEAR(worst, 1.60, kCents);
  EXPECT_NEAR(command->savings_per_hour, 0.40 - worst, kCents);
  EXPECT_EQ(command->Describe(cluster_),
            "replacing 2 nodes drifted (NodePoolDrifted) with 2 nodes (small, small)");
}

TEST_F(MethodsTest, DriftMovesPodsOntoNodesThatStay) {
  const api::NodePool& pool = AddPool("default");
  At(AddCandidate("old", pool, "medium", {1000, 1000})).drifted = "NodePoolDrifted";
  AddNode("room", "large");
  const std::optional<Command> command = Drift(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("old"));
  EXPECT_THAT(command->replacements, IsEmpty());
  EXPECT_NEAR(command->savings_per_hour, 0.20, kCents);
}

TEST_F(MethodsTest, DriftRespectsItsBudget) {
  const api::NodePool& pool = AddPool("default", {kMany, kMany, 2});
  for (const char* name : {"d-1", "d-2", "d-3"}) {
    At(AddCandidate(name, pool, "small", {500})).drifted = "NodePoolDrifted";
  }
  std::optional<Command> command = Drift(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("d-1", "d-2"));

  // Empty drifted nodes too.
  for (Candidate& candidate : cluster_.candidates) {
    candidate.pods.clear();
    candidate.disruption_cost = 0;
  }
  SetBudget(pool, api::DisruptionReason::kDrifted, 1);
  command = Drift(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("d-1"));

  // Other reasons' budgets do not count.
  cluster_.budgets["default"] = {kMany, kMany, 0};
  EXPECT_FALSE(Drift(cluster_).has_value());
}

TEST_F(MethodsTest, DriftSkipsCandidatesWhosePodsCannotScheduleAnywhere) {
  const api::NodePool& pool = AddPool("default");
  // First in line (as cheap to disrupt, and first by name), but its pod needs a label no NodePool
  // or other node has. Its node is full: the others' pods cannot land on it.
  const size_t pinned = AddCandidate("pinned", pool, "small", {});
  cluster_.capacity.existing_nodes[At(pinned).capacity_index].labels["example.com/team"] = "a";
  AddPod(pinned, 2000).spec.node_selector = {{"example.com/team", "a"}};
  const size_t plain = AddCandidate("plain", pool, "small", {500});
  const size_t also = AddCandidate("plain-2", pool, "small", {500});
  for (size_t index : {pinned, plain, also}) At(index).drifted = "NodePoolDrifted";

  const std::optional<Command> command = Drift(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("plain", "plain-2"));
  EXPECT_THAT(command->replacements, SizeIs(1));

  // Alone, it cannot go.
  At(plain).drifted.clear();
  At(also).drifted.clear();
  EXPECT_FALSE(Drift(cluster_).has_value());
}

TEST_F(MethodsTest, DriftBudgetIsNotSpentOnACandidateThatCannotGo) {
  // A budget of one (10% of a small NodePool) must not stay stuck on a node that cannot go.
  const api::NodePool& pool = AddPool("default", {kMany, kMany, 1});
  const size_t pinned = AddCandidate("pinned", pool, "small", {});
  cluster_.capacity.existing_nodes[At(pinned).capacity_index].labels["example.com/team"] = "a";
  AddPod(pinned, 2000).spec.node_selector = {{"example.com/team", "a"}};
  const size_t plain = AddCandidate("plain", pool, "small", {500});
  const size_t also = AddCandidate("plain-2", pool, "small", {500});
  for (size_t index : {pinned, plain, also}) At(index).drifted = "NodePoolDrifted";

  const std::optional<Command> command = Drift(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("plain"));
}

TEST_F(MethodsTest, DriftIgnoresCandidatesThatAreNotDrifted) {
  const api::NodePool& pool = AddPool("default");
  AddCandidate("empty", pool, "small", {});
  AddCandidate("busy", pool, "small", {500});
  EXPECT_FALSE(Drift(cluster_).has_value());
}

// ---- multi-node consolidation -------------------------------------------------------------------

class ManyCandidatesTest : public MethodsTest {
 protected:
  // 300 full small nodes (a 1.5-CPU pod each, cheapest to disrupt first by name) and one node,
  // first in line for displaced pods, with `room_cpus` CPUs free (and pod slots for them all).
  void Build(int room_cpus, int budget) {
    const api::NodePool& pool = AddPool("default", {budget, kMany, kMany});
    const size_t room = AddNode("room", "xlarge");
    api::ResourceList& allocatable = cluster_.capacity.existing_nodes[room].allocatable;
    allocatable.Set(api::kResourceCpu, Quantity::FromUnits(room_cpus));
    allocatable.Set(api::kResourceMemory, Quantity::FromUnits(int64_t{1} << 40));
    allocatable.Set(api::kResourcePods, Quantity::FromUnits(1000));
    for (int i = 0; i < 300; ++i) AddCandidate(fmt::format("n-{:03}", i), pool, "small", {1500});
  }
};

TEST_F(ManyCandidatesTest, MultiNodeSearchesEveryCandidateNotJustTheFirstHundred) {
  Build(/*room_cpus=*/1000, /*budget=*/kMany);
  const std::optional<Command> command = MultiNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kMultiNodeConsolidation);
  EXPECT_THAT(command->candidates, SizeIs(300));
  EXPECT_THAT(command->replacements, IsEmpty());
  EXPECT_NEAR(command->savings_per_hour, 30.0, 1e-6);
}

TEST_F(ManyCandidatesTest, MultiNodeFindsTheLargestSetWithOneReplacement) {
  // The room takes 150 pods; one xlarge (16 CPUs) takes 10 more; 161 would need two.
  Build(/*room_cpus=*/225, /*budget=*/kMany);
  const std::optional<Command> command = MultiNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  ASSERT_THAT(command->candidates, SizeIs(160));
  EXPECT_EQ(cluster_.candidates[command->candidates.front()].node, "n-000");
  EXPECT_EQ(cluster_.candidates[command->candidates.back()].node, "n-159");
  ASSERT_THAT(command->replacements, SizeIs(1));
  EXPECT_THAT(TypeNames(command->replacements[0]), ElementsAre("xlarge"));
  EXPECT_NEAR(command->savings_per_hour, 16.0 - 0.80, 1e-6);
  EXPECT_EQ(command->Describe(cluster_), "consolidating 160 nodes into 1 xlarge, saving $15.20/h");
}

TEST_F(ManyCandidatesTest, MultiNodeRespectsTheUnderutilizedBudget) {
  Build(/*room_cpus=*/1000, /*budget=*/120);
  const std::optional<Command> command = MultiNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(command->candidates, SizeIs(120));
  EXPECT_THAT(command->replacements, IsEmpty());
}

TEST_F(MethodsTest, MultiNodeExcludesCandidatesThatMayNotBeConsolidated) {
  const api::NodePool& pool = AddPool("default");
  api::NodePool& calm = AddPool("calm");
  calm.spec.disruption.consolidation_policy = api::ConsolidationPolicy::kWhenEmpty;
  AddNode("room", "xlarge");
  At(AddCandidate("too-young", pool, "small", {500})).consolidatable = false;
  AddCandidate("empty", pool, "small", {});
  At(AddCandidate("unpriced", pool, "small", {500})).price_per_hour = 0;
  AddCandidate("when-empty", calm, "small", {500});
  AddCandidate("ok-1", pool, "medium", {500});
  AddCandidate("ok-2", pool, "medium", {500});

  const std::optional<Command> command = MultiNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("ok-1", "ok-2"));
  EXPECT_THAT(command->replacements, IsEmpty());
  EXPECT_NEAR(command->savings_per_hour, 0.40, kCents);
  EXPECT_EQ(command->Describe(cluster_),
            "consolidating 2 nodes away, their pods fit on other nodes, saving $0.40/h");
}

TEST_F(MethodsTest, MultiNodeLeavesASingleCandidateToSingleNode) {
  const api::NodePool& pool = AddPool("default");
  AddNode("room", "xlarge");
  AddCandidate("only", pool, "medium", {500});
  EXPECT_FALSE(MultiNodeConsolidation(cluster_, {}).has_value());
  const std::optional<Command> command = SingleNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kSingleNodeConsolidation);
  EXPECT_THAT(Nodes(*command), ElementsAre("only"));
}

TEST_F(MethodsTest, MultiNodeReplacementMustBeStrictlyCheaper) {
  const api::NodePool& pool = AddPool("default");
  // 7 CPUs need a large: $0.40/h, what the two mediums cost.
  AddCandidate("m-1", pool, "medium", {3500});
  AddCandidate("m-2", pool, "medium", {3500});
  EXPECT_FALSE(MultiNodeConsolidation(cluster_, {}).has_value());
}

TEST_F(MethodsTest, MultiNodeReplacesSeveralNodesByOneCheaperNode) {
  const api::NodePool& pool = AddPool("default");
  // Any two can go (one pod onto the third, one onto a small), so the search tries all three:
  // their 6 CPUs fit a large.
  AddCandidate("m-1", pool, "medium", {2000});
  AddCandidate("m-2", pool, "medium", {2000});
  AddCandidate("m-3", pool, "medium", {2000});

  const std::optional<Command> command = MultiNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("m-1", "m-2", "m-3"));
  ASSERT_THAT(command->replacements, SizeIs(1));
  const provisioning::PlannedNodeClaim& replacement = command->replacements[0];
  // The xlarge fits too but costs more than the three mediums.
  EXPECT_THAT(TypeNames(replacement), ElementsAre("large"));
  const scheduling::Requirement* types = replacement.requirements.Get(api::kLabelInstanceType);
  ASSERT_NE(types, nullptr);
  EXPECT_THAT(types->Values(), ElementsAre("large"));
  EXPECT_NEAR(replacement.price_per_hour, 0.40, kCents);
  EXPECT_NEAR(command->savings_per_hour, 0.20, kCents);
  EXPECT_EQ(command->Describe(cluster_), "consolidating 3 nodes into 1 large, saving $0.20/h");
}

TEST_F(MethodsTest, SpotToSpotOfSeveralNodesNeedsNoFifteenTypes) {
  // Three spot types cheaper than "current": too few to replace one node, yet a merge of two
  // takes any spot type cheaper than both together.
  UseCatalog(SpotCatalog(3));
  const api::NodePool& pool = AddPool("default");
  AddCandidate("spot-1", pool, "current", {1000}, kSpot);
  AddCandidate("spot-2", pool, "current", {1000}, kSpot);
  EXPECT_FALSE(MultiNodeConsolidation(cluster_, {}).has_value());  // the gate is off
  const std::optional<Command> command = MultiNodeConsolidation(cluster_, Options{true});
  ASSERT_TRUE(command.has_value());
  ASSERT_THAT(command->replacements, SizeIs(1));
  EXPECT_THAT(
      TypeNames(command->replacements[0]),
      ElementsAre("cheap-00", "cheap-01", "cheap-02", "current", "dear-0", "dear-1", "dear-2"));
  EXPECT_THAT(command->replacements[0].capacity_types, ElementsAre(kSpot));
  EXPECT_NEAR(command->savings_per_hour, 1.00 - 0.62, kCents);
}

TEST_F(MethodsTest, MergeOfSpotAndOnDemandNodesGoesToSpotWithoutTheGate) {
  // Not spot-to-spot: one of the two is on-demand, so upstream merges them into a cheaper spot
  // node with the gate off (only candidates that are all spot need it).
  UseCatalog(SpotCatalog(3));
  const api::NodePool& pool = AddPool("default");
  AddCandidate("spot", pool, "current", {1000}, kSpot);
  AddCandidate("on-demand", pool, "current", {1000}, kOnDemand);
  const std::optional<Command> command = MultiNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), UnorderedElementsAre("spot", "on-demand"));
  ASSERT_THAT(command->replacements, SizeIs(1));
  EXPECT_THAT(command->replacements[0].capacity_types, ElementsAre(kSpot));
  EXPECT_THAT(TypeNames(command->replacements[0]), Contains("cheap-00"));
  // At worst the dearest spot type: $0.62/h, for $0.50/h + $1.00/h.
  EXPECT_NEAR(command->savings_per_hour, 1.50 - 0.62, kCents);
}

// ---- single-node consolidation ------------------------------------------------------------------

TEST_F(MethodsTest, SingleNodeDeletesWhenPodsFitOnNodesThatAcceptThem) {
  const api::NodePool& pool = AddPool("default");
  AddCandidate("candidate", pool, "medium", {1000});
  const size_t other = AddNode("other", "medium");

  std::optional<Command> command = SingleNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kSingleNodeConsolidation);
  EXPECT_THAT(Nodes(*command), ElementsAre("candidate"));
  EXPECT_THAT(command->replacements, IsEmpty());
  EXPECT_NEAR(command->savings_per_hour, 0.20, kCents);
  EXPECT_EQ(command->Describe(cluster_),
            "consolidating 1 node away, their pods fit on other nodes, saving $0.20/h");

  // An uninitialized (or disrupting) node takes no pods: the candidate needs a replacement.
  cluster_.accepts_pods[other] = false;
  command = SingleNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  ASSERT_THAT(command->replacements, SizeIs(1));
  EXPECT_THAT(TypeNames(command->replacements[0]), ElementsAre("small"));
  EXPECT_NEAR(command->savings_per_hour, 0.10, kCents);
  EXPECT_EQ(command->Describe(cluster_), "consolidating 1 node into 1 small, saving $0.10/h");
}

TEST_F(MethodsTest, SingleNodeReplacesWithStrictlyCheaperTypesAndSavesAtWorst) {
  const api::NodePool& pool = AddPool("default");
  AddCandidate("large", pool, "large", {1500});

  const std::optional<Command> command = SingleNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  ASSERT_THAT(command->replacements, SizeIs(1));
  const provisioning::PlannedNodeClaim& replacement = command->replacements[0];
  EXPECT_THAT(TypeNames(replacement), ElementsAre("small", "medium"));
  const scheduling::Requirement* types = replacement.requirements.Get(api::kLabelInstanceType);
  ASSERT_NE(types, nullptr);
  EXPECT_THAT(types->Values(), ElementsAre("medium", "small"));
  EXPECT_NEAR(replacement.price_per_hour, 0.10, kCents);
  // The launch may end up a medium: save what that saves.
  EXPECT_NEAR(command->savings_per_hour, 0.40 - 0.20, kCents);
}

TEST_F(MethodsTest, SingleNodeDoesNothingWhenNoReplacementIsCheaper) {
  const api::NodePool& pool = AddPool("default");
  // 1.5 CPUs need a small: the same price.
  AddCandidate("small", pool, "small", {1500});
  EXPECT_FALSE(SingleNodeConsolidation(cluster_, {}).has_value());
  EXPECT_FALSE(ComputeCommand(cluster_, {}).has_value());
  EXPECT_THAT(WhyNot(), ElementsAre(Pair("small", "No cheaper node can replace it")));
}

TEST_F(MethodsTest, SingleNodeSaysWhichPodWouldNotSchedule) {
  api::NodePool& pool = AddPool("default");
  AddCandidate("big", pool, "xlarge", {1000, 1000});
  // The NodePool may launch nothing that fits the pods any more.
  pool.spec.template_.spec.requirements = {
      {std::string(api::kLabelInstanceType), api::NodeSelectorOperator::kIn, {"nothing"}, {}}};
  EXPECT_FALSE(SingleNodeConsolidation(cluster_, {}).has_value());
  const auto why = WhyNot();
  ASSERT_THAT(why, SizeIs(1));
  EXPECT_EQ(why[0].first, "big");
  EXPECT_THAT(why[0].second, StartsWith("Not all pods would schedule elsewhere: "));
  EXPECT_THAT(why[0].second, HasSubstr("big-0: "));
}

TEST_F(MethodsTest, SingleNodeDoesNothingWhenTheNodePoolOffersOnlyDearerTypes) {
  api::NodePool& pool = AddPool("default");
  pool.spec.template_.spec.requirements = {
      {std::string(api::kLabelInstanceType), api::NodeSelectorOperator::kIn, {"large"}, {}}};
  AddCandidate("small", pool, "small", {500});
  EXPECT_FALSE(SingleNodeConsolidation(cluster_, {}).has_value());
}

TEST_F(MethodsTest, SingleNodeTakesTheFirstCandidateThatCanGo) {
  const api::NodePool& pool = AddPool("default");
  // Per dollar: stuck 1/0.40, movable 1/0.20: stuck is tried first, but a large is all it fits.
  AddCandidate("stuck", pool, "large", {7000});
  AddCandidate("movable", pool, "medium", {1500});
  const std::optional<Command> command = SingleNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("movable"));
}

TEST_F(MethodsTest, SingleNodeBudgetIsNotSpentOnACandidateThatCannotGo) {
  // With a budget of one, every candidate of the NodePool is still worth a try.
  const api::NodePool& pool = AddPool("default", {1, kMany, kMany});
  AddCandidate("stuck", pool, "large", {7000});
  AddCandidate("movable", pool, "medium", {1500});
  const std::optional<Command> command = SingleNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("movable"));

  SetBudget(pool, api::DisruptionReason::kUnderutilized, 0);
  EXPECT_FALSE(SingleNodeConsolidation(cluster_, {}).has_value());
}

TEST_F(MethodsTest, ConsolidationStopsAtItsTimeout) {
  const api::NodePool& pool = AddPool("default");
  AddCandidate("m-1", pool, "medium", {2000});
  AddCandidate("m-2", pool, "medium", {2000});
  AddCandidate("m-3", pool, "medium", {2000});
  std::vector<Method> timed_out;
  const TimeoutObserver observe = [&](Method method) { timed_out.push_back(method); };
  Options no_time;
  no_time.multi_node_timeout = std::chrono::nanoseconds(0);
  no_time.single_node_timeout = std::chrono::nanoseconds(0);
  EXPECT_FALSE(MultiNodeConsolidation(cluster_, no_time, observe).has_value());
  EXPECT_FALSE(SingleNodeConsolidation(cluster_, no_time, {}, observe).has_value());
  EXPECT_THAT(timed_out,
              ElementsAre(Method::kMultiNodeConsolidation, Method::kSingleNodeConsolidation));
  // With the default minutes, the same searches find their commands and time out never.
  EXPECT_TRUE(MultiNodeConsolidation(cluster_, {}, observe).has_value());
  EXPECT_TRUE(SingleNodeConsolidation(cluster_, {}, {}, observe).has_value());
  EXPECT_THAT(timed_out, SizeIs(2));
}

// ---- spot ---------------------------------------------------------------------------------------

TEST_F(MethodsTest, SpotNodeIsNotReplacedBySpotWithoutTheFeatureGate) {
  UseCatalog(SpotCatalog(20));
  const api::NodePool& pool = AddPool("default");
  AddCandidate("spot", pool, "current", {1000}, kSpot);
  ASSERT_NEAR(At(0).price_per_hour, 0.50, kCents);
  EXPECT_FALSE(SingleNodeConsolidation(cluster_, {}).has_value());
  EXPECT_FALSE(ComputeCommand(cluster_, {}).has_value());
  const auto why = WhyNot();
  ASSERT_THAT(why, SizeIs(1));
  EXPECT_THAT(why[0].second, StartsWith("SpotToSpotConsolidation is disabled"));
}

TEST_F(MethodsTest, SpotNodeMayBeReplacedByCheaperOnDemandWithoutTheFeatureGate) {
  UseCatalog(SpotCatalog(20, /*cheap_on_demand=*/true));
  const api::NodePool& pool = AddPool("default");
  AddCandidate("spot", pool, "current", {1000}, kSpot);
  const std::optional<Command> command = SingleNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  ASSERT_THAT(command->replacements, SizeIs(1));
  const provisioning::PlannedNodeClaim& replacement = command->replacements[0];
  EXPECT_THAT(TypeNames(replacement), ElementsAre("od-cheap"));
  EXPECT_THAT(replacement.capacity_types, ElementsAre(kOnDemand));
  const scheduling::Requirement* capacity = replacement.requirements.Get(api::kLabelCapacityType);
  ASSERT_NE(capacity, nullptr);
  EXPECT_THAT(capacity->Values(), ElementsAre(kOnDemand));
  EXPECT_NEAR(command->savings_per_hour, 0.20, kCents);
}

TEST_F(MethodsTest, SpotToSpotNeedsFifteenCheaperSpotTypes) {
  static_assert(kMinSpotReplacementTypes == 15);
  UseCatalog(SpotCatalog(14));
  const api::NodePool& pool = AddPool("default");
  AddCandidate("spot", pool, "current", {1000}, kSpot);
  const Options gate{true};
  EXPECT_FALSE(SingleNodeConsolidation(cluster_, gate).has_value());
  EXPECT_THAT(WhyNot(gate),
              ElementsAre(Pair("spot",
                               "SpotToSpotConsolidation needs 15 cheaper spot instance types to "
                               "replace a spot node, and 14 are")));
}

TEST_F(MethodsTest, SpotToSpotWithFifteenCheaperSpotTypes) {
  UseCatalog(SpotCatalog(15));
  const api::NodePool& pool = AddPool("default");
  AddCandidate("spot", pool, "current", {1000}, kSpot);
  const std::optional<Command> command = SingleNodeConsolidation(cluster_, Options{true});
  ASSERT_TRUE(command.has_value());
  ASSERT_THAT(command->replacements, SizeIs(1));
  EXPECT_THAT(command->replacements[0].instance_types, SizeIs(15));
}

TEST_F(MethodsTest, SpotToSpotKeepsTheFifteenCheapestTypes) {
  UseCatalog(SpotCatalog(20));
  const api::NodePool& pool = AddPool("default");
  AddCandidate("spot", pool, "current", {1000}, kSpot);
  const std::optional<Command> command = SingleNodeConsolidation(cluster_, Options{true});
  ASSERT_TRUE(command.has_value());
  ASSERT_THAT(command->replacements, SizeIs(1));
  const provisioning::PlannedNodeClaim& replacement = command->replacements[0];
  std::vector<std::string> cheapest;
  for (int i = 0; i < 15; ++i) cheapest.push_back(fmt::format("cheap-{:02}", i));
  EXPECT_EQ(TypeNames(replacement), cheapest);
  const scheduling::Requirement* types = replacement.requirements.Get(api::kLabelInstanceType);
  ASSERT_NE(types, nullptr);
  EXPECT_EQ(types->Values(), cheapest);
  const scheduling::Requirement* capacity = replacement.requirements.Get(api::kLabelCapacityType);
  ASSERT_NE(capacity, nullptr);
  EXPECT_TRUE(capacity->Has(kSpot));
  EXPECT_NEAR(replacement.price_per_hour, 0.10, kCents);
  // At worst the dearest of the fifteen: $0.24/h.
  EXPECT_NEAR(command->savings_per_hour, 0.50 - 0.24, kCents);
}

TEST_F(MethodsTest, SpotNodeOfASpotOnlyNodePoolStaysWithoutTheGate) {
  UseCatalog(SpotCatalog(20, /*cheap_on_demand=*/true));
  api::NodePool& pool = AddPool("default");
  pool.spec.template_.spec.requirements = {
      {std::string(api::kLabelCapacityType), api::NodeSelectorOperator::kIn, {kSpot}, {}}};
  AddCandidate("spot", pool, "current", {1000}, kSpot);
  EXPECT_FALSE(SingleNodeConsolidation(cluster_, {}).has_value());

  const std::optional<Command> command = SingleNodeConsolidation(cluster_, Options{true});
  ASSERT_TRUE(command.has_value());
  ASSERT_THAT(command->replacements, SizeIs(1));
  EXPECT_THAT(command->replacements[0].capacity_types, ElementsAre(kSpot));
  EXPECT_THAT(command->replacements[0].instance_types, SizeIs(15));
}

TEST_F(MethodsTest, OnDemandNodeMayBeReplacedBySpot) {
  UseCatalog(SpotCatalog(20));
  const api::NodePool& pool = AddPool("default");
  AddCandidate("on-demand", pool, "current", {1000});
  ASSERT_NEAR(At(0).price_per_hour, 1.00, kCents);
  const std::optional<Command> command = SingleNodeConsolidation(cluster_, {});
  ASSERT_TRUE(command.has_value());
  ASSERT_THAT(command->replacements, SizeIs(1));
  const provisioning::PlannedNodeClaim& replacement = command->replacements[0];
  EXPECT_THAT(replacement.capacity_types, testing::Contains(kSpot));
  EXPECT_EQ(replacement.instance_types.front()->name, "cheap-00");
  EXPECT_NEAR(replacement.price_per_hour, 0.10, kCents);
}

// ---- one pass -----------------------------------------------------------------------------------

TEST_F(MethodsTest, ComputeCommandTriesEmptinessThenDriftThenConsolidation) {
  const api::NodePool& pool = AddPool("default");
  AddNode("room", "xlarge");
  const size_t empty = AddCandidate("empty", pool, "small", {});
  const size_t drifted = AddCandidate("drifted", pool, "small", {500});
  At(drifted).drifted = "NodePoolDrifted";
  At(drifted).consolidatable = false;
  AddCandidate("under-1", pool, "medium", {500});
  const size_t under = AddCandidate("under-2", pool, "medium", {500});

  std::optional<Command> command = ComputeCommand(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kEmptiness);
  EXPECT_THAT(Nodes(*command), ElementsAre("empty"));

  At(empty).consolidatable = false;
  command = ComputeCommand(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kDrift);
  EXPECT_THAT(Nodes(*command), ElementsAre("drifted"));

  At(drifted).drifted.clear();
  command = ComputeCommand(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kMultiNodeConsolidation);
  EXPECT_THAT(Nodes(*command), ElementsAre("under-1", "under-2"));

  At(under).consolidatable = false;
  command = ComputeCommand(cluster_, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kSingleNodeConsolidation);
  EXPECT_THAT(Nodes(*command), ElementsAre("under-1"));
}

// ---- revalidation -------------------------------------------------------------------------------

TEST_F(MethodsTest, RevalidateEmptiness) {
  const api::NodePool& pool = AddPool("default");
  AddCandidate("e-1", pool, "small", {});
  AddCandidate("e-2", pool, "medium", {});
  const std::vector<size_t> both = {0, 1};

  std::optional<Command> command = Revalidate(cluster_, Method::kEmptiness, both, 0, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kEmptiness);
  EXPECT_EQ(command->candidates, both);
  EXPECT_NEAR(command->savings_per_hour, 0.30, kCents);

  SetBudget(pool, api::DisruptionReason::kEmpty, 1);
  EXPECT_FALSE(Revalidate(cluster_, Method::kEmptiness, both, 0, {}).has_value());
  EXPECT_TRUE(Revalidate(cluster_, Method::kEmptiness, {1}, 0, {}).has_value());
  SetBudget(pool, api::DisruptionReason::kEmpty, kMany);

  At(1).consolidatable = false;
  EXPECT_FALSE(Revalidate(cluster_, Method::kEmptiness, both, 0, {}).has_value());
  At(1).consolidatable = true;

  AddPod(1, 100);
  EXPECT_FALSE(Revalidate(cluster_, Method::kEmptiness, both, 0, {}).has_value());
  EXPECT_FALSE(Revalidate(cluster_, Method::kEmptiness, {}, 0, {}).has_value());
}

TEST_F(MethodsTest, RevalidateDrift) {
  const api::NodePool& pool = AddPool("default");
  At(AddCandidate("d-1", pool, "small", {500})).drifted = "NodePoolDrifted";
  At(AddCandidate("d-2", pool, "small", {500})).drifted = "NodePoolDrifted";
  const std::vector<size_t> both = {0, 1};

  std::optional<Command> command = Revalidate(cluster_, Method::kDrift, both, 1, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->candidates, both);
  EXPECT_THAT(command->replacements, SizeIs(1));

  SetBudget(pool, api::DisruptionReason::kDrifted, 1);
  EXPECT_FALSE(Revalidate(cluster_, Method::kDrift, both, 1, {}).has_value());
  SetBudget(pool, api::DisruptionReason::kDrifted, kMany);

  At(1).drifted.clear();
  EXPECT_FALSE(Revalidate(cluster_, Method::kDrift, both, 1, {}).has_value());
  At(1).drifted = "NodePoolDrifted";

  // A pod that no longer fits anywhere stops the whole decision.
  pods_.back().spec.node_selector = {{"example.com/team", "a"}};
  EXPECT_FALSE(Revalidate(cluster_, Method::kDrift, both, 1, {}).has_value());
}

TEST_F(MethodsTest, RevalidateConsolidation) {
  const api::NodePool& pool = AddPool("default");
  const size_t room = AddNode("room", "medium");
  AddCandidate("candidate", pool, "large", {1500});

  // Deleted while the room takes its pod.
  std::optional<Command> command =
      Revalidate(cluster_, Method::kSingleNodeConsolidation, {0}, 0, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kSingleNodeConsolidation);
  EXPECT_THAT(command->replacements, IsEmpty());
  EXPECT_NEAR(command->savings_per_hour, 0.40, kCents);

  // The room is gone: now it needs a replacement, more than decided.
  cluster_.accepts_pods[room] = false;
  EXPECT_FALSE(Revalidate(cluster_, Method::kSingleNodeConsolidation, {0}, 0, {}).has_value());
  command = Revalidate(cluster_, Method::kSingleNodeConsolidation, {0}, 1, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(command->replacements, SizeIs(1));

  At(0).consolidatable = false;
  EXPECT_FALSE(Revalidate(cluster_, Method::kSingleNodeConsolidation, {0}, 1, {}).has_value());
  At(0).consolidatable = true;

  SetBudget(pool, api::DisruptionReason::kUnderutilized, 0);
  EXPECT_FALSE(Revalidate(cluster_, Method::kSingleNodeConsolidation, {0}, 1, {}).has_value());
  SetBudget(pool, api::DisruptionReason::kUnderutilized, kMany);

  // Its pods are gone: emptiness's now, not consolidation's.
  At(0).pods.clear();
  EXPECT_FALSE(Revalidate(cluster_, Method::kSingleNodeConsolidation, {0}, 1, {}).has_value());
}

TEST_F(MethodsTest, RevalidateMultiNodeConsolidation) {
  const api::NodePool& pool = AddPool("default");
  AddCandidate("m-1", pool, "medium", {2500});
  AddCandidate("m-2", pool, "medium", {2500});
  AddCandidate("m-3", pool, "medium", {2500});
  const std::vector<size_t> all = {0, 1, 2};
  std::optional<Command> command =
      Revalidate(cluster_, Method::kMultiNodeConsolidation, all, 1, {});
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->method, Method::kMultiNodeConsolidation);
  EXPECT_THAT(command->replacements, SizeIs(1));

  SetBudget(pool, api::DisruptionReason::kUnderutilized, 2);
  EXPECT_FALSE(Revalidate(cluster_, Method::kMultiNodeConsolidation, all, 1, {}).has_value());
  SetBudget(pool, api::DisruptionReason::kUnderutilized, kMany);

  // Bigger pods: the large no longer fits them all and the xlarge is no saving.
  AddPod(2, 1000);
  EXPECT_FALSE(Revalidate(cluster_, Method::kMultiNodeConsolidation, all, 1, {}).has_value());
}

// ---- descriptions -------------------------------------------------------------------------------

TEST(CommandTest, MethodNamesAndReasons) {
  EXPECT_EQ(MethodName(Method::kEmptiness), "emptiness");
  EXPECT_EQ(MethodName(Method::kDrift), "drift");
  EXPECT_EQ(MethodName(Method::kMultiNodeConsolidation), "multi-node consolidation");
  EXPECT_EQ(MethodName(Method::kSingleNodeConsolidation), "single-node consolidation");
  EXPECT_EQ(DisruptionReasonOf(Method::kEmptiness), api::DisruptionReason::kEmpty);
  EXPECT_EQ(DisruptionReasonOf(Method::kDrift), api::DisruptionReason::kDrifted);
  EXPECT_EQ(DisruptionReasonOf(Method::kMultiNodeConsolidation),
            api::DisruptionReason::kUnderutilized);
  EXPECT_EQ(DisruptionReasonOf(Method::kSingleNodeConsolidation),
            api::DisruptionReason::kUnderutilized);
}

TEST_F(MethodsTest, DescribeDriftReplacingOneNode) {
  const api::NodePool& pool = AddPool("default");
  At(AddCandidate("old", pool, "large", {1500})).drifted = "NodeClassDrift";
  const std::optional<Command> command = Drift(cluster_);
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(command->Describe(cluster_), "replacing 1 node drifted (NodeClassDrift) with 1 small");
}

// ---- Balanced consolidation ---------------------------------------------------------------------

class BalancedTest : public MethodsTest {
 protected:
  // A Balanced NodePool with its k, and what all its nodes cost and would cost to disrupt.
  api::NodePool& AddBalancedPool(std::optional<int32_t> k, PoolTotals totals) {
    api::NodePool& pool = AddPool("balanced");
    pool.spec.disruption.consolidation_policy = api::ConsolidationPolicy::kBalanced;
    pool.spec.disruption.consolidation_threshold = k;
    cluster_.pool_totals[pool.metadata.name] = totals;
    return pool;
  }
  // A hand-made move of the candidates, saving `savings`.
  Command Move(std::vector<size_t> candidates, double savings) const {
    return Command{Method::kSingleNodeConsolidation, std::move(candidates), {}, savings};
  }
  static Options Gate(bool on) {
    Options options;
    options.balanced_consolidation = on;
    return options;
  }
};

TEST(NodeDisruptionCostTest, OneForTheNodePlusEachPodsPositiveCost) {
  EXPECT_DOUBLE_EQ(NodeDisruptionCost({}), 1);
  EXPECT_DOUBLE_EQ(NodeDisruptionCost({1, 1, 2.5}), 5.5);
  // A pod its owners would rather lose (negative cost) makes the node no cheaper to disrupt.
  EXPECT_DOUBLE_EQ(NodeDisruptionCost({1, -10}), 2);
}

// The worked examples of upstream's design: a NodePool of eight $4.84/day and two $9.68/day nodes
// ($58.08/day) running 80 pods of cost 1 (the examples leave out the per-node 1, as here).
TEST_F(BalancedTest, ScoresAreSavingsShareOverDisruptionShare) {
  const api::NodePool& pool = AddBalancedPool(std::nullopt, {58.08, 80});
  const size_t oversized = AddCandidate("oversized", pool, "large", {});
  At(oversized).price_per_hour = 9.68;
  At(oversized).node_disruption_cost = 3;
  const size_t marginal = AddCandidate("marginal", pool, "medium", {});
  At(marginal).price_per_hour = 4.84;
  At(marginal).node_disruption_cost = 8;

  // Replaced by a $2.42 node: 12.5 % of the cost for 3.75 % of the disruption.
  std::vector<MoveScore> scores = ScoreMove(cluster_, Move({oversized}, 7.26), true);
  ASSERT_THAT(scores, SizeIs(1));
  EXPECT_EQ(scores[0].node_pool, "balanced");
  EXPECT_NEAR(scores[0].savings_fraction, 0.125, 1e-9);
  EXPECT_NEAR(scores[0].disruption_fraction, 0.0375, 1e-9);
  EXPECT_NEAR(scores[0].score, 3.333, 1e-3);
  EXPECT_TRUE(scores[0].approved());
  EXPECT_THAT(scores[0].Describe(),
              StartsWith("score 3.33 >= threshold 0.50 (consolidationThreshold: 2, savings "
                         "12.5%, disruption 3."));

  // Half its price saved for 10 % of the disruption: 0.42, short of 1/2...
  scores = ScoreMove(cluster_, Move({marginal}, 2.42), true);
  ASSERT_THAT(scores, SizeIs(1));
  EXPECT_NEAR(scores[0].score, 0.4167, 1e-4);
  EXPECT_FALSE(scores[0].approved());
  EXPECT_THAT(scores[0].Describe(), StartsWith("score 0.42 < threshold 0.50"));
  // ... but not of 1/3.
  pools_.back().spec.disruption.consolidation_threshold = 3;
  scores = ScoreMove(cluster_, Move({marginal}, 2.42), true);
  EXPECT_TRUE(scores[0].approved());

  // Nothing saved, nothing approved, whatever k; and the gate off scores nothing.
  scores = ScoreMove(cluster_, Move({marginal}, 0), true);
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_FALSE(scores[0].approved());
  EXPECT_THAT(ScoreMove(cluster_, Move({marginal}, 2.42), false), IsEmpty());
}

TEST_F(BalancedTest, OnlyBalancedNodePoolsAreScoredEachOnItsShare) {
  api::NodePool& other = AddPool("other");
  const api::NodePool& balanced = AddBalancedPool(std::nullopt, {1.0, 10});
  const size_t mine = AddCandidate("mine", balanced, "large", {500});
  const size_t theirs = AddCandidate("theirs", other, "large", {500});
  // Both $0.40 nodes go for one $0.40 replacement: each pool saved half the $0.40.
  const std::vector<MoveScore> scores = ScoreMove(cluster_, Move({mine, theirs}, 0.40), true);
  ASSERT_THAT(scores, SizeIs(1));
  EXPECT_EQ(scores[0].node_pool, "balanced");
  EXPECT_NEAR(scores[0].savings_fraction, 0.20, 1e-9);
  EXPECT_NEAR(scores[0].disruption_fraction, 0.20, 1e-9);  // 2 of 10
  EXPECT_NEAR(scores[0].score, 1.0, 1e-9);
  (void)other;
}

// A large node running 8 small pods could be a medium ($0.20/h saved), but its pods are over a
// third of its pool's disruption for an eighth of its cost.
TEST_F(BalancedTest, RejectsAReplaceWhoseSavingDoesNotJustifyItsDisruption) {
  api::NodePool& pool = AddBalancedPool(std::nullopt, {1.60, 27});
  AddCandidate("busy", pool, "large", std::vector<int64_t>(8, 400));

  // Without the gate Balanced consolidates as WhenEmptyOrUnderutilized.
  std::optional<Command> command = SingleNodeConsolidation(cluster_, Gate(false));
  ASSERT_TRUE(command.has_value());
  EXPECT_NEAR(command->savings_per_hour, 0.20, kCents);

  std::vector<std::pair<std::string, std::string>> scored;
  const ScoreObserver observe = [&](const Command& move, const MoveScore& score) {
    scored.emplace_back(Nodes(move).front(), score.Describe());
  };
  EXPECT_FALSE(SingleNodeConsolidation(cluster_, Gate(true), {}, {}, observe).has_value());
  EXPECT_THAT(scored, ElementsAre(Pair("busy", StartsWith("score 0.38 < threshold 0.50"))));
  EXPECT_THAT(WhyNot(Gate(true)),
              ElementsAre(Pair("busy", HasSubstr("Balanced consolidation of NodePool "
                                                 "\"balanced\" rejected the move: score 0.38"))));
  EXPECT_FALSE(ComputeCommand(cluster_, Gate(true)).has_value());

  // At k=3, a third is enough.
  pool.spec.disruption.consolidation_threshold = 3;
  scored.clear();
  command = SingleNodeConsolidation(cluster_, Gate(true), {}, {}, observe);
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(scored, ElementsAre(Pair("busy", StartsWith("score 0.38 >= threshold 0.33"))));
}

TEST_F(BalancedTest, SkipsACandidateEvenWhoseDeletionWouldNotScore) {
  const api::NodePool& pool = AddBalancedPool(std::nullopt, {1.60, 27});
  AddCandidate("cheap-but-busy", pool, "small", std::vector<int64_t>(8, 100));
  AddNode("room", "xlarge");  // its pods would fit here: a delete, the best a move could do
  EXPECT_THAT(WhyNot(Gate(true)),
              ElementsAre(Pair("cheap-but-busy",
                               StartsWith("Balanced consolidation: even deleting it would not "
                                          "justify its disruption, score 0.19 < threshold "
                                          "0.50"))));
  EXPECT_TRUE(SingleNodeConsolidation(cluster_, Gate(false)).has_value());
}

TEST_F(BalancedTest, MultiNodeScoresTheMoveItFound) {
  const api::NodePool& pool = AddBalancedPool(std::nullopt, {10.0, 20});
  AddCandidate("a", pool, "large", {1000, 500});
  AddCandidate("b", pool, "large", {1000, 500});
  // Two $0.40 nodes into one node a medium or large could be: at worst $0.40 of $10 saved (4 %)
  // for 6 of 20 (30 %).
  std::vector<MoveScore> heard;
  const ScoreObserver observe = [&](const Command&, const MoveScore& score) {
    heard.push_back(score);
  };
  EXPECT_TRUE(MultiNodeConsolidation(cluster_, Gate(false)).has_value());
  EXPECT_FALSE(MultiNodeConsolidation(cluster_, Gate(true), {}, observe).has_value());
  ASSERT_THAT(heard, SizeIs(1));
  EXPECT_NEAR(heard[0].score, 0.04 / 0.30, 1e-9);
  // In a pool whose cost it is a bigger share of, the same move is worth it: a third of $1.20
  // for 30 % of the disruption.
  cluster_.pool_totals["balanced"] = {1.20, 20};
  const std::optional<Command> command = MultiNodeConsolidation(cluster_, Gate(true), {}, observe);
  ASSERT_TRUE(command.has_value());
  EXPECT_THAT(Nodes(*command), ElementsAre("a", "b"));
  // Revalidation scores again: the pool grew meanwhile, and the move is no longer worth it.
  EXPECT_TRUE(Revalidate(cluster_, Method::kMultiNodeConsolidation, {0, 1}, 1, Gate(true)));
  cluster_.pool_totals["balanced"] = {10.0, 20};
  EXPECT_FALSE(Revalidate(cluster_, Method::kMultiNodeConsolidation, {0, 1}, 1, Gate(true)));
}

}  // namespace
}  // namespace karpenter::disruption
