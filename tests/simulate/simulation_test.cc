#include "simulate/simulation.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "api/labels.h"
#include "cloud/catalog.h"
#include "simulate/accuracy.h"
#include "simulate/inputs.h"
#include "simulate/launch_zones.h"
#include "simulate/priority_classes.h"
#include "simulate/report.h"
#include "support/matchers.h"

namespace karpenter::simulate {
namespace {

using kube::Object;
using std::chrono::minutes;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// m5.xlarge for the node groups; small and large for Karpenter, on-demand and spot, 3 zones.
constexpr std::string_view kCatalog = R"({"instanceTypes": [
  {"name": "m5.xlarge", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "4", "memory": "16Gi", "pods": 58},
   "offerings": [{"zone": "zone-a", "capacityType": "on-demand", "price": 0.192},
                 {"zone": "zone-b", "capacityType": "on-demand", "price": 0.192},
                 {"zone": "zone-c", "capacityType": "on-demand", "price": 0.192}]},
  {"name": "small", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "2", "memory": "8Gi", "pods": 20},
   "offerings": [{"zone": "zone-a", "capacityType": "spot", "price": 0.03},
                 {"zone": "zone-b", "capacityType": "spot", "price": 0.031},
                 {"zone": "zone-c", "capacityType": "spot", "price": 0.032},
                 {"zone": "zone-a", "capacityType": "on-demand", "price": 0.10},
                 {"zone": "zone-b", "capacityType": "on-demand", "price": 0.10},
                 {"zone": "zone-c", "capacityType": "on-demand", "price": 0.10}]},
  {"name": "large", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "8", "memory": "32Gi", "pods": 50},
   "offerings": [{"zone": "zone-a", "capacityType": "spot", "price": 0.13},
                 {"zone": "zone-b", "capacityType": "spot", "price": 0.13},
                 {"zone": "zone-c", "capacityType": "spot", "price": 0.13},
                 {"zone": "zone-a", "capacityType": "on-demand", "price": 0.40},
                 {"zone": "zone-b", "capacityType": "on-demand", "price": 0.40},
                 {"zone": "zone-c", "capacityType": "on-demand", "price": 0.40}]}
]})";

// A spot NodePool "default" (consolidation after 1m) and its EC2NodeClass.
constexpr std::string_view kKarpenter = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-test
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
)";

// A Deployment `name` of `replicas` pods requesting `cpu`; `pod_spec` adds a line to their spec
// ("priorityClassName: batch").
std::string App(std::string_view name, int replicas, std::string_view cpu,
                std::string_view pod_spec = "") {
  return fmt::format(R"(
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {0}, namespace: shop}}
spec:
  replicas: {1}
  selector: {{matchLabels: {{app: {0}}}}}
  template:
    metadata: {{labels: {{app: {0}}}}}
    spec:
      {3}
      containers: [{{name: main, image: app, resources: {{requests: {{cpu: "{2}", memory: 1Gi}}}}}}]
)",
                     name, replicas, cpu, pod_spec);
}

// App() with a PDB allowing one down.
std::string Web(std::string_view name, int replicas, std::string_view cpu) {
  return App(name, replicas, cpu) + fmt::format(R"(
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {0}, namespace: shop}}
spec:
  maxUnavailable: 1
  selector: {{matchLabels: {{app: {0}}}}}
)",
                                                name);
}

SimulationInput Input(std::string_view manifests, std::string_view timeline,
                      minutes duration = minutes(30)) {
  SimulationInput input;
  input.scenario = "test";
  std::vector<std::string> errors;
  AddManifests(manifests, "test.yaml", input, errors);
  EXPECT_TRUE(errors.empty()) << errors.front();
  if (!timeline.empty()) {
    Result<Timeline> parsed = ParseTimeline(timeline, "timeline.yaml");
    EXPECT_THAT(parsed, IsOk());
    if (parsed.ok()) input.timeline = std::move(*parsed);
  }
  Result<std::vector<cloud::InstanceType>> catalog = cloud::ParseCatalogJson(kCatalog, "test");
  EXPECT_THAT(catalog, IsOk());
  if (catalog.ok()) input.catalog = std::move(*catalog);
  input.duration = duration;
  return input;
}

SimulationResult SimulateOk(const SimulationInput& input) {
  Result<SimulationResult> result = Simulate(input);
  EXPECT_THAT(result, IsOk());
  return result.ok() ? std::move(*result) : SimulationResult{};
}

std::vector<const TimelineEvent*> Events(const SimulationResult& result, std::string_view event) {
  std::vector<const TimelineEvent*> found;
  for (const TimelineEvent& entry : result.timeline) {
    if (entry.event == event) found.push_back(&entry);
  }
  return found;
}

constexpr std::string_view kRetireNodeGroup = R"(
nodeGroups:
  - {name: ng, instanceType: m5.xlarge, size: 3, zones: [zone-a, zone-b, zone-c]}
actions:
  - {at: 1m, scaleNodeGroup: {name: ng, size: 0, batch: 1}}
)";

