// Direct tests of provisioning::Schedule() on inputs built in C++ over the synthetic catalog.

#include "provisioning/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "api/labels.h"
#include "cloud/fake_catalog.h"
#include "provisioning/fractional_fleet.h"

namespace karpenter::provisioning {

using scheduling::Requirement;
using scheduling::Requirements;

namespace {

using Op = api::NodeSelectorOperator;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::SizeIs;

constexpr int64_t kGi = int64_t{1} << 30;
const std::string kZone(api::kLabelZone);
const std::string kInstanceType(api::kLabelInstanceType);
const std::string kCapacityType(api::kLabelCapacityType);

api::ResourceList Resources(int64_t milli_cpu, int64_t memory_gi = 0, int64_t pods = 0) {
  api::ResourceList r;
  r.Set(api::kResourceCpu, Quantity::FromMilli(milli_cpu));
  r.Set(api::kResourceMemory, Quantity::FromUnits(memory_gi * kGi));
  r.Set(api::kResourcePods, Quantity::FromUnits(pods));
  return r;
}

api::Pod MakePod(std::string name, int64_t milli_cpu, int64_t memory_gi = 0) {
  api::Pod pod;
  pod.metadata.name = std::move(name);
  pod.metadata.namespace_ = "t";
  pod.metadata.labels = {{"app", "x"}};
  api::Container c;
  c.name = "c";
  c.requests = Resources(milli_cpu, memory_gi);
  pod.spec.containers.push_back(std::move(c));
  pod.status.phase = "Pending";
  return pod;
}

api::NodePool MakePool(std::string name) {
  api::NodePool pool;
  pool.metadata.name = std::move(name);
  return pool;
}

// Labels the pod as `app` and keeps it off any node with another pod of `app` (required
// hostname anti-affinity).
void AvoidOthersOf(api::Pod& pod, const std::string& app) {
  pod.metadata.labels = {{"app", app}};
  api::PodAffinityTerm term;
  term.topology_key = std::string(api::kLabelHostname);
  term.label_selector = api::LabelSelector{{{"app", app}}, {}};
  pod.spec.affinity.emplace();
  pod.spec.affinity->pod_anti_affinity.emplace();
  pod.spec.affinity->pod_anti_affinity->required.push_back(std::move(term));
}

api::Taint Dedicated() { return {"dedicated", "infra", api::TaintEffect::kNoSchedule}; }

api::Toleration ToleratesDedicated() {
  return {"dedicated", api::TolerationOperator::kEqual, "infra", std::nullopt, std::nullopt};
}

std::vector<std::string> Names(const std::vector<const api::Pod*>& pods) {
  std::vector<std::string> out;
  for (const auto* p : pods) out.push_back(api::NamespacedName(p->metadata));
  return out;
}

// Where each pod went: "claim:<i>", "node:<name>" or "unschedulable".
std::map<std::string, std::string> Placements(const SchedulerResult& result) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < result.node_claims.size(); ++i) {
    for (const auto& name : Names(result.node_claims[i].pods)) {
      out[name] = "claim:" + std::to_string(i);
    }
  }
  for (const auto& e : result.existing) {
    for (const auto& name : Names(e.pods)) out[name] = "node:" + e.node;
  }
  for (const auto& u : result.unschedulable) {
    out[api::NamespacedName(u.pod->metadata)] = "unschedulable";
  }
  return out;
}

// Everything observable in a result, by name, so results over different copies of the same input
// compare equal.
std::string Describe(const SchedulerResult& result) {
  std::string out;
  for (const auto& nc : result.node_claims) {
    out += "claim " + nc.node_pool + " {" + nc.requirements.ToString() + "} types";
    for (const auto* it : nc.instance_types) out += ' ' + it->name;
    out += " capacity";
    for (const auto& c : nc.capacity_types) out += ' ' + c;
    out += " zones";
    for (const auto& z : nc.zones) out += ' ' + z;
    out += " cpu " + nc.requests.cpu().ToCpuString() + " memory " +
           nc.requests.memory().ToString() + " pods " + nc.requests.pods().ToString();
    out += " price " + std::to_string(nc.price_per_hour) + " :";
    for (const auto& p : Names(nc.pods)) out += ' ' + p;
    out += '\n';
  }
  for (const auto& e : result.existing) {
    out += "node " + e.node + ":";
    for (const auto& p : Names(e.pods)) out += ' ' + p;
    out += '\n';
  }
  for (const auto& u : result.unschedulable) {
    out += "unschedulable " + api::NamespacedName(u.pod->metadata) + ": " + u.reason + '\n';
  }
  return out;
}

class SchedulerTest : public testing::Test {
 protected:
  SchedulerTest() : catalog_(cloud::BuildFakeCatalog(40)) {}

  NodePoolOffer Offer(const api::NodePool& pool) const {
    NodePoolOffer offer;
    offer.node_pool = &pool;
    for (const auto& it : catalog_) offer.instance_types.push_back(&it);
    return offer;
  }

  // Pods live in a deque so pointers stay valid as more are added.
  api::Pod& AddPod(std::string name, int64_t milli_cpu, int64_t memory_gi = 0) {
    pods_.push_back(MakePod(std::move(name), milli_cpu, memory_gi));
    return pods_.back();
  }

  std::vector<const api::Pod*> Pending() const {
    std::vector<const api::Pod*> out;
    for (const auto& p : pods_) out.push_back(&p);
    return out;
  }

  std::vector<cloud::InstanceType> catalog_;
  std::deque<api::Pod> pods_;
};

// ---------------------------------------------------------------------------------------------
// Determinism.

// The heavier, tainted NodePool the mixed batch's batch pods select.
api::NodePool MakeInfraPool() {
  api::NodePool infra = MakePool("infra");
  infra.spec.weight = 10;
  infra.spec.template_.spec.taints = {Dedicated()};
  return infra;
}

// A batch that exercises sorting, packing, spreads, anti-affinity and several NodePools.
void BuildMixedBatch(std::deque<api::Pod>& pods) {
  for (int i = 0; i < 12; ++i) {
    api::Pod pod = MakePod("web-" + std::to_string(i), 500 + 250 * (i % 3), 1 + i % 2);
    pod.metadata.labels = {{"app", "web"}};
    api::TopologySpreadConstraint spread;
    spread.topology_key = kZone;
    spread.label_selector = api::LabelSelector{{{"app", "web"}}, {}};
    pod.spec.topology_spread_constraints.push_back(spread);
    pods.push_back(std::move(pod));
  }
  for (int i = 0; i < 5; ++i) {
    api::Pod pod = MakePod("db-" + std::to_string(i), 2000, 4);
    AvoidOthersOf(pod, "db");
    pods.push_back(std::move(pod));
  }
  for (int i = 0; i < 7; ++i) {
    api::Pod pod = MakePod("batch-" + std::to_string(i), 1000, 1);
    pod.spec.tolerations.push_back(ToleratesDedicated());
    pod.spec.node_selector = {{std::string(api::kLabelNodePool), "infra"}};
    if (i % 2 == 0) pod.spec.node_selector.emplace(kCapacityType, "spot");
    pods.push_back(std::move(pod));
  }
  pods.push_back(MakePod("tiny", 10));
  api::Pod nowhere = MakePod("nowhere", 100);
  nowhere.spec.node_selector = {{kZone, "moon"}};
  pods.push_back(std::move(nowhere));
}