// The end-state bound counts what a fleet cannot avoid: the node-group node the timeline keeps,
// at its price (with its free room used first), and on each of the fleet's nodes the DaemonSet
// pods that come with it — a heavier DaemonSet raises the bound.
TEST(Simulation, TheBoundKeepsTheNodesKarpenterDidNotLaunchAndRoomForDaemonSets) {
  constexpr std::string_view kKeepOne = R"(
nodeGroups:
  - {name: ng, instanceType: m5.xlarge, size: 3, zones: [zone-a, zone-b, zone-c]}
actions:
  - {at: 1m, scaleNodeGroup: {name: ng, size: 1, batch: 1}}
)";
  auto daemon_set = [](std::string_view cpu) {
    return fmt::format(R"(
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: agent, namespace: kube-system}}
spec:
  selector: {{matchLabels: {{app: agent}}}}
  template:
    metadata: {{labels: {{app: agent}}}}
    spec:
      containers: [{{name: agent, image: agent, resources: {{requests: {{cpu: "{}"}}}}}}]
)",
                       cpu);
  };
  const std::string workloads = std::string(kKarpenter) + Web("web", 12, "1");
  const SimulationResult light = SimulateOk(Input(workloads + daemon_set("10m"), kKeepOne));
  const SimulationResult heavy = SimulateOk(Input(workloads + daemon_set("1"), kKeepOne));
  for (const SimulationResult* result : {&light, &heavy}) {
    const ClusterFigures& after = result->after;
    EXPECT_NEAR(after.kept_price_per_hour, 0.192, 1e-9);  // one m5.xlarge
    EXPECT_GT(after.kept_lower_bound_price_per_hour, after.kept_price_per_hour);
    EXPECT_LE(after.kept_lower_bound_price_per_hour, after.price_per_hour + 1e-9);
    EXPECT_GE(after.kept_lower_bound_price_per_hour, after.lower_bound_price_per_hour);
  }
  EXPECT_GT(heavy.after.lower_bound_price_per_hour, light.after.lower_bound_price_per_hour * 1.05);
  std::ostringstream text;
  RenderText(heavy, text);
  EXPECT_THAT(text.str(),
              HasSubstr(fmt::format("{:.2f}", heavy.after.kept_lower_bound_price_per_hour)));
  EXPECT_THAT(text.str(), HasSubstr("with kept nodes"));
  EXPECT_THAT(RenderJson(heavy), HasSubstr("\"lowerBoundWithKeptNodesPricePerHour\""));
}

// The seed's migration in small: a node group is drained a node at a time, Karpenter takes the
// pods on spot capacity, and the PodDisruptionBudget holds throughout.
TEST(Simulation, RetiringANodeGroupMovesEveryPodToKarpenterWithinThePdb) {
  const SimulationResult result =
      SimulateOk(Input(std::string(kKarpenter) + Web("web", 6, "1"), kRetireNodeGroup));
  EXPECT_EQ(result.before.nodes, 3);
  EXPECT_EQ(result.before.pods, 6);
  EXPECT_EQ((result.before.by_type.at({"m5.xlarge", "on-demand"})), 3);
  EXPECT_NEAR(result.before.price_per_hour, 3 * 0.192, 1e-9);
  EXPECT_EQ(Events(result, "NodeCordoned").size(), 3u);
  EXPECT_EQ(Events(result, "NodeGroupNodeTerminated").size(), 3u);
  EXPECT_FALSE(Events(result, "Launched").empty());
  for (const FinalNode& node : result.nodes) {
    EXPECT_TRUE(node.node_group.empty()) << node.name;
    EXPECT_EQ(node.node_pool, "default") << node.name;
    EXPECT_EQ(node.capacity_type, "spot") << node.name;
  }
  EXPECT_EQ(result.after.pods, 6);
  EXPECT_EQ(result.unschedulable_pods, 0);
  EXPECT_EQ(result.pdb_violations, 0);
  EXPECT_GE(result.pods_disrupted, 6);  // every pod left its node-group node once
  EXPECT_LT(result.after.price_per_hour, result.before.price_per_hour);
  // The cheapest fractional fleet for the six pods: a bound no fleet beats, but near the one
  // Karpenter ends with.
  EXPECT_GT(result.after.lower_bound_price_per_hour, 0);
  EXPECT_LE(result.after.lower_bound_price_per_hour, result.after.price_per_hour);
  EXPECT_GT(result.after.lower_bound_price_per_hour, result.after.price_per_hour / 4);
  EXPECT_LE(result.before.lower_bound_price_per_hour, result.before.price_per_hour);
  // Pods waited for Karpenter's nodes to boot (40 s), not much longer.
  EXPECT_GE(result.max_pending_seconds, 40);
  EXPECT_LT(result.max_pending_seconds, 180);
  // Samples start with the node group and end with spot nodes only.
  ASSERT_GE(result.samples.size(), 2u);
  EXPECT_EQ(result.samples.front().on_demand_nodes, 3);
  EXPECT_EQ(result.samples.back().on_demand_nodes, 0);
  EXPECT_GT(result.samples.back().spot_nodes, 0);
}

// The reports say how far to trust the figures (the error the fidelity benchmark measured, beside
// the nodes and $/h after) and what this input has that the simulation does not model: here a
// Job, which never completes, and a HorizontalPodAutoscaler, which is ignored.
TEST(Simulation, TheReportsSayHowSureTheForecastIsAndWhatItDidNotModel) {
  const std::string manifests = std::string(kKarpenter) + Web("web", 2, "1") + R"(
---
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: shop}
spec:
  parallelism: 1
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: job, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
)";
  const SimulationResult result = SimulateOk(Input(manifests, kRetireNodeGroup, minutes(5)));
  const Accuracy& accuracy = result.accuracy;
  EXPECT_GT(accuracy.nodes_error, 0);
  EXPECT_GT(accuracy.price_error, 0);
  EXPECT_THAT(accuracy.basis, HasSubstr("karpenter-bench fidelity"));
  auto mentions = [&](std::string_view text) {
    return std::any_of(accuracy.not_modelled.begin(), accuracy.not_modelled.end(),
                       [&](const std::string& caveat) { return caveat.find(text) != caveat.npos; });
  };
  EXPECT_TRUE(mentions("Jobs never complete"));
  EXPECT_TRUE(mentions("1 HorizontalPodAutoscaler"));
  EXPECT_TRUE(mentions("replica counts stay as given"));
  EXPECT_TRUE(mentions("40 s after launch, give or take 10 s"));
  EXPECT_FALSE(mentions("No PodDisruptionBudget"));   // the Deployment has one
  EXPECT_FALSE(mentions("Volumes detach"));           // no volumes in the input
  EXPECT_FALSE(mentions("consolidation here runs"));  // no workload scales down

  // Volumes in the input: their detach is not modelled.
  SimulationInput with_volumes;
  with_volumes.objects.push_back({{"apiVersion", "v1"},
                                  {"kind", "PersistentVolumeClaim"},
                                  {"metadata", {{"name", "data"}, {"namespace", "shop"}}}});
  const std::vector<std::string> caveats = AccuracyFor(with_volumes).not_modelled;
  EXPECT_THAT(caveats, Contains(HasSubstr("Volumes detach as soon as their pods leave")));
  // A timeline that scales a workload: that consolidation's steps fall at varying times is said.
  SimulationInput scaling;
  scaling.timeline.actions.push_back({minutes(1), ScaleWorkload{"Deployment", "shop", "web", 1}});
  EXPECT_THAT(AccuracyFor(scaling).not_modelled,
              Contains(HasSubstr("consolidation removes nodes in steps")));

  std::ostringstream text;
  RenderText(result, text);
  EXPECT_THAT(text.str(), HasSubstr(fmt::format("±{:.0f} %", 100 * accuracy.nodes_error)));
  EXPECT_THAT(text.str(), HasSubstr("How sure:"));
  EXPECT_THAT(text.str(), HasSubstr("  - Jobs never complete"));
  const std::string json = RenderJson(result);
  EXPECT_THAT(json, HasSubstr("\"nodesAfterExpectedError\""));
  EXPECT_THAT(json, HasSubstr("\"notModelled\""));

  // Without any budget, the report says disruption is not slowed by one.
  const SimulationResult unguarded =
      SimulateOk(Input(std::string(kKarpenter) + App("api", 2, "1"), kRetireNodeGroup, minutes(5)));
  EXPECT_THAT(unguarded.accuracy.not_modelled, Contains(HasSubstr("No PodDisruptionBudget")));
}

TEST(Simulation, SameInputsGiveByteIdenticalJson) {
  const SimulationInput input =
      Input(std::string(kKarpenter) + Web("web", 6, "1") + Web("api", 3, "500m"), kRetireNodeGroup);
  const std::string first = RenderJson(SimulateOk(input));
  const std::string second = RenderJson(SimulateOk(input));
  EXPECT_EQ(first, second);
  EXPECT_THAT(first, HasSubstr("\"nodesBefore\": 3"));
}

// Shrinking as `karpenter migrate apply` does (settle: true): the next batch only once the last
// one's nodes are gone and the pods they ran are running again (here on a node Karpenter launches
// for them, so the wait is at least its boot), and the second group only once the first is done.
// Without settle, each group drains at once, the next node as soon as one is gone.
TEST(Simulation, SettlingNodeGroupsShrinkOneAfterAnotherEachBatchOnceItsPodsRun) {
  auto run = [](bool settle) {
    // One 3-CPU pod fills an m5.xlarge: what a drained node ran needs a new node.
    return SimulateOk(Input(std::string(kKarpenter) + App("big", 6, "3"), fmt::format(R"(
nodeGroups:
  - {{name: first, instanceType: m5.xlarge, size: 4, zones: [zone-a, zone-b]}}
  - {{name: second, instanceType: m5.xlarge, size: 2, zones: [zone-a, zone-b]}}
actions:
  - {{at: 1m, scaleNodeGroup: {{name: first, size: 0, batch: 2, settle: {0}}}}}
  - {{at: 1m, scaleNodeGroup: {{name: second, size: 0, batch: 2, settle: {0}}}}}
)",
                                                                                      settle)));
  };
  // The times (s) of `event` for the nodes of `group`, in order.
  auto times = [](const SimulationResult& result, std::string_view event, std::string_view group) {
    std::vector<double> found;
    for (const TimelineEvent* entry : Events(result, event)) {
      if (entry->subject.starts_with(group)) found.push_back(entry->t);
    }
    std::sort(found.begin(), found.end());
    return found;
  };
  const SimulationResult settled = run(true);
  EXPECT_EQ(settled.pdb_violations, 0);
  EXPECT_EQ(settled.after.pods, 6);
  EXPECT_EQ(settled.unschedulable_pods, 0);
  const std::vector<double> cordoned = times(settled, "NodeCordoned", "first");
  const std::vector<double> gone = times(settled, "NodeGroupNodeTerminated", "first");
  ASSERT_EQ(cordoned.size(), 4u);
  ASSERT_EQ(gone.size(), 4u);
  EXPECT_EQ(cordoned[0], 60);
  EXPECT_EQ(cordoned[1], 60);
  EXPECT_EQ(cordoned[2], cordoned[3]);  // a whole batch at once
  EXPECT_GE(cordoned[2], gone[1] + 30) << "the second batch did not wait for the pods to run";
  const std::vector<double> second = times(settled, "NodeCordoned", "second");
  ASSERT_EQ(second.size(), 2u);
  EXPECT_GE(second[0], gone[3] + 30) << "the second group did not wait for the first";

  const SimulationResult rolling = run(false);
  const std::vector<double> at_once = times(rolling, "NodeCordoned", "second");
  ASSERT_EQ(at_once.size(), 2u);
  EXPECT_EQ(at_once[0], 60);
  const std::vector<double> next = times(rolling, "NodeCordoned", "first");
  const std::vector<double> first_gone = times(rolling, "NodeGroupNodeTerminated", "first");
  ASSERT_EQ(next.size(), 4u);
  ASSERT_EQ(first_gone.size(), 4u);
  EXPECT_LT(next[2], first_gone[1] + 30);
}