// PREFERENCE_POLICY: with Respect (the default) preferred hostname anti-affinity and a
// ScheduleAnyway zone spread are honoured while they can be — one pod per node, over the zones;
// with Ignore they count for nothing and the small pods share one node.
TEST_F(SchedulerTest, IgnoredPreferencesNoLongerSpreadPods) {
  for (int i = 0; i < 4; ++i) {
    api::Pod& pod = AddPod("spread-" + std::to_string(i), 250);
    api::PodAffinity anti;
    api::WeightedPodAffinityTerm term;
    term.weight = 100;
    term.term.topology_key = std::string(api::kLabelHostname);
    term.term.label_selector = api::LabelSelector{{{"app", "x"}}, {}};
    anti.preferred.push_back(term);
    pod.spec.affinity.emplace();
    pod.spec.affinity->pod_anti_affinity = anti;
    api::TopologySpreadConstraint spread;
    spread.topology_key = kZone;
    spread.when_unsatisfiable = api::UnsatisfiableConstraintAction::kScheduleAnyway;
    spread.label_selector = api::LabelSelector{{{"app", "x"}}, {}};
    pod.spec.topology_spread_constraints.push_back(spread);
  }
  api::NodePool pool = MakePool("default");
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};

  const SchedulerResult respected = Schedule(input);
  EXPECT_EQ(respected.node_claims.size(), 4U) << Describe(respected);
  std::set<std::string> zones;
  for (const PlannedNodeClaim& claim : respected.node_claims) {
    if (claim.zones.size() == 1) zones.insert(claim.zones.front());
  }
  EXPECT_GE(zones.size(), 3U) << Describe(respected);

  input.policy.ignore_preferences = true;
  const SchedulerResult ignored = Schedule(input);
  ASSERT_EQ(ignored.node_claims.size(), 1U) << Describe(ignored);
  EXPECT_EQ(ignored.node_claims.front().pods.size(), 4U);
  EXPECT_THAT(ignored.unschedulable, IsEmpty());
}

TEST_F(SchedulerTest, SameInputTwiceGivesIdenticalResults) {
  BuildMixedBatch(pods_);
  api::NodePool general = MakePool("general");
  api::NodePool infra = MakeInfraPool();
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(general), Offer(infra)};

  const SchedulerResult first = Schedule(input);
  const SchedulerResult second = Schedule(input);
  ASSERT_FALSE(first.node_claims.empty());
  EXPECT_EQ(Describe(first), Describe(second));
  // Pointer-for-pointer identical too.
  ASSERT_EQ(first.node_claims.size(), second.node_claims.size());
  for (size_t i = 0; i < first.node_claims.size(); ++i) {
    EXPECT_EQ(first.node_claims[i].pods, second.node_claims[i].pods);
    EXPECT_EQ(first.node_claims[i].instance_types, second.node_claims[i].instance_types);
    EXPECT_EQ(first.node_claims[i].requirements, second.node_claims[i].requirements);
  }
  ASSERT_EQ(first.unschedulable.size(), second.unschedulable.size());
  for (size_t i = 0; i < first.unschedulable.size(); ++i) {
    EXPECT_EQ(first.unschedulable[i].pod, second.unschedulable[i].pod);
  }
  // The batch really exercises both NodePools and an unschedulable pod.
  std::set<std::string> pools;
  for (const auto& nc : first.node_claims) pools.insert(nc.node_pool);
  EXPECT_THAT(pools, ElementsAre("general", "infra"));
  EXPECT_EQ(Placements(first).at("t/nowhere"), "unschedulable");
}

TEST_F(SchedulerTest, ResultDoesNotDependOnAddressesOrInputOrderOfPods) {
  BuildMixedBatch(pods_);
  std::deque<api::Pod> copy;
  BuildMixedBatch(copy);
  api::NodePool general = MakePool("general");
  api::NodePool infra = MakeInfraPool();

  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(general), Offer(infra)};
  SchedulerInput reversed = input;
  reversed.pods.clear();
  for (auto it = copy.rbegin(); it != copy.rend(); ++it) reversed.pods.push_back(&*it);
  // NodePools are ordered by weight, not by input position.
  reversed.node_pools = {Offer(infra), Offer(general)};

  EXPECT_EQ(Describe(Schedule(input)), Describe(Schedule(reversed)));
}

// ---------------------------------------------------------------------------------------------
// Existing capacity.

ExistingNode InFlight(std::string name, std::string zone, std::vector<std::string> types,
                      api::ResourceList allocatable) {
  ExistingNode node;
  node.name = std::move(name);
  node.in_flight = true;
  node.requirements.Add(Requirement::In(kZone, {zone}));
  node.requirements.Add(Requirement::In(kInstanceType, types));
  node.requirements.Add(Requirement::In(kCapacityType, {"on-demand", "spot"}));
  node.requirements.Add(Requirement::In(std::string(api::kLabelNodePool), {"default"}));
  node.labels = node.requirements.SingleValueLabels();
  node.allocatable = std::move(allocatable);
  return node;
}

TEST_F(SchedulerTest, PodsGoToCompatibleInFlightNodeClaims) {
  api::NodePool pool = MakePool("default");
  AddPod("fits", 1000, 1);
  AddPod("spot", 500).spec.node_selector = {{kCapacityType, "spot"}};
  AddPod("other-zone", 500).spec.node_selector = {{kZone, "test-zone-2"}};
  AddPod("team", 500).spec.node_selector = {{"example.com/team", "a"}};
  AddPod("too-big", 3000, 1);

  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  input.existing_nodes = {
      InFlight("claim-a", "test-zone-1", {"fake-it-3", "fake-it-4"}, Resources(3900, 7, 40))};
  const api::Pod running = MakePod("running", 1500, 1);
  input.existing_nodes[0].pods = {&running};

  const SchedulerResult result = Schedule(input);
  const auto where = Placements(result);
  EXPECT_EQ(where.at("t/fits"), "node:claim-a");
  // capacity-type In [on-demand spot] still allows spot: the in-flight claim may launch as spot.
  EXPECT_EQ(where.at("t/spot"), "node:claim-a");
  EXPECT_THAT(where.at("t/other-zone"), HasSubstr("claim:"));
  // The in-flight claim's requirements do not define the custom label (nor does the NodePool).
  EXPECT_EQ(where.at("t/team"), "unschedulable");
  // The running pod leaves 2.4 CPUs: 3 CPUs do not fit.
  EXPECT_THAT(where.at("t/too-big"), HasSubstr("claim:"));
  ASSERT_EQ(result.existing.size(), 1u);
  EXPECT_EQ(result.existing[0].node, "claim-a");
  EXPECT_THAT(Names(result.existing[0].pods), ElementsAre("t/fits", "t/spot"));
}