// A node group drained while a PDB allows no disruption at all: the drain waits, nothing is
// violated, and the nodes (one pod each) stay.
TEST(Simulation, ADrainNeverBreaksAPdbThatAllowsNothing) {
  const std::string blocked = std::string(kKarpenter) + R"(
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: main, image: db, resources: {requests: {cpu: "3", memory: 1Gi}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db, namespace: shop}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: db}}
)";
  const SimulationResult result = SimulateOk(Input(blocked, R"(
nodeGroups:
  - {name: ng, instanceType: m5.xlarge, size: 2, zones: [zone-a, zone-b]}
actions:
  - {at: 1m, scaleNodeGroup: {name: ng, size: 0, batch: 2}}
)",
                                                   minutes(10)));
  EXPECT_EQ(result.pdb_violations, 0);
  EXPECT_EQ(result.pods_disrupted, 0);
  EXPECT_TRUE(Events(result, "NodeGroupNodeTerminated").empty());
  EXPECT_EQ(Events(result, "NodeCordoned").size(), 2u);
  EXPECT_EQ(result.after.pods, 2);
}

// Spot capacity in a zone is interrupted: Karpenter replaces the nodes, EC2 reclaims them two
// minutes later, and every pod ends running.
TEST(Simulation, SpotInterruptionReplacesTheZonesNodes) {
  const SimulationResult result =
      SimulateOk(Input(std::string(kKarpenter) + Web("web", 6, "1500m"), R"(
actions:
  - {at: 10m, interruptSpot: {zone: zone-a}}
)"));
  const std::vector<const TimelineEvent*> interrupted = Events(result, "SpotInterrupted");
  ASSERT_FALSE(interrupted.empty()) << "no node in zone-a to interrupt";
  for (const TimelineEvent* event : interrupted) {
    EXPECT_EQ(event->t, 600);
    EXPECT_THAT(event->detail, HasSubstr("zone-a"));
    // The interrupted node is gone at the end.
    EXPECT_TRUE(std::none_of(result.nodes.begin(), result.nodes.end(), [&](const FinalNode& node) {
      return node.name == event->subject;
    })) << event->subject;
  }
  EXPECT_EQ(result.after.pods, 6);
  EXPECT_EQ(result.unschedulable_pods, 0);
  // Launches after the interruption replaced the capacity.
  const std::vector<const TimelineEvent*> launched = Events(result, "Launched");
  EXPECT_TRUE(std::any_of(launched.begin(), launched.end(),
                          [](const TimelineEvent* event) { return event->t > 600; }));
}

// A node of Karpenter's goes NotReady: with the NodeRepair gate it is replaced once Ready=False's
// toleration (30 minutes) is over, as the controller would; without it, it stays.
TEST(Simulation, ANotReadyNodeIsRepairedWithTheNodeRepairGate) {
  constexpr std::string_view kTimeline = R"(
actions:
  - {at: 5m, nodeCondition: {nodePool: default, type: Ready, status: "False"}}
)";
  // Five nodes, so that one unhealthy is within repair's 20 %.
  SimulationInput input =
      Input(std::string(kKarpenter) + Web("web", 5, "1500m"), kTimeline, minutes(45));
  input.node_repair = true;
  const SimulationResult repaired = SimulateOk(input);
  const std::vector<const TimelineEvent*> marked = Events(repaired, "NodeCondition");
  ASSERT_EQ(marked.size(), 1u);
  EXPECT_EQ(marked[0]->t, 300);
  EXPECT_EQ(marked[0]->detail, "Ready=False");
  const std::vector<const TimelineEvent*> repairs = Events(repaired, "Repaired");
  ASSERT_EQ(repairs.size(), 1u);
  EXPECT_EQ(repairs[0]->subject, marked[0]->subject);
  EXPECT_GE(repairs[0]->t, 300 + 30 * 60);
  EXPECT_LE(repairs[0]->t, 300 + 30 * 60 + 10);
  EXPECT_THAT(repairs[0]->detail, HasSubstr("Ready has been False for 30m"));
  EXPECT_TRUE(std::none_of(repaired.nodes.begin(), repaired.nodes.end(),
                           [&](const FinalNode& n) { return n.name == marked[0]->subject; }));
  EXPECT_EQ(repaired.after.pods, 5);
  EXPECT_EQ(repaired.unschedulable_pods, 0);

  input.node_repair = false;
  const SimulationResult kept = SimulateOk(input);
  EXPECT_TRUE(Events(kept, "Repaired").empty());
  ASSERT_EQ(Events(kept, "NodeCondition").size(), 1u);
  const std::string sick = Events(kept, "NodeCondition")[0]->subject;
  EXPECT_TRUE(std::any_of(kept.nodes.begin(), kept.nodes.end(),
                          [&](const FinalNode& n) { return n.name == sick; }));
}

TEST(Simulation, AnUnavailableInstanceTypeIsNeverLaunched) {
  const SimulationResult result =
      SimulateOk(Input(std::string(kKarpenter) + Web("web", 3, "500m"), R"(
actions:
  - {at: 0s, unavailable: {instanceType: small}}
)",
                       minutes(5)));
  const std::vector<const TimelineEvent*> launched = Events(result, "Launched");
  ASSERT_FALSE(launched.empty());
  for (const TimelineEvent* event : launched) {
    EXPECT_THAT(event->detail, ::testing::StartsWith("large spot")) << event->subject;
  }
  EXPECT_EQ(result.after.pods, 3);
}

// Scaling up adds capacity; scaling down leaves nodes empty or underused, and consolidation takes
// them away.
TEST(Simulation, ScalingUpAddsNodesAndScalingDownConsolidatesThem) {
  const SimulationResult result =
      SimulateOk(Input(std::string(kKarpenter) + Web("web", 2, "1500m"), R"(
actions:
  - {at: 2m, scale: {kind: Deployment, namespace: shop, name: web, replicas: 8}}
  - {at: 10m, scale: {kind: Deployment, namespace: shop, name: web, replicas: 1}}
)"));
  int most = 0;
  for (const Sample& sample : result.samples) most = std::max(most, sample.spot_nodes);
  EXPECT_GE(most, 8);  // one 2-CPU node per 1.5-CPU pod is the cheapest
  EXPECT_EQ(result.after.nodes, 1);
  EXPECT_EQ(result.after.pods, 1);
  EXPECT_FALSE(result.decisions.empty());
  for (const Decision& decision : result.decisions) EXPECT_GT(decision.t, 600);
}

TEST(Simulation, DeletingAWorkloadDeletesItsPodsAndEmptiesItsNodes) {
  const SimulationResult result =
      SimulateOk(Input(std::string(kKarpenter) + Web("web", 3, "1500m") + Web("api", 1, "500m"), R"(
actions:
  - {at: 5m, delete: {kind: Deployment, namespace: shop, name: web}}
)"));
  EXPECT_EQ(result.after.pods, 1);
  EXPECT_EQ(result.after.nodes, 1);
  const auto emptied = std::find_if(result.decisions.begin(), result.decisions.end(),
                                    [](const Decision& d) { return d.method == "emptiness"; });
  EXPECT_NE(emptied, result.decisions.end());
}

// A scale-down deletes pods as the ReplicaSet controller ranks them: from the node that holds
// most of the Deployment's pods first, before the newest pod, so no node is emptied here.
TEST(Simulation, ScalingDownThinsTheCrowdedNodeBeforeDeletingTheNewestPod) {
  std::string items;
  for (int i = 1; i <= 2; ++i) {
    items += fmt::format(R"({{"apiVersion": "v1", "kind": "Node",
      "metadata": {{"name": "ng-{0}", "labels": {{"eks.amazonaws.com/nodegroup": "ng",
        "node.kubernetes.io/instance-type": "m5.xlarge", "topology.kubernetes.io/zone": "zone-a",
        "kubernetes.io/hostname": "ng-{0}"}}}},
      "spec": {{"providerID": "aws:///zone-a/i-{0}"}},
      "status": {{"allocatable": {{"cpu": "3920m", "memory": "15Gi", "pods": "58"}},
                  "capacity": {{"cpu": "4", "memory": "16Gi", "pods": "58"}},
                  "conditions": [{{"type": "Ready", "status": "True"}}]}}}},)",
                         i);
  }
  // Three older pods on ng-1, the newest on ng-2.
  const std::pair<const char*, const char*> pods[] = {{"ng-1", "2025-12-31T20:00:00Z"},
                                                      {"ng-1", "2025-12-31T20:00:00Z"},
                                                      {"ng-1", "2025-12-31T20:00:00Z"},
                                                      {"ng-2", "2025-12-31T23:50:00Z"}};
  int n = 0;
  for (const auto& [node, created] : pods) {
    items += fmt::format(R"({{"apiVersion": "v1", "kind": "Pod",
      "metadata": {{"name": "web-5d4f8c6b7-x{0}", "namespace": "shop", "creationTimestamp": "{2}",
        "labels": {{"app": "web", "pod-template-hash": "5d4f8c6b7"}},
        "ownerReferences": [{{"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "name": "web-5d4f8c6b7", "uid": "rs", "controller": true}}]}},
      "spec": {{"nodeName": "{1}", "containers": [{{"name": "main", "image": "app",
        "resources": {{"requests": {{"cpu": "500m", "memory": "1Gi"}}}}}}]}},
      "status": {{"phase": "Running", "conditions": [{{"type": "Ready", "status": "True",
        "lastTransitionTime": "{2}"}}]}}}},)",
                         ++n, node, created);
  }
  const std::string snapshot = R"({"apiVersion": "v1", "kind": "List", "items": [)" + items + R"(
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
     "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
       "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
         {"name": "main", "image": "app", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]}}}}
  ]})";
  const SimulationResult result = SimulateOk(Input(snapshot, R"(
actions:
  - {at: 1m, scale: {kind: Deployment, namespace: shop, name: web, replicas: 2}}
)",
                                                   minutes(2)));
  EXPECT_EQ(result.after.pods, 2);
  for (const FinalNode& node : result.nodes) EXPECT_EQ(node.pods, 1) << node.name;
}