// Two in-flight claims of 10 CPUs were planned to hold 5+3+2 and 4+3+3. Packed anew, largest
// first onto the first claim with room (5+4, then 3+3+3), the 2-CPU pod fits on neither and a
// third claim launches; nominated, every pod goes back where it was planned.
TEST_F(SchedulerTest, PodsGoBackToTheInFlightNodeClaimsTheyWereNominatedTo) {
  api::NodePool pool = MakePool("default");
  const api::Pod& five = AddPod("five", 5000);
  const api::Pod& four = AddPod("four", 4000);
  const api::Pod& three_a = AddPod("three-a", 3000);
  const api::Pod& three_b = AddPod("three-b", 3000);
  const api::Pod& three_c = AddPod("three-c", 3000);
  const api::Pod& two = AddPod("two", 2000);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  input.existing_nodes = {
      InFlight("claim-a", "test-zone-1", {"fake-it-10"}, Resources(10000, 40, 110)),
      InFlight("claim-b", "test-zone-1", {"fake-it-10"}, Resources(10000, 40, 110))};

  const SchedulerResult anew = Schedule(input);
  EXPECT_EQ(anew.node_claims.size(), 1u) << "the test no longer shows what nominations prevent";
  EXPECT_EQ(Placements(anew).at("t/two"), "claim:0");

  input.existing_nodes[0].nominated = {&five, &three_a, &two};
  input.existing_nodes[1].nominated = {&four, &three_b, &three_c};
  const SchedulerResult nominated = Schedule(input);
  EXPECT_THAT(nominated.node_claims, IsEmpty());
  ASSERT_EQ(nominated.existing.size(), 2u);
  EXPECT_THAT(Names(nominated.existing[0].pods), ElementsAre("t/five", "t/three-a", "t/two"));
  EXPECT_THAT(Names(nominated.existing[1].pods), ElementsAre("t/four", "t/three-b", "t/three-c"));
}

// A nomination is a first try, not a pin: a pod that no longer fits its nominated claim (here the
// claim launched smaller than planned) is scheduled as usual.
TEST_F(SchedulerTest, ANominatedPodThatNoLongerFitsIsScheduledAsUsual) {
  api::NodePool pool = MakePool("default");
  const api::Pod& big = AddPod("big", 3000);
  const api::Pod& small = AddPod("small", 1000);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  input.existing_nodes = {
      InFlight("claim-a", "test-zone-1", {"fake-it-2"}, Resources(1900, 7, 40)),
      InFlight("claim-b", "test-zone-1", {"fake-it-4"}, Resources(3900, 7, 40))};
  input.existing_nodes[0].nominated = {&big, &small};
  const auto where = Placements(Schedule(input));
  EXPECT_EQ(where.at("t/big"), "node:claim-b");
  EXPECT_EQ(where.at("t/small"), "node:claim-a");
}

TEST_F(SchedulerTest, InFlightNodeClaimRequirementsAreMatchedNotItsLabels) {
  // A pod selecting one of the in-flight claim's instance-type options may join it even though
  // the claim has no single instance-type label yet.
  api::NodePool pool = MakePool("default");
  AddPod("wants-4", 500).spec.node_selector = {{kInstanceType, "fake-it-4"}};
  AddPod("wants-9", 500).spec.node_selector = {{kInstanceType, "fake-it-9"}};
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  input.existing_nodes = {
      InFlight("claim-a", "test-zone-1", {"fake-it-3", "fake-it-4"}, Resources(3900, 7, 40))};
  ASSERT_EQ(input.existing_nodes[0].labels.count(kInstanceType), 0u);

  const auto where = Placements(Schedule(input));
  EXPECT_EQ(where.at("t/wants-4"), "node:claim-a");
  EXPECT_EQ(where.at("t/wants-9"), "claim:0");
}

// Pods placed on an in-flight NodeClaim narrow its requirements, so pods with contradictory
// requirements (fake-it-3 vs fake-it-4, zone 1 vs zone 2) cannot all join it.
TEST_F(SchedulerTest, PodsOnAnInFlightNodeClaimNarrowItsRequirements) {
  // The in-flight claim may still launch as fake-it-3 or fake-it-4, in zone 1 or 2. Once a pod
  // that needs fake-it-3 in zone 1 joins it, pods needing fake-it-4 or zone 2 must not.
  api::NodePool pool = MakePool("default");
  AddPod("a-needs-3", 500).spec.node_selector = {{kInstanceType, "fake-it-3"}};
  AddPod("b-needs-4", 500).spec.node_selector = {{kInstanceType, "fake-it-4"}};
  AddPod("c-needs-zone-1", 400).spec.node_selector = {{kZone, "test-zone-1"}};
  AddPod("d-needs-zone-2", 400).spec.node_selector = {{kZone, "test-zone-2"}};
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  ExistingNode claim =
      InFlight("claim-a", "test-zone-1", {"fake-it-3", "fake-it-4"}, Resources(3900, 7, 40));
  claim.requirements = Requirements();
  claim.requirements.Add(Requirement::In(kZone, {"test-zone-1", "test-zone-2"}));
  claim.requirements.Add(Requirement::In(kInstanceType, {"fake-it-3", "fake-it-4"}));
  claim.labels = claim.requirements.SingleValueLabels();
  input.existing_nodes = {claim};

  const auto where = Placements(Schedule(input));
  EXPECT_EQ(where.at("t/a-needs-3"), "node:claim-a");
  EXPECT_NE(where.at("t/b-needs-4"), "node:claim-a");
  EXPECT_EQ(where.at("t/c-needs-zone-1"), "node:claim-a");
  EXPECT_NE(where.at("t/d-needs-zone-2"), "node:claim-a");
}

// A Scheduler prepared once answers every run as Schedule() answers the same capacity with the
// left-out nodes removed — placements, claims and reasons alike — and no run changes the next.
// Bound pods with spreads and anti-affinity make the left-out nodes' pods matter to the topology.
TEST_F(SchedulerTest, RunsWithNodesLeftOutAnswerAsScheduleWithoutThemAndLeaveNoTrace) {
  BuildMixedBatch(pods_);
  const std::vector<const api::Pod*> pending = Pending();
  std::deque<api::Pod> bound;
  BuildMixedBatch(bound);
  api::NodePool general = MakePool("general");
  api::NodePool infra = MakeInfraPool();
  infra.spec.limits.Set(api::kResourceCpu, Quantity::FromUnits(64));
  infra.spec.limited_resources = {std::string(api::kResourceCpu)};
  SchedulerInput capacity;
  capacity.node_pools = {Offer(general), Offer(infra)};
  const char* zones[] = {"test-zone-1", "test-zone-2", "test-zone-3"};
  for (int i = 0; i < 9; ++i) {
    ExistingNode node;
    node.name = "node-" + std::to_string(i);
    node.labels = {{kZone, zones[i % 3]}, {std::string(api::kLabelHostname), node.name}};
    node.allocatable = Resources(4000 + 1000 * (i % 4), 8 + 4 * (i % 3), 110);
    if (i == 8) {
      node = InFlight("claim-8", zones[2], {catalog_[5].name, catalog_[9].name},
                      Resources(8000, 32, 110));
    }
    capacity.existing_nodes.push_back(std::move(node));
  }
  // Two or three bound pods on each node, the db ones with their anti-affinity.
  size_t next = 0;
  for (api::Pod& pod : bound) {
    pod.metadata.name = "bound-" + pod.metadata.name;
    if (pod.metadata.name == "bound-nowhere" || pod.metadata.name.starts_with("bound-batch")) {
      continue;
    }
    capacity.existing_nodes[next % 8].pods.push_back(&pod);
    ++next;
  }

  const Scheduler scheduler(capacity);
  const std::vector<std::vector<int>> removals = {
      {}, {0}, {1, 4}, {8}, {0, 1, 2}, {3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7, 8}, {}};
  std::set<std::string> outcomes;
  for (const std::vector<int>& removed : removals) {
    std::vector<bool> left_out(capacity.existing_nodes.size(), false);
    SchedulerInput without = capacity;
    without.pods = pending;
    without.existing_nodes.clear();
    for (size_t i = 0; i < capacity.existing_nodes.size(); ++i) {
      left_out[i] = std::find(removed.begin(), removed.end(), static_cast<int>(i)) != removed.end();
      if (!left_out[i]) without.existing_nodes.push_back(capacity.existing_nodes[i]);
    }
    const std::string expected = Describe(Schedule(without));
    EXPECT_EQ(Describe(scheduler.Run(pending, left_out)), expected)
        << "nodes left out: " << testing::PrintToString(removed);
    outcomes.insert(expected);
  }
  // The removals matter: they give different answers (the first and last, no removal, agree).
  EXPECT_GE(outcomes.size(), 5U);
}