// The overprovisioning Cluster Autoscaler users run: pause pods of a negative priority holding
// room on the node group. When real pods come, kube-scheduler preempts placeholders for them at
// once (they bind on the node group, without waiting for a node), and Karpenter launches for the
// placeholders, not for the pods nominated to the room they left.
TEST(Simulation, NewPodsPreemptPlaceholdersAndKarpenterLaunchesForThePlaceholders) {
  const std::string manifests = std::string(kKarpenter) + R"(
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: overprovisioning}
value: -10
preemptionPolicy: Never
)" + App("placeholder", 2, "3", "priorityClassName: overprovisioning") +
                                App("web", 0, "3");
  SimulationInput input = Input(manifests, R"(
nodeGroups:
  - {name: ng, instanceType: m5.xlarge, size: 2, zones: [zone-a, zone-b]}
actions:
  - {at: 1m, scale: {kind: Deployment, namespace: shop, name: web, replicas: 2}}
)",
                                minutes(5));
  std::map<std::string, std::vector<std::string>> node_groups_of;  // app → node group of each pod
  input.at_end = [&](const controllers::ClusterCache& cluster, cloud::CloudProvider&) {
    std::map<std::string, std::string, std::less<>> group_of;
    for (const auto& node : cluster.decoded_nodes().All()) {
      group_of[node->metadata.name] = api::LabelValue(node->metadata.labels, api::kLabelNodeGroup);
    }
    for (const auto& pod : cluster.decoded_pods().All()) {
      node_groups_of[std::string(api::LabelValue(pod->metadata.labels, "app"))].push_back(
          group_of[pod->spec.node_name]);
    }
  };
  const SimulationResult result = SimulateOk(input);
  EXPECT_THAT(node_groups_of["web"], ElementsAre("ng", "ng"));
  EXPECT_THAT(node_groups_of["placeholder"], ElementsAre("", ""));  // on Karpenter's nodes
  const std::vector<const TimelineEvent*> preempted = Events(result, "Preempted");
  ASSERT_EQ(preempted.size(), 2u);
  for (const TimelineEvent* event : preempted) {
    EXPECT_THAT(event->subject, HasSubstr("shop/web-"));
    EXPECT_THAT(event->detail, HasSubstr("preempted shop/placeholder-"));
    EXPECT_THAT(event->detail, HasSubstr("(priority 0 over -10)"));
  }
  EXPECT_EQ(result.unschedulable_pods, 0);
  // The web pods waited for a preemption and a backoff, not for a node to boot (40 s).
  EXPECT_FALSE(Events(result, "Launched").empty());
  EXPECT_EQ(result.pdb_violations, 0);
}

// Pods of a snapshot carry their priority, not their class: the class is made from it. A workload
// whose class is nowhere in the input runs at priority 0, and the report says so.
TEST(Simulation, PriorityClassesMissingFromTheInputAreMadeFromThePodsOrTakenAsZero) {
  std::vector<Object> objects = {
      {{"apiVersion", "v1"},
       {"kind", "Pod"},
       {"metadata", {{"name", "copied"}, {"namespace", "shop"}}},
       {"spec",
        {{"priorityClassName", "business-critical"},
         {"priority", 100000},
         {"preemptionPolicy", "Never"},
         {"containers", Object::array({{{"name", "main"}, {"image", "app"}}})}}}},
  };
  std::vector<Object> added = objects;
  std::vector<std::string> assumed = AddMissingPriorityClasses(added);
  EXPECT_TRUE(assumed.empty());
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[1]["kind"], "PriorityClass");
  EXPECT_EQ(added[1]["metadata"]["name"], "business-critical");
  EXPECT_EQ(added[1]["value"], 100000);
  EXPECT_EQ(added[1]["preemptionPolicy"], "Never");

  SimulationInput input =
      Input(std::string(kKarpenter) + App("batch", 1, "1", "priorityClassName: batch-low"), "",
            minutes(2));
  std::vector<std::string> errors;
  AddObjects(objects, "snapshot.json", input, errors);
  EXPECT_TRUE(errors.empty());
  std::map<std::string, int32_t> priorities;
  input.at_end = [&](const controllers::ClusterCache& cluster, cloud::CloudProvider&) {
    for (const auto& pod : cluster.decoded_pods().All()) {
      priorities[pod->metadata.name.starts_with("batch") ? "batch" : pod->metadata.name] =
          pod->spec.priority.value_or(-1);
    }
  };
  const SimulationResult result = SimulateOk(input);
  EXPECT_EQ(priorities["copied"], 100000);
  EXPECT_EQ(priorities["batch"], 0);
  EXPECT_EQ(priorities.size(), 2u);
  EXPECT_THAT(result.accuracy.not_modelled,
              Contains(HasSubstr("PriorityClass batch-low is not in the input")));
  EXPECT_EQ(result.unschedulable_pods, 0);
}