TEST_F(SchedulerTest, ExistingNodeTaintsAreRespected) {
  api::NodePool pool = MakePool("default");
  AddPod("plain", 500);
  AddPod("tolerant", 500).spec.tolerations = {ToleratesDedicated()};

  ExistingNode tainted;
  tainted.name = "node-tainted";
  tainted.labels = {{kZone, "test-zone-1"}, {std::string(api::kLabelHostname), "node-tainted"}};
  tainted.taints = {Dedicated()};
  tainted.allocatable = Resources(8000, 16, 110);
  ExistingNode soft;
  soft.name = "node-soft";
  soft.labels = {{kZone, "test-zone-2"}, {std::string(api::kLabelHostname), "node-soft"}};
  soft.taints = {{"maintenance", "", api::TaintEffect::kPreferNoSchedule}};
  soft.allocatable = Resources(600, 16, 110);

  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  input.existing_nodes = {tainted, soft};
  const SchedulerResult result = Schedule(input);
  const auto where = Placements(result);
  EXPECT_EQ(where.at("t/tolerant"), "node:node-tainted");
  // PreferNoSchedule never blocks; the NoSchedule taint does.
  EXPECT_EQ(where.at("t/plain"), "node:node-soft");
  EXPECT_THAT(result.node_claims, IsEmpty());
}

ExistingNode Registered(std::string name, api::ResourceList allocatable) {
  ExistingNode node;
  node.name = std::move(name);
  node.labels = {{kZone, "test-zone-1"}};
  node.allocatable = std::move(allocatable);
  return node;
}

// Pods take pod slots, as kube-scheduler counts them: a node with room for CPU but one slot left
// takes one more pod, and a new claim's options must have a slot for each of its pods.
TEST_F(SchedulerTest, PodSlotsAreCountedOnNodesAndNewClaims) {
  api::NodePool pool = MakePool("default");
  AddPod("bound", 100);
  std::deque<api::Pod> pending;
  pending.push_back(MakePod("first", 100));
  pending.push_back(MakePod("second", 100));
  ExistingNode node = Registered("node-1", Resources(8000, 16, 2));
  node.pods = {&pods_.front()};
  SchedulerInput input;
  for (const api::Pod& pod : pending) input.pods.push_back(&pod);
  input.node_pools = {Offer(pool)};
  input.existing_nodes = {node};
  const SchedulerResult result = Schedule(input);
  ASSERT_THAT(result.existing, testing::SizeIs(1));
  EXPECT_THAT(result.existing[0].pods, testing::SizeIs(1));
  ASSERT_THAT(result.node_claims, testing::SizeIs(1));
  EXPECT_EQ(result.node_claims[0].requests.pods(), Quantity::FromUnits(1));
  for (const cloud::InstanceType* type : result.node_claims[0].instance_types) {
    EXPECT_GE(type->Allocatable().pods(), Quantity::FromUnits(1)) << type->name;
  }

  // Many tiny pods spread over as many claims as their slots need.
  std::deque<api::Pod> tiny;
  for (int i = 0; i < 600; ++i) tiny.push_back(MakePod("tiny-" + std::to_string(i), 1));
  SchedulerInput many;
  for (const api::Pod& pod : tiny) many.pods.push_back(&pod);
  many.node_pools = {Offer(pool)};
  const SchedulerResult spread = Schedule(many);
  ASSERT_TRUE(spread.unschedulable.empty());
  for (const PlannedNodeClaim& claim : spread.node_claims) {
    ASSERT_FALSE(claim.instance_types.empty());
    for (const cloud::InstanceType* type : claim.instance_types) {
      EXPECT_LE(claim.requests.pods(), type->Allocatable().pods()) << type->name;
    }
  }
}

// Tiny pods run out of pod slots long before CPU: a claim is sized for the type with the cheapest
// slots, not for the one with the cheapest CPU, whose extra slots cost more each.
TEST_F(SchedulerTest, ManyTinyPodsAreSizedByTheirPodSlots) {
  auto type = [&](std::string name, int64_t cpu, int64_t pods, double price) {
    cloud::InstanceType it = catalog_.front();
    it.name = name;
    it.requirements.Add(scheduling::Requirement::In(kInstanceType, {name}));
    it.capacity = Resources(cpu * 1000, 4 * cpu, pods);
    it.kube_reserved = {};
    for (cloud::Offering& offering : it.offerings) offering.price = price;
    return it;
  };
  // The same price per CPU; the small type's slots cost $1/60 each, the large one's $16/700.
  const std::vector<cloud::InstanceType> types = {type("small", 4, 60, 1.0),
                                                  type("large", 64, 700, 16.0)};
  api::NodePool pool = MakePool("default");
  NodePoolOffer offer;
  offer.node_pool = &pool;
  for (const cloud::InstanceType& it : types) offer.instance_types.push_back(&it);
  for (int i = 0; i < 700; ++i) AddPod("tiny-" + std::to_string(i), 10);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {offer};
  const SchedulerResult result = Schedule(input);
  ASSERT_THAT(result.unschedulable, IsEmpty());
  ASSERT_EQ(result.node_claims.size(), 12u) << Describe(result);
  for (const PlannedNodeClaim& claim : result.node_claims) {
    ASSERT_FALSE(claim.instance_types.empty());
    EXPECT_EQ(claim.instance_types.front()->name, "small") << Describe(result);
  }
  EXPECT_DOUBLE_EQ(result.PricePerHour(), 12.0);
}

// Random Deployments of every shape over families of CPU-rich, general and memory-rich types in
// many sizes, priced per vCPU as EC2's c, m and r families are. Claims sized for their first pods
// and filled in size order get every shape and end up on the type that suits the mix (above 1.1x
// the fractional optimum on 17 of these 20 seeds, up to 1.36x); the plan the fractional fleet
// guides puts complementary pods together on the types the optimum buys (1.03-1.09x).
// CPU-rich, general and memory-rich families in many sizes, priced per vCPU as EC2's c, m and r
// families are; and the same types as the fractional fleet sees them.
struct Families {
  std::vector<cloud::InstanceType> types;
  std::vector<FleetType> fleet_types;
};

Families SyntheticFamilies(const cloud::InstanceType& base) {
  struct Family {
    const char* name;
    int64_t memory_per_cpu;
    double price_per_cpu;
  };
  Families out;
  for (const Family& family :
       {Family{"c", 2, 0.0425}, Family{"m", 4, 0.048}, Family{"r", 8, 0.063}}) {
    for (int64_t cpu : {2, 4, 8, 16, 32, 48, 64, 96, 192}) {
      cloud::InstanceType it = base;
      it.name = std::string(family.name) + "-" + std::to_string(cpu);
      it.requirements = {};
      for (const Requirement& r : base.requirements.items()) {
        if (r.key() != kInstanceType) it.requirements.Add(r);
      }
      it.requirements.Add(Requirement::In(kInstanceType, {it.name}));
      it.capacity = Resources(cpu * 1000, cpu * family.memory_per_cpu, 110);
      it.kube_reserved = {};
      const double price = family.price_per_cpu * static_cast<double>(cpu);
      for (cloud::Offering& offering : it.offerings) offering.price = price;
      out.types.push_back(std::move(it));
      out.fleet_types.push_back(
          {static_cast<double>(cpu), static_cast<double>(cpu * family.memory_per_cpu), 110, price});
    }
  }
  return out;
}

// 10-19 Deployments of 20-79 replicas, each of one random shape (0.1-4 vCPU, 1-16 GiB).
FleetDemand RandomDeployments(uint64_t seed, std::deque<api::Pod>& pods) {
  std::mt19937_64 rng(seed);
  FleetDemand demand;
  for (int d = 0; d < 10 + static_cast<int>(rng() % 10); ++d) {
    const int64_t milli_cpu = 100 + static_cast<int64_t>(rng() % 3901);
    const int64_t memory_gi = 1 + static_cast<int64_t>(rng() % 16);
    for (int r = 0; r < 20 + static_cast<int>(rng() % 60); ++r) {
      pods.push_back(
          MakePod("d" + std::to_string(d) + "-" + std::to_string(r), milli_cpu, memory_gi));
      demand = {demand.cpu + static_cast<double>(milli_cpu) / 1000,
                demand.memory + static_cast<double>(memory_gi), demand.pods + 1};
    }
  }
  return demand;
}

// One pass over RandomDeployments(seed) on a NodePool of `families`' types: the plan's price
// over the fractional fleet's for the same pods (0 when a pod is left over or there is no
// bound), with the plan described in `why`.
double PlanOverBound(const Families& families, uint64_t seed, std::string& why) {
  api::NodePool pool = MakePool("default");
  NodePoolOffer offer;
  offer.node_pool = &pool;
  for (const cloud::InstanceType& it : families.types) offer.instance_types.push_back(&it);
  std::deque<api::Pod> pods;
  const FleetDemand demand = RandomDeployments(seed, pods);
  SchedulerInput input;
  for (const api::Pod& pod : pods) input.pods.push_back(&pod);
  input.node_pools = {offer};
  const SchedulerResult result = Schedule(input);
  why = "seed " + std::to_string(seed) + " (" + std::to_string(pods.size()) + " pods)\n" +
        Describe(result);
  const std::optional<FractionalFleet> bound =
      CheapestFractionalFleet(families.fleet_types, demand);
  if (!result.unschedulable.empty() || !bound) return 0;
  return result.PricePerHour() / bound->price;
}

TEST_F(SchedulerTest, MixedShapesComeWithinTenPercentOfTheFractionalOptimum) {
  const Families families = SyntheticFamilies(catalog_.front());
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::string why;
    const double ratio = PlanOverBound(families, seed, why);
    EXPECT_GT(ratio, 0) << why;
    EXPECT_LE(ratio, 1.1) << why;
  }
}

// Spot prices do not follow the on-demand ladder: each type is priced 50-75 % of its family's
// rate at random. First-fit claims then end up full in one resource on types the optimum does
// not buy; repacking them pair by pair (repacking.h) brings the plans back near the bound (a
// geometric mean of 1.078 over these seeds; 1.105 without repacking). Where the cheapest types
// are small against the pods the bound itself is loose, so single seeds may stay further off.
TEST_F(SchedulerTest, UnevenPricesAsSpotHasComeNearTheFractionalOptimum) {
  double log_sum = 0;
  constexpr int kSeeds = 10;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Families families = SyntheticFamilies(catalog_.front());
    std::mt19937_64 rng(seed * 7919);
    for (size_t t = 0; t < families.types.size(); ++t) {
      const double share = 0.5 + 0.25 * static_cast<double>(rng() % 1000) / 1000;
      for (cloud::Offering& offering : families.types[t].offerings) offering.price *= share;
      families.fleet_types[t].price *= share;
    }
    std::string why;
    const double ratio = PlanOverBound(families, seed, why);
    ASSERT_GT(ratio, 0) << why;
    EXPECT_LE(ratio, 1.25) << why;
    log_sum += std::log(ratio);
  }
  EXPECT_LE(std::exp(log_sum / kSeeds), 1.09);
}

// Two pods that may not share a node, each on a small type, cost more than one large type would
// for both; repacking leaves them apart, as it leaves every pod a rule ties to its node.
TEST_F(SchedulerTest, RepackingMovesNoPodARuleTiesToItsNode) {
  std::vector<cloud::InstanceType> types;
  for (const auto& [name, cpu, price] :
       {std::tuple{"small", int64_t{2}, 1.0}, std::tuple{"large", int64_t{4}, 1.2}}) {
    cloud::InstanceType it = catalog_.front();
    it.name = name;
    it.requirements = {};
    for (const Requirement& r : catalog_.front().requirements.items()) {
      if (r.key() != kInstanceType) it.requirements.Add(r);
    }
    it.requirements.Add(Requirement::In(kInstanceType, {it.name}));
    it.capacity = Resources(cpu * 1000, cpu * 4, 110);
    it.kube_reserved = {};
    for (cloud::Offering& offering : it.offerings) offering.price = price;
    types.push_back(std::move(it));
  }
  api::NodePool pool = MakePool("default");
  NodePoolOffer offer;
  offer.node_pool = &pool;
  for (const cloud::InstanceType& it : types) offer.instance_types.push_back(&it);
  for (int i = 0; i < 2; ++i) {
    api::Pod& pod = AddPod("solo-" + std::to_string(i), 1500, 1);
    AvoidOthersOf(pod, "solo");
  }
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {offer};
  const SchedulerResult result = Schedule(input);
  ASSERT_EQ(result.node_claims.size(), 2u) << Describe(result);
  for (const PlannedNodeClaim& claim : result.node_claims) {
    EXPECT_EQ(claim.pods.size(), 1u) << Describe(result);
  }
}