// A pod still waiting at the end is named in the reports, with why: here Karpenter's word, as no
// NodePool offers the node group it asks for.
TEST(Simulation, PodsStillPendingAreNamedWithWhy) {
  const SimulationResult result = SimulateOk(
      Input(std::string(kKarpenter) + App("web", 1, "1") +
                App("stuck", 1, "1", "nodeSelector: {eks.amazonaws.com/nodegroup: retired}"),
            "", minutes(3)));
  EXPECT_EQ(result.unschedulable_pods, 1);
  ASSERT_EQ(result.still_pending.size(), 1u);
  const PendingPod& stuck = result.still_pending.front();
  EXPECT_THAT(stuck.name, testing::StartsWith("shop/stuck-"));
  EXPECT_NEAR(stuck.seconds, 180, 1);
  EXPECT_THAT(stuck.reason, testing::StartsWith("Karpenter: "));
  EXPECT_THAT(stuck.reason, HasSubstr("eks.amazonaws.com/nodegroup"));
  std::ostringstream text;
  RenderText(result, text);
  EXPECT_THAT(text.str(), HasSubstr(fmt::format("  {} (180 s): Karpenter: ", stuck.name)));
  EXPECT_THAT(RenderJson(result), HasSubstr("\"stillPending\""));
}

// The zones Karpenter launches in are those of the cluster's Nodes and of the node groups that
// name theirs (the subnets a migration tags for it); a node group that names none, or no node at
// all, restricts nothing. Types the zones do not offer are left out.
TEST(Simulation, LaunchZonesAreTheClustersNodesAndNodeGroups) {
  Result<Timeline> timeline = ParseTimeline(R"(
nodeGroups:
  - {name: named, instanceType: m5.xlarge, size: 1, zones: [zone-b]}
  - {name: anywhere, instanceType: m5.xlarge, size: 1}
)",
                                            "timeline.yaml");
  ASSERT_THAT(timeline, IsOk());
  const std::vector<Object> nodes = {
      {{"kind", "Node"}, {"metadata", {{"labels", {{"topology.kubernetes.io/zone", "zone-c"}}}}}},
      {{"kind", "Pod"}, {"metadata", {{"labels", {{"topology.kubernetes.io/zone", "zone-a"}}}}}}};
  EXPECT_THAT(InferLaunchZones(nodes, *timeline), ElementsAre("zone-b", "zone-c"));
  EXPECT_TRUE(InferLaunchZones({}, Timeline{}).empty());

  Result<std::vector<cloud::InstanceType>> catalog = cloud::ParseCatalogJson(kCatalog, "test");
  ASSERT_THAT(catalog, IsOk());
  const std::vector<cloud::InstanceType> offered = OfferedIn(*catalog, {"zone-b"});
  ASSERT_EQ(offered.size(), 3u);
  for (const cloud::InstanceType& type : offered) {
    for (const cloud::Offering& offering : type.offerings) EXPECT_EQ(offering.zone, "zone-b");
  }
  EXPECT_TRUE(OfferedIn(*catalog, {"zone-z"}).empty());

  // A node group in zone-a: Karpenter's nodes for its pods come up there, and nowhere else.
  const SimulationResult result = SimulateOk(Input(std::string(kKarpenter) + Web("web", 6, "1"),
                                                   R"(
nodeGroups:
  - {name: ng, instanceType: m5.xlarge, size: 2, zones: [zone-a]}
actions:
  - {at: 1m, scaleNodeGroup: {name: ng, size: 0, batch: 1}}
)"));
  EXPECT_FALSE(Events(result, "Launched").empty());
  for (const FinalNode& node : result.nodes) EXPECT_EQ(node.zone, "zone-a") << node.name;
  EXPECT_THAT(result.accuracy.not_modelled,
              Contains(HasSubstr("Karpenter launches only in zone-a")));
}

// A `kubectl get … -o json` snapshot: node-group Nodes, ReplicaSet-owned pods bound to them (the
// ReplicaSet itself not in the snapshot), the Deployment, and a kind not simulated.
TEST(Simulation, SnapshotPodsKeepTheirNodesAndWorkload) {
  std::string nodes;
  std::string pods;
  for (int i = 1; i <= 2; ++i) {
    nodes += fmt::format(R"({{"apiVersion": "v1", "kind": "Node",
      "metadata": {{"name": "ng-{0}", "labels": {{"eks.amazonaws.com/nodegroup": "ng",
        "node.kubernetes.io/instance-type": "m5.xlarge", "topology.kubernetes.io/zone": "zone-a",
        "kubernetes.io/hostname": "ng-{0}"}}, "resourceVersion": "77", "uid": "u-{0}"}},
      "spec": {{"providerID": "aws:///zone-a/i-{0}"}},
      "status": {{"allocatable": {{"cpu": "3920m", "memory": "15Gi", "pods": "58"}},
                  "capacity": {{"cpu": "4", "memory": "16Gi", "pods": "58"}},
                  "conditions": [{{"type": "Ready", "status": "True"}}]}}}},)",
                         i);
    pods += fmt::format(R"({{"apiVersion": "v1", "kind": "Pod",
      "metadata": {{"name": "web-5d4f8c6b7-x{0}", "namespace": "shop",
        "labels": {{"app": "web", "pod-template-hash": "5d4f8c6b7"}},
        "ownerReferences": [{{"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "name": "web-5d4f8c6b7", "uid": "rs", "controller": true}}]}},
      "spec": {{"nodeName": "ng-{0}", "containers": [{{"name": "main", "image": "app",
        "resources": {{"requests": {{"cpu": "1", "memory": "1Gi"}}}}}}]}},
      "status": {{"phase": "Running", "conditions": [{{"type": "Ready", "status": "True"}}]}}}},)",
                        i);
  }
  const std::string snapshot =
      R"({"apiVersion": "v1", "kind": "List", "items": [)" + nodes + pods + R"(
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
     "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
       "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
         {"name": "main", "image": "app", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "shop"}}
  ]})";
  SimulationInput input = Input(snapshot, "", minutes(5));
  EXPECT_THAT(input.ignored, Contains("ConfigMap/shop/cfg"));
  const SimulationResult result = SimulateOk(input);
  EXPECT_EQ(result.before.nodes, 2);
  EXPECT_EQ(result.before.pods, 2);  // the snapshot's pods, no duplicates from the Deployment
  EXPECT_EQ(result.before.pending_pods, 0);
  EXPECT_EQ(result.after.pods, 2);
  EXPECT_THAT(result.ignored, Contains("ConfigMap/shop/cfg"));
  EXPECT_TRUE(Events(result, "Launched").empty());  // no NodePool, nothing pending
}