// Packing for price does not narrow a launch: every planned NodeClaim (the guided plan's too)
// offers every type of its NodePool that fits its pods, so a launch can fall back when one is out
// of capacity, and a NodePool's minValues holds on each.
TEST_F(SchedulerTest, CheaperPackingKeepsEveryTypeThatFitsAndMinValues) {
  const Families families = SyntheticFamilies(catalog_.front());
  api::NodePool pool = MakePool("default");
  pool.spec.template_.spec.requirements = {
      {std::string(kInstanceType), api::NodeSelectorOperator::kExists, {}, 4}};
  NodePoolOffer offer;
  offer.node_pool = &pool;
  for (const cloud::InstanceType& it : families.types) offer.instance_types.push_back(&it);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::deque<api::Pod> pods;
    RandomDeployments(seed, pods);
    SchedulerInput input;
    for (const api::Pod& pod : pods) input.pods.push_back(&pod);
    input.node_pools = {offer};
    const SchedulerResult result = Schedule(input);
    ASSERT_TRUE(result.unschedulable.empty())
        << "seed " << seed << ": " << result.unschedulable.front().reason;
    ASSERT_GE(result.node_claims.size(), 2u) << "seed " << seed;  // the guided pass ran
    for (const PlannedNodeClaim& claim : result.node_claims) {
      std::set<std::string> offered;
      for (const cloud::InstanceType* type : claim.instance_types) offered.insert(type->name);
      std::set<std::string> fitting;
      for (const cloud::InstanceType& type : families.types) {
        if (claim.requests.FitsIn(type.Allocatable())) fitting.insert(type.name);
      }
      EXPECT_EQ(offered, fitting) << "seed " << seed << ": " << Describe(result);
      EXPECT_GE(offered.size(), 4u) << "seed " << seed;
    }
  }
}

// MIN_VALUES_POLICY: a pod so large that only a few types fit cannot meet minValues 30 of the
// instance type. Strict: it does not schedule, and the reason names minValues. BestEffort: it
// launches with the minValues lowered to the types that fit, and the claim says so.
TEST_F(SchedulerTest, BestEffortLowersAMinValuesNoLaunchCanMeet) {
  api::NodePool pool = MakePool("default");
  pool.spec.template_.spec.requirements = {
      {std::string(kInstanceType), api::NodeSelectorOperator::kExists, {}, 30}};
  int64_t largest = 0;
  for (const cloud::InstanceType& type : catalog_) {
    largest = std::max(largest, type.Allocatable().cpu().milli());
  }
  AddPod("big", largest - 100);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};

  const SchedulerResult strict = Schedule(input);
  ASSERT_EQ(strict.unschedulable.size(), 1U) << Describe(strict);
  EXPECT_THAT(strict.unschedulable.front().reason, HasSubstr("minValues 30 of"));

  input.policy.min_values_best_effort = true;
  const SchedulerResult relaxed = Schedule(input);
  ASSERT_EQ(relaxed.node_claims.size(), 1U) << Describe(relaxed);
  const PlannedNodeClaim& claim = relaxed.node_claims.front();
  const size_t fitting = claim.instance_types.size();
  ASSERT_GE(fitting, 1U);
  ASSERT_LT(fitting, 30U);
  EXPECT_THAT(claim.relaxed_min_values,
              ElementsAre(kInstanceType + ": 30 → " + std::to_string(fitting)));
  const Requirement* types = claim.requirements.Get(kInstanceType);
  ASSERT_NE(types, nullptr);
  EXPECT_EQ(types->min_values(), static_cast<int>(fitting));
}

// As kube-scheduler places pods: in the order given (its queue), each on the node its resource
// scores prefer (the least allocated, balanced), so a small pod first takes the roomier node and
// the large pod after it no longer fits anywhere; Karpenter's order (largest first, first fit)
// places both.
TEST_F(SchedulerTest, KubeSchedulerPlacementKeepsTheQueueOrderAndPrefersTheLeastAllocatedNode) {
  AddPod("small", 1000, 1);
  AddPod("large", 3000, 3);
  SchedulerInput input;
  input.pods = Pending();
  input.existing_nodes = {Registered("node-2", Resources(2000, 8, 110)),
                          Registered("node-4", Resources(3900, 8, 110))};
  const auto karpenter = Placements(Schedule(input));
  EXPECT_EQ(karpenter.at("t/large"), "node:node-4");
  EXPECT_EQ(karpenter.at("t/small"), "node:node-2");

  input.placement = Placement::kKubeScheduler;
  const auto kube_scheduler = Placements(Schedule(input));
  EXPECT_EQ(kube_scheduler.at("t/small"), "node:node-4");
  EXPECT_EQ(kube_scheduler.at("t/large"), "unschedulable");

  // Reversed, the queue puts the large pod first: both fit again.
  std::reverse(input.pods.begin(), input.pods.end());
  const auto reversed = Placements(Schedule(input));
  EXPECT_EQ(reversed.at("t/large"), "node:node-4");
  EXPECT_EQ(reversed.at("t/small"), "node:node-2");
}

// kube-scheduler scores only some feasible nodes in a large cluster (percentageOfNodesToScore's
// default: 100 of 200 here) and resumes where the last search stopped, so consecutive pods spread
// over the cluster instead of all weighing the same first nodes.
TEST_F(SchedulerTest, KubeSchedulerPlacementSamplesAsManyNodesAsItsDefaultAndRotates) {
  std::vector<ExistingNode> nodes;
  for (int i = 0; i < 200; ++i) {
    // Node 150 is the emptiest by far; the first search (nodes 0-99) cannot see it.
    nodes.push_back(Registered("node-" + std::to_string(i),
                               Resources(i == 150 ? 64000 : 4000, i == 150 ? 256 : 16, 110)));
  }
  AddPod("first", 500, 1);
  AddPod("second", 500, 1);
  SchedulerInput input;
  input.pods = Pending();
  input.existing_nodes = nodes;
  input.placement = Placement::kKubeScheduler;
  const auto where = Placements(Schedule(input));
  EXPECT_EQ(where.at("t/first"), "node:node-0");
  EXPECT_EQ(where.at("t/second"), "node:node-150");
}

TEST_F(SchedulerTest, UntoleratedNoExecuteTaintBlocksExistingNode) {
  api::NodePool pool = MakePool("default");
  AddPod("plain", 500);
  ExistingNode node;
  node.name = "node-1";
  node.labels = {{kZone, "test-zone-1"}};
  node.taints = {{"karpenter.sh/disrupted", "", api::TaintEffect::kNoExecute}};
  node.allocatable = Resources(8000, 16, 110);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  input.existing_nodes = {node};
  const SchedulerResult result = Schedule(input);
  EXPECT_THAT(result.existing, IsEmpty());
  ASSERT_EQ(result.node_claims.size(), 1u);
  EXPECT_THAT(Names(result.node_claims[0].pods), ElementsAre("t/plain"));
}

// ---------------------------------------------------------------------------------------------
// Limits and reasons.

TEST_F(SchedulerTest, ExhaustedNodePoolLimitsMakePodsUnschedulable) {
  api::NodePool pool = MakePool("capped");
  pool.spec.limits = Resources(16000);
  pool.spec.limited_resources = {"cpu"};
  AddPod("p", 100);

  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  input.node_pools[0].in_use = Resources(16000);
  const SchedulerResult result = Schedule(input);
  EXPECT_THAT(result.node_claims, IsEmpty());
  ASSERT_EQ(result.unschedulable.size(), 1u);
  EXPECT_EQ(result.unschedulable[0].pod, input.pods[0]);
  EXPECT_THAT(result.unschedulable[0].reason, HasSubstr("NodePool capped"));
  EXPECT_THAT(result.unschedulable[0].reason, HasSubstr("limits"));

  // The same pool with room left launches.
  input.node_pools[0].in_use = Resources(14000);
  const SchedulerResult roomy = Schedule(input);
  ASSERT_EQ(roomy.node_claims.size(), 1u);
  EXPECT_THAT(roomy.unschedulable, IsEmpty());
  // Only types with at most the 2 CPUs left are offered.
  for (const auto* it : roomy.node_claims[0].instance_types) {
    EXPECT_LE(it->capacity.cpu(), Quantity::FromUnits(2)) << it->name;
  }
}

TEST_F(SchedulerTest, ZeroLimitStopsTheNodePool) {
  api::NodePool off = MakePool("off");
  off.spec.weight = 100;
  off.spec.limited_resources = {"cpu"};  // `limits: {cpu: 0}`
  api::NodePool fallback = MakePool("fallback");
  AddPod("p", 100);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(off), Offer(fallback)};
  const SchedulerResult result = Schedule(input);
  ASSERT_EQ(result.node_claims.size(), 1u);
  EXPECT_EQ(result.node_claims[0].node_pool, "fallback");

  input.node_pools = {Offer(off)};
  const SchedulerResult alone = Schedule(input);
  ASSERT_EQ(alone.unschedulable.size(), 1u);
  EXPECT_THAT(alone.unschedulable[0].reason, HasSubstr("limits"));
}

TEST_F(SchedulerTest, UnschedulableReasonNamesTheNodePoolAndTheRequirement) {
  api::NodePool zonal = MakePool("zonal");
  zonal.spec.template_.spec.requirements = {{kZone, Op::kIn, {"test-zone-1"}, std::nullopt}};
  api::NodePool arm = MakePool("arm");
  AddPod("zone-2", 100).spec.node_selector = {{kZone, "test-zone-2"},
                                              {std::string(api::kLabelArch), "arm64"}};
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(zonal), Offer(arm)};
  const SchedulerResult result = Schedule(input);
  ASSERT_EQ(result.unschedulable.size(), 1u);
  const std::string& reason = result.unschedulable[0].reason;
  // Each NodePool's own failure, named.
  EXPECT_THAT(reason, HasSubstr("NodePool zonal: incompatible requirements, key " + kZone));
  EXPECT_THAT(reason, HasSubstr(kZone + " In [test-zone-2]"));
  EXPECT_THAT(reason, HasSubstr("NodePool arm: no instance type satisfies"));
  EXPECT_THAT(reason, HasSubstr("kubernetes.io/arch In [arm64]"));
}

TEST_F(SchedulerTest, UntoleratedTaintIsTheReason) {
  api::NodePool pool = MakePool("infra");
  pool.spec.template_.spec.taints = {Dedicated()};
  AddPod("plain", 100);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  const SchedulerResult result = Schedule(input);
  ASSERT_EQ(result.unschedulable.size(), 1u);
  EXPECT_THAT(result.unschedulable[0].reason, HasSubstr("NodePool infra"));
  EXPECT_THAT(result.unschedulable[0].reason, HasSubstr("taint"));
}

TEST_F(SchedulerTest, NoNodePool) {
  AddPod("p", 100);
  SchedulerInput input;
  input.pods = Pending();
  const SchedulerResult result = Schedule(input);
  ASSERT_EQ(result.unschedulable.size(), 1u);
  EXPECT_THAT(result.unschedulable[0].reason, HasSubstr("no NodePool"));
}

// ---------------------------------------------------------------------------------------------
// Planned NodeClaims.

TEST_F(SchedulerTest, PlannedNodeClaimListsOptionsCheapestFirstWithDaemonSetOverhead) {
  api::NodePool pool = MakePool("default");
  AddPod("a", 1000, 1);
  AddPod("b", 1000, 1);
  api::PodTemplate agent;
  agent.metadata.name = "agent";
  api::Container c;
  c.name = "c";
  c.requests = Resources(500);
  agent.spec.containers.push_back(c);

  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  input.daemon_sets = {&agent};
  const SchedulerResult result = Schedule(input);
  ASSERT_EQ(result.node_claims.size(), 1u);
  const PlannedNodeClaim& nc = result.node_claims[0];
  EXPECT_EQ(nc.node_pool, "default");
  EXPECT_EQ(nc.requests.cpu(), Quantity::FromMilli(2500));
  EXPECT_EQ(nc.requests.pods(), Quantity::FromUnits(3));  // a slot for each pod and the daemon
  ASSERT_FALSE(nc.instance_types.empty());
  // 2.5 CPUs fit fake-it-2 (3 vCPU − 100m); fake-it-1 is too small.
  EXPECT_EQ(nc.instance_types.front()->name, "fake-it-2");
  for (size_t i = 1; i < nc.instance_types.size(); ++i) {
    EXPECT_LT(nc.instance_types[i - 1]->capacity.cpu(), nc.instance_types[i]->capacity.cpu());
  }
  EXPECT_DOUBLE_EQ(nc.price_per_hour, 0.1 * 3.0 + 0.1 * 6.0);
  EXPECT_THAT(nc.zones, ElementsAre("test-zone-1", "test-zone-2", "test-zone-3"));
  EXPECT_THAT(nc.capacity_types, ElementsAre("on-demand", "spot"));
  const Requirement* types = nc.requirements.Get(kInstanceType);
  ASSERT_NE(types, nullptr);
  EXPECT_EQ(types->Len(), nc.instance_types.size());
  EXPECT_FALSE(types->Has("fake-it-1"));
  const Requirement* node_pool = nc.requirements.Get(api::kLabelNodePool);
  ASSERT_NE(node_pool, nullptr);
  EXPECT_EQ(node_pool->Values(), std::vector<std::string>{"default"});
}

// ---------------------------------------------------------------------------------------------
// Capacity reservations.

// Gives catalog type `index` a reserved offering of `reservation` in `zone` with room for
// `capacity` instances, priced as upstream prices reserved capacity (on-demand / 10^7).
void AddReservation(cloud::InstanceType& type, const std::string& reservation,
                    const std::string& zone, int capacity) {
  const double on_demand = type.offerings.front().price;
  type.offerings.push_back(cloud::Offering{zone, std::string(api::kCapacityTypeReserved),
                                           on_demand / 1e7, true, reservation, capacity});
  Requirements requirements;
  for (const Requirement& r : type.requirements.items()) {
    if (r.key() != kCapacityType) requirements.Add(r);
  }
  requirements.Add(Requirement::In(kCapacityType, {"on-demand", "reserved", "spot"}));
  type.requirements = std::move(requirements);
}

std::string ValuesOf(const PlannedNodeClaim& claim, std::string_view key) {
  const Requirement* r = claim.requirements.Get(key);
  if (r == nullptr) return "<any>";
  std::string out;
  for (const auto& v : r->Values()) out += (out.empty() ? "" : ",") + v;
  return out;
}