// A snapshot as kubectl prints it: what the simulation reads stays, the bulk it never reads
// (probes, environments, mounts, the kubelet's reports) is left out as the text is parsed.
TEST(Simulation, SnapshotFieldsNothingReadsAreLeftOut) {
  SimulationInput input;
  std::vector<std::string> errors;
  AddManifests(R"({"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod",
   "metadata": {"name": "web-1", "namespace": "shop", "managedFields": [{"manager": "kubelet"}],
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}",
                                "karpenter.sh/do-not-disrupt": "true"}},
   "spec": {"nodeName": "n1",
            "containers": [{"name": "main", "image": "app",
                            "env": [{"name": "A", "value": "b"}],
                            "livenessProbe": {"httpGet": {"port": 80}},
                            "volumeMounts": [{"name": "token", "mountPath": "/var/run"}],
                            "ports": [{"containerPort": 80, "hostPort": 8080}],
                            "resources": {"requests": {"cpu": "1"}}}],
            "volumes": [{"name": "token", "projected": {"sources": []}},
                        {"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]},
   "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
              "podIP": "10.0.0.1", "containerStatuses": [{"name": "main", "ready": true}]}},
  {"apiVersion": "v1", "kind": "Node",
   "metadata": {"name": "n1"},
   "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
              "images": [{"names": ["app"], "sizeBytes": 1}],
              "nodeInfo": {"kubeletVersion": "v1.31.0"}}}]})",
               "snapshot.json", input, errors);
  ASSERT_TRUE(errors.empty()) << errors.front();
  ASSERT_EQ(input.objects.size(), 2u);
  const Object& pod = input.objects[0];
  EXPECT_FALSE(pod["metadata"].contains("managedFields"));
  EXPECT_EQ(pod["metadata"]["annotations"], Object({{"karpenter.sh/do-not-disrupt", "true"}}));
  EXPECT_EQ(pod["spec"]["containers"][0], Object::parse(R"({"name": "main", "image": "app",
                             "ports": [{"containerPort": 80, "hostPort": 8080}],
                             "resources": {"requests": {"cpu": "1"}}})"));
  EXPECT_EQ(pod["spec"]["volumes"], Object::parse(R"([{"name": "token"},
      {"name": "data", "persistentVolumeClaim": {"claimName": "data"}}])"));
  EXPECT_EQ(pod["spec"]["nodeName"], "n1");
  EXPECT_EQ(pod["status"], Object::parse(R"({"phase": "Running",
                                            "conditions": [{"type": "Ready", "status": "True"}]})"));
  const Object& node = input.objects[1];
  EXPECT_EQ(node["status"], Object::parse(R"({"allocatable":
                                             {"cpu": "4", "memory": "16Gi", "pods": "110"}})"));
}

TEST(Simulation, BadManifestsAreReportedWithFileObjectAndField) {
  SimulationInput input;
  std::vector<std::string> errors;
  AddManifests(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: broken}
spec:
  template:
    spec:
      requirements: [{key: karpenter.sh/capacity-type, operator: Sometimes, values: [spot]}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)",
               "pools.yaml", input, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("pools.yaml:1"));
  EXPECT_THAT(errors[0], HasSubstr("NodePool/broken"));
  EXPECT_THAT(errors[0], HasSubstr("spec.template.spec.requirements[0].operator"));
  EXPECT_TRUE(input.objects.empty());
}

TEST(Simulation, ActionsOnWhatDoesNotExistFailWithTheirTime) {
  Result<SimulationResult> result = Simulate(Input(kKarpenter, R"(
actions:
  - {at: 2m, scaleNodeGroup: {name: nowhere, size: 0}}
)"));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error().message, HasSubstr("actions at 120s"));
  EXPECT_THAT(result.error().message, HasSubstr("node group \"nowhere\" has no nodes"));

  Result<SimulationResult> group = Simulate(Input(kKarpenter, R"(
nodeGroups:
  - {name: ng, instanceType: m9.huge, size: 1}
)"));
  ASSERT_FALSE(group.ok());
  EXPECT_THAT(group.error().message, HasSubstr("node group ng: instanceType: \"m9.huge\""));
}

}  // namespace
}  // namespace karpenter::simulate