TEST_F(SchedulerTest, ReservedCapacityIsUsedFirstAndNeverPlannedBeyondItsCount) {
  // fake-it-3 (4 vCPU) has a reservation of 2 instances in zone 2; six pods each need 3.5 vCPU.
  AddReservation(catalog_[3], "cr-0a", "test-zone-2", 2);
  api::NodePool pool = MakePool("default");
  for (int i = 0; i < 6; ++i) AddPod("p" + std::to_string(i), 3500);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  const SchedulerResult result = Schedule(input);
  int reserved = 0;
  for (const PlannedNodeClaim& claim : result.node_claims) {
    if (ValuesOf(claim, kCapacityType) == "reserved") {
      ++reserved;
      EXPECT_EQ(ValuesOf(claim, api::kLabelCapacityReservationId), "cr-0a");
      EXPECT_EQ(ValuesOf(claim, kZone), "test-zone-2");
      ASSERT_EQ(claim.instance_types.size(), 1u);
      EXPECT_EQ(claim.instance_types.front()->name, "fake-it-3");
      EXPECT_THAT(claim.capacity_types, ElementsAre("reserved"));
      EXPECT_LT(claim.price_per_hour, 1e-6);
    } else {
      // The others may not launch into the reservation: it is full for this pass.
      EXPECT_EQ(ValuesOf(claim, kCapacityType), "on-demand,spot");
      EXPECT_THAT(claim.capacity_types, ElementsAre("on-demand", "spot"));
      EXPECT_EQ(claim.requirements.Get(api::kLabelCapacityReservationId), nullptr);
    }
  }
  EXPECT_EQ(reserved, 2) << Describe(result);
  EXPECT_GT(result.node_claims.size(), 2u) << Describe(result);
  EXPECT_EQ(result.Scheduled(), 6u);
  EXPECT_THAT(result.unschedulable, IsEmpty());
}

TEST_F(SchedulerTest, ReservedClaimsFillUpWithPodsThatFitAndAcceptReservedCapacity) {
  AddReservation(catalog_[7], "cr-0b", "test-zone-1", 1);  // 8 vCPU
  api::NodePool pool = MakePool("default");
  for (int i = 0; i < 4; ++i) AddPod("small" + std::to_string(i), 1500);
  // This pod (placed last: same size, later name) insists on on-demand: it must not share the
  // reserved node although it has room.
  AddPod("z-od", 1500).spec.node_selector = {{kCapacityType, "on-demand"}};
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  const SchedulerResult result = Schedule(input);
  ASSERT_EQ(result.node_claims.size(), 2u) << Describe(result);
  const auto& placements = Placements(result);
  const PlannedNodeClaim* reserved = nullptr;
  for (const PlannedNodeClaim& claim : result.node_claims) {
    if (ValuesOf(claim, kCapacityType) == "reserved") reserved = &claim;
  }
  ASSERT_NE(reserved, nullptr) << Describe(result);
  EXPECT_THAT(Names(reserved->pods), ElementsAre("t/small0", "t/small1", "t/small2", "t/small3"));
  EXPECT_EQ(placements.count("t/z-od"), 1u);
}

TEST_F(SchedulerTest, AReservedOnlyNodePoolLeavesWhatTheReservationsCannotHoldUnschedulable) {
  AddReservation(catalog_[3], "cr-0c", "test-zone-3", 2);
  api::NodePool pool = MakePool("reserved");
  pool.spec.template_.spec.requirements = {{kCapacityType, Op::kIn, {"reserved"}, {}}};
  for (int i = 0; i < 3; ++i) AddPod("p" + std::to_string(i), 3500);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  const SchedulerResult result = Schedule(input);
  EXPECT_EQ(result.node_claims.size(), 2u) << Describe(result);
  ASSERT_EQ(result.unschedulable.size(), 1u) << Describe(result);
  EXPECT_THAT(result.unschedulable.front().reason, HasSubstr("capacity reservations"));
}

TEST_F(SchedulerTest, ANodePoolRequiringOneReservationDoesNotTakeAnother) {
  AddReservation(catalog_[15], "cr-0big", "test-zone-1", 5);
  AddReservation(catalog_[3], "cr-0small", "test-zone-2", 5);
  api::NodePool pool = MakePool("pinned");
  pool.spec.template_.spec.requirements = {
      {std::string(api::kLabelCapacityReservationId), Op::kIn, {"cr-0small"}, {}}};
  AddPod("p", 1000);
  SchedulerInput input;
  input.pods = Pending();
  input.node_pools = {Offer(pool)};
  const SchedulerResult result = Schedule(input);
  ASSERT_EQ(result.node_claims.size(), 1u) << Describe(result);
  EXPECT_EQ(ValuesOf(result.node_claims.front(), api::kLabelCapacityReservationId), "cr-0small");
  // Without the requirement the larger reservation is taken: it is paid for either way.
  api::NodePool open = MakePool("open");
  input.node_pools = {Offer(open)};
  const SchedulerResult any = Schedule(input);
  ASSERT_EQ(any.node_claims.size(), 1u) << Describe(any);
  EXPECT_EQ(ValuesOf(any.node_claims.front(), api::kLabelCapacityReservationId), "cr-0big");
}

// ---------------------------------------------------------------------------------------------
// Static capacity: claims from the template alone.

TEST_F(SchedulerTest, TemplateClaimsOfferEveryTypeWithRoomForTheDaemonSetsWithinNodeLimits) {
  api::NodePool pool = MakePool("static");
  pool.spec.replicas = 5;
  pool.spec.limits.Set("nodes", Quantity::FromUnits(4));
  pool.spec.limited_resources = {"nodes"};
  api::PodTemplate agent;
  agent.metadata.name = "agent";
  api::Container c;
  c.name = "c";
  c.requests = Resources(2500);  // more than fake-it-1 (2 vCPU) has
  agent.spec.containers.push_back(c);

  SchedulerInput input;
  input.node_pools = {Offer(pool)};
  input.node_pools[0].in_use.Set("nodes", Quantity::FromUnits(1));
  input.daemon_sets = {&agent};
  std::string why;
  const std::vector<PlannedNodeClaim> claims = PlanTemplateClaims(input, "static", 5, why);
  // Four nodes allowed, one exists: three claims, and why not five.
  ASSERT_THAT(claims, SizeIs(3));
  EXPECT_THAT(why, HasSubstr("within NodePool static's limits"));
  for (const PlannedNodeClaim& claim : claims) {
    EXPECT_EQ(claim.node_pool, "static");
    EXPECT_THAT(claim.pods, IsEmpty());
    ASSERT_FALSE(claim.instance_types.empty());
    EXPECT_EQ(claim.instance_types.front()->name, "fake-it-2");  // cheapest with room for 2.5 CPU
    for (const cloud::InstanceType* type : claim.instance_types) {
      EXPECT_NE(type->name, "fake-it-1");
    }
  }
  // Every fitting type is offered, not just those some pod's shape would pick.
  size_t fitting = 0;
  for (const cloud::InstanceType& type : catalog_) {
    if (type.Allocatable().cpu() >= Quantity::FromMilli(2500) && !type.exotic) ++fitting;
  }
  EXPECT_EQ(claims.front().instance_types.size(), fitting);

  // Unlimited: as many as asked; a pool not offered: none, and why.
  input.node_pools[0].node_pool = &pool;
  pool.spec.limited_resources.clear();
  why.clear();
  EXPECT_THAT(PlanTemplateClaims(input, "static", 5, why), SizeIs(5));
  EXPECT_THAT(PlanTemplateClaims(input, "other", 1, why), IsEmpty());
  EXPECT_THAT(why, HasSubstr("NodePool other"));
}

}  // namespace
}  // namespace karpenter::provisioning
