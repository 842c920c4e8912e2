// Disruption end to end on the test cluster: consolidation after a scale-down, drift after a
// template change, do-not-disrupt — with the real Eviction API, PodDisruptionBudget controller
// and kube-scheduler deciding what our controller may do and where pods go.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/labels.h"
#include "aws/catalog/load_catalog.h"
#include "common/clock.h"
#include "integration/end_to_end.h"
#include "support/matchers.h"
#include "support/metric_catalog.h"
#include "support/scrape.h"

namespace karpenter::integration {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::string_view kNamespace = "e2e-disruption";

class DisruptionE2E : public ControllerEndToEnd {
 protected:
  DisruptionE2E() : ControllerEndToEnd({std::string(kNamespace)}) {}

  void SetUp() override {
    ControllerEndToEnd::SetUp();
    if (HasFatalFailure()) return;
    // As the chart runs it with controller.debugEndpoints.
    StartController(/*chart_metrics_port=*/true, {"--debug-endpoints"});
    ASSERT_OK(support::ApplyFile(*client_, kTestdata + "disruption.yaml"));
  }

  // The names of the nodes the scrape has allocatable series of.
  static std::set<std::string> ScrapedNodes(const std::vector<support::Sample>& scrape) {
    std::set<std::string> names;
    for (const support::Sample& sample : scrape) {
      if (sample.name == "karpenter_nodes_allocatable" && sample.labels.contains("nodepool") &&
          sample.labels.at("nodepool") == "default") {
        names.insert(sample.labels.at("node_name"));
      }
    }
    return names;
  }

  // The names of our nodes on the cluster.
  std::set<std::string> OurNodes() {
    std::set<std::string> names;
    for (const kube::Object& node : SimNodes(*client_)) names.emplace(kube::Name(node));
    return names;
  }

  // A deployment of `replicas` pause pods labelled app=`name` requesting `cpu`.
  void CreateDeployment(const std::string& name, int replicas, const std::string& cpu,
                        const kube::Object& annotations = kube::Object::object(),
                        bool one_per_node = false) {
    kube::Object spec = {{"terminationGracePeriodSeconds", 0},
                         {"containers",
                          {{{"name", "main"},
                            {"image", "registry.k8s.io/pause:3.10"},
                            {"resources",
                             {{"requests", {{"cpu", cpu}, {"memory", "256Mi"}}},
                              {"limits", {{"cpu", cpu}, {"memory", "256Mi"}}}}}}}}};
    if (one_per_node) {
      spec["affinity"] = {{"podAntiAffinity",
                           {{"requiredDuringSchedulingIgnoredDuringExecution",
                             {{{"topologyKey", api::kLabelHostname},
                               {"labelSelector", {{"matchLabels", {{"app", name}}}}}}}}}}};
    }
    ASSERT_OK(support::Apply(
        *client_, {{"apiVersion", "apps/v1"},
                   {"kind", "Deployment"},
                   {"metadata", {{"name", name}, {"namespace", kNamespace}}},
                   {"spec",
                    {{"replicas", replicas},
                     {"selector", {{"matchLabels", {{"app", name}}}}},
                     {"template",
                      {{"metadata", {{"labels", {{"app", name}}}, {"annotations", annotations}}},
                       {"spec", spec}}}}}}));
  }

  // A DaemonSet of small pause pods labelled app=agent on every node.
  void CreateDaemonSet() {
    ASSERT_OK(support::Apply(*client_, kube::Object::parse(R"json({
      "apiVersion": "apps/v1", "kind": "DaemonSet",
      "metadata": {"name": "agent", "namespace": "e2e-disruption"},
      "spec": {
        "selector": {"matchLabels": {"app": "agent"}},
        "template": {
          "metadata": {"labels": {"app": "agent"}},
          "spec": {"terminationGracePeriodSeconds": 0, "containers": [{
            "name": "main", "image": "registry.k8s.io/pause:3.10",
            "resources": {"requests": {"cpu": "10m", "memory": "16Mi"},
                          "limits": {"cpu": "10m", "memory": "16Mi"}}}]}}}})json")));
  }

  void Scale(const std::string& deployment, int replicas) {
    Result<kube::Object> scaled = client_->Patch(
        kube::resources::kDeployments, kNamespace, deployment, kube::PatchType::kMerge,
        {{"spec", {{"replicas", replicas}}}}, kube::Subresource::kNone);
    ASSERT_THAT(scaled, IsOk());
  }

  // Pods of `app` that are Running, Ready and not being deleted.
  size_t Ready(const std::string& app) {
    size_t ready = 0;
    for (const kube::Object& pod :
         List(*client_, kube::resources::kPods, std::string(kNamespace))) {
      if (kube::Label(pod, "app") != app || Phase(pod) != "Running" ||
          !kube::DeletionTimestamp(pod).empty()) {
        continue;
      }
      for (const kube::Object& c : Part(pod, "status").value("conditions", kube::Object::array())) {
        if (c.value("type", "") == "Ready" && c.value("status", "") == "True") ++ready;
      }
    }
    return ready;
  }

  // Gives `keep` pods of `app`, taken from the nodes in turn, the highest pod-deletion-cost, so a
  // scale-down to `keep` replicas deletes the others; returns how many nodes the kept pods are on.
  size_t MarkSurvivorsSpread(const std::string& app, size_t keep) {
    std::map<std::string, std::vector<std::string>> by_node;
    for (const kube::Object& pod :
         List(*client_, kube::resources::kPods, std::string(kNamespace))) {
      if (kube::Label(pod, "app") == app && kube::DeletionTimestamp(pod).empty()) {
        by_node[NodeName(pod)].emplace_back(kube::Name(pod));
      }
    }
    std::set<std::string> nodes;
    for (size_t round = 0, kept = 0; kept < keep; ++round) {
      bool any = false;
      for (auto& [node, pods] : by_node) {
        if (round >= pods.size() || kept == keep) continue;
        Result<kube::Object> marked = client_->Patch(
            kube::resources::kPods, kNamespace, pods[round], kube::PatchType::kMerge,
            {{"metadata",
              {{"annotations", {{"controller.kubernetes.io/pod-deletion-cost", "1000"}}}}}},
            kube::Subresource::kNone);
        EXPECT_THAT(marked, IsOk());
        nodes.insert(node);
        ++kept;
        any = true;
      }
      if (!any) break;
    }
    return nodes.size();
  }

  // How many nodes run a pod of `app`.
  size_t NodesRunning(const std::string& app) {
    std::set<std::string> nodes;
    for (const kube::Object& pod :
         List(*client_, kube::resources::kPods, std::string(kNamespace))) {
      if (kube::Label(pod, "app") == app && kube::DeletionTimestamp(pod).empty()) {
        nodes.insert(NodeName(pod));
      }
    }
    return nodes.size();
  }

  // What the simulated cloud's nodes cost per hour, at the embedded catalog's prices.
  double PricePerHour() {
    static const std::vector<cloud::InstanceType> catalog = [] {
      Result<std::vector<cloud::InstanceType>> loaded = aws::LoadCatalog("aws", {});
      return loaded.ok() ? std::move(*loaded) : std::vector<cloud::InstanceType>{};
    }();
    double total = 0;
    for (const kube::Object& node : SimNodes(*client_)) {
      for (const cloud::InstanceType& type : catalog) {
        if (type.name != kube::Label(node, api::kLabelInstanceType)) continue;
        for (const cloud::Offering& offering : type.offerings) {
          if (offering.zone == kube::Label(node, api::kLabelZone) &&
              offering.capacity_type == kube::Label(node, api::kLabelCapacityType)) {
            total += offering.price;
          }
        }
      }
    }
    return total;
  }

  // No NodeClaim is on its way in or out.
  bool Quiet() {
    for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
      if (!kube::DeletionTimestamp(claim).empty() || !Condition(claim, "Initialized")) {
        return false;
      }
      if (Condition(claim, "DisruptionReason")) return false;
    }
    return true;
  }

  // Whether a disruption pass that began after `since` (FormatTime) found nothing to do, with
  // nothing decided or in flight (the controller's debug endpoint): no command comes until the
  // cluster changes.
  bool NothingLeftToDisrupt(const std::string& since) {
    Result<kube::Object> state =
        support::DebugState(support::PortFromLog(controller_->Log(), "serving health probes"));
    if (!state.ok()) return false;
    const kube::Object& disruption = (*state)["disruption"];
    const std::string outcome = disruption["lastPass"].value("outcome", "");
    return disruption["pending"].is_null() && disruption["inFlight"].empty() &&
           disruption["lastPass"].value("at", "") > since &&
           (outcome.starts_with("nothing to do") || outcome.starts_with("skipped"));
  }

  // Nodes (type, team label), NodeClaims (conditions, deleting) and pods (phase, node): what a
  // failed wait saw last.
  std::string State() {
    std::string out;
    for (const kube::Object& node : SimNodes(*client_)) {
      out += "\nnode " + std::string(kube::Name(node)) +
             " team=" + std::string(kube::Label(node, "team"));
    }
    for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
      out += "\nnodeclaim " + std::string(kube::Name(claim)) +
             (kube::DeletionTimestamp(claim).empty() ? "" : " deleting") + " " +
             Part(claim, "status").value("conditions", kube::Object::array()).dump();
    }
    for (const kube::Object& pod :
         List(*client_, kube::resources::kPods, std::string(kNamespace))) {
      out += "\npod " + std::string(kube::Name(pod)) + " " + Phase(pod) + " on " + NodeName(pod);
    }
    return out;
  }

  static bool Condition(const kube::Object& object, std::string_view type) {
    for (const kube::Object& c :
         Part(object, "status").value("conditions", kube::Object::array())) {
      if (c.value("type", "") == type && c.value("status", "") == "True") return true;
    }
    return false;
  }
};

// Polls `sample` on its own thread every 100ms until destroyed, keeping the largest value.
class Watcher {
 public:
  explicit Watcher(std::function<size_t()> sample)
      : thread_([this, sample = std::move(sample)](std::stop_token stop) {
          while (!stop.stop_requested()) {
            const size_t value = sample();
            size_t seen = most_.load();
            while (value > seen && !most_.compare_exchange_weak(seen, value)) {
            }
            std::this_thread::sleep_for(milliseconds(100));
          }
        }) {}
  size_t most() const { return most_.load(); }

 private:
  std::atomic<size_t> most_{0};
  std::jthread thread_;
};

// Families of docs/metrics.md that need not change between the start of the scale-down test and
// its end, and why; every other one must (appear, or change a series' value or labels).
const std::map<std::string, std::string, std::less<>> kNeedNotChange = {
    {"karpenter_build_info", "constant"},
    {"karpenter_cluster_state_synced", "1 from the start"},
    {"process_max_fds", "constant"},
    {"process_start_time_seconds", "constant"},
    {"process_open_fds", "may return to what it was"},
    {"process_virtual_memory_bytes", "may return to what it was"},
    {"karpenter_nodepools_limit", "the NodePool's limits do not change"},
    {"karpenter_cloudprovider_instance_type_offering_available", "the catalog does not change"},
    {"karpenter_cloudprovider_instance_type_offering_price_estimate",
     "the catalog does not change"},
    {"karpenter_cloudprovider_instance_type_cpu_cores", "the catalog does not change"},
    {"karpenter_cloudprovider_instance_type_memory_bytes", "the catalog does not change"},
    {"workqueue_depth", "0 whenever the controller is idle"},
    {"karpenter_scheduler_unschedulable_pods_count", "0: every pod fits"},
    {"controller_runtime_reconcile_errors_total", "no reconcile fails"},
    {"karpenter_events_dropped_total", "moves only when events repeat or are refused"},
    {"karpenter_voluntary_disruption_consolidation_timeouts_total",
     "no search here runs for minutes: metrics_scenario_test"},
    // Present only in situations this test does not make (each asserted where it does).
    {"karpenter_cloudprovider_errors_total", "a failing cloud call: metered_cloud_provider_test"},
    {"karpenter_pods_unbound_time_seconds", "while pods wait: metrics_scenario_test"},
    {"karpenter_pods_unstarted_time_seconds", "while pods wait: metrics_scenario_test"},
    {"karpenter_cloudprovider_batcher_batch_size", "the AWS provider's: aws_cloud_provider_test"},
    {"karpenter_cloudprovider_batcher_batch_time_seconds",
     "the AWS provider's: aws_cloud_provider_test"},
    {"karpenter_nodeclaims_unhealthy_disrupted_total", "a repaired node: NodeRepairE2E"},
    {"karpenter_consolidation_score", "a Balanced NodePool: BalancedScenarioTest"},
    {"karpenter_consolidation_moves_total", "a Balanced NodePool: BalancedScenarioTest"},
    {"karpenter_interruption_received_messages_total", "an interruption queue: AwsE2E"},
    {"karpenter_interruption_deleted_messages_total", "an interruption queue: AwsE2E"},
    {"karpenter_interruption_message_queue_duration_seconds", "an interruption queue: AwsE2E"},
};

TEST_F(DisruptionE2E, ScaleDownLeavesFewerCheaperNodesAndNeverBreaksThePdb) {
  // Events stay in "default" after a run: only this run's count (ctest --repeat runs it again).
  const std::string started = FormatTime(RealClock().Now());
  const std::vector<support::Sample> start = ScrapeChartPort();
  CreateDaemonSet();  // the nodes' DaemonSet series have pods to sum
  CreateDeployment("web", 100, "500m");
  ASSERT_TRUE(support::WaitFor([&] { return Ready("web") == 100; }, seconds(240)))
      << Ready("web") << " of 100 web pods ready";
  ASSERT_TRUE(support::WaitFor([&] { return Quiet(); }, seconds(60)));
  const size_t nodes_before = SimNodes(*client_).size();
  const double price_before = PricePerHour();

  // The series say what provisioning did (the cache catches up with the cluster in a moment).
  std::vector<support::Sample> before;
  EXPECT_TRUE(support::WaitFor(
      [&] {
        before = ScrapeChartPort();
        size_t running_web = 0;
        for (const support::Sample& sample : before) {
          running_web += sample.name == "karpenter_pods_state" &&
                         sample.labels.at("namespace") == kNamespace &&
                         sample.labels.at("name").starts_with("web-") &&
                         sample.labels.at("phase") == "Running";
        }
        return ScrapedNodes(before) == OurNodes() && running_web == 100;
      },
      seconds(30)))
      << "scraped nodes " << ScrapedNodes(before).size() << " of " << nodes_before;
  EXPECT_EQ(support::Sum(before, "karpenter_nodeclaims_created_total",
                         {{"reason", "provisioned"}, {"nodepool", "default"}}),
            static_cast<double>(List(*client_, kube::resources::kNodeClaims).size()));
  EXPECT_EQ(support::Sum(before, "karpenter_nodes_created_total", {{"nodepool", "default"}}),
            static_cast<double>(nodes_before));
  EXPECT_GE(support::Sum(before, "karpenter_pods_bound_duration_seconds_count"), 100);
  EXPECT_EQ(support::Sum(before, "karpenter_cluster_state_synced"), 1);
  EXPECT_GE(support::Sum(before, "karpenter_scheduler_scheduling_duration_seconds_count",
                         {{"controller", "provisioner"}}),
            1);
  EXPECT_EQ(support::Sum(before, "karpenter_build_info"), 1);
  EXPECT_GT(support::Sum(before, "process_resident_memory_bytes"), 0);
  double node_cpu = 0;
  for (const kube::Object& node : SimNodes(*client_)) {
    node_cpu +=
        Quantity::Parse(Part(Part(node, "status"), "capacity").value("cpu", "0"))->as_double();
  }
  EXPECT_TRUE(support::WaitFor(
      [&] {
        return support::Sum(ScrapeChartPort(), "karpenter_nodepools_usage",
                            {{"nodepool", "default"}, {"resource_type", "cpu"}}) == node_cpu;
      },
      seconds(30)))
      << "karpenter_nodepools_usage is not the " << node_cpu << " CPUs of the nodes";

  // The 10 pods that stay are spread over the nodes, so consolidation has pods to move (left to
  // the ReplicaSet's choice, they may all stay on one node, and emptiness alone removes the rest).
  ASSERT_GE(MarkSurvivorsSpread("web", 10), 2u) << State();
  Scale("web", 10);
  ASSERT_TRUE(support::WaitFor([&] { return Ready("web") == 10; }, seconds(60)));
  EXPECT_GE(NodesRunning("web"), 2u) << State();
  {
    // The budget allows one web pod down at a time: never fewer than 9 of the 10 ready.
    const std::unique_ptr<kube::Client> watcher_client = TestClusterClient();
    Watcher unavailable([&] {
      kube::ListOptions options;
      options.namespace_ = std::string(kNamespace);
      options.label_selector = "app=web";
      if (!watcher_client) return size_t{0};
      Result<kube::ObjectList> pods = watcher_client->List(kube::resources::kPods, options);
      if (!pods.ok()) return size_t{0};
      size_t ready = 0;
      for (const kube::SharedObject& shared : pods->items) {
        const kube::Object& pod = *shared;
        if (Phase(pod) == "Running" && kube::DeletionTimestamp(pod).empty()) ++ready;
      }
      return ready >= 10 ? size_t{0} : 10 - ready;
    });
    ASSERT_TRUE(support::WaitFor(
        [&] {
          return SimNodes(*client_).size() < nodes_before && PricePerHour() < price_before &&
                 Quiet() && Ready("web") == 10;
        },
        seconds(420)))
        << SimNodes(*client_).size() << " nodes of " << nodes_before << ", $" << PricePerHour()
        << "/h of $" << price_before << "/h";
    // Let the last commands finish while still watching.
    const std::string settled = FormatTime(RealClock().Now());
    EXPECT_TRUE(support::WaitFor([&] { return NothingLeftToDisrupt(settled); }, seconds(60)))
        << State();
    EXPECT_LE(unavailable.most(), 1u) << "the PodDisruptionBudget was broken";
  }
  EXPECT_LT(PricePerHour(), price_before / 2) << "10 pods of 100 should cost far less";
  size_t evicted = 0;
  for (const kube::Object& event : List(*client_, kube::resources::kEvents, "default")) {
    if (event.value("reason", "") == "Evicted" &&
        event.value("message", "").find("e2e-disruption/web") != std::string::npos &&
        event.value("firstTimestamp", "") >= started) {
      ++evicted;
    }
  }
  EXPECT_GT(evicted, 0u) << "consolidation moved no pod: the budget was never put to the test";
  EXPECT_EQ(Ready("web"), 10u);

  // The series say what consolidation did; the nodes that went took theirs with them.
  std::vector<support::Sample> after;
  EXPECT_TRUE(support::WaitFor(
      [&] {
        after = ScrapeChartPort();
        return ScrapedNodes(after) == OurNodes();
      },
      seconds(30)))
      << ScrapedNodes(after).size() << " nodes scraped, " << OurNodes().size() << " exist";
  const double terminated = support::Sum(after, "karpenter_nodeclaims_terminated_total");
  EXPECT_GE(terminated, static_cast<double>(nodes_before - SimNodes(*client_).size()));
  EXPECT_EQ(support::Sum(after, "karpenter_nodeclaims_created_total"),
            static_cast<double>(List(*client_, kube::resources::kNodeClaims).size()) + terminated)
      << "every NodeClaim created exists or was terminated";
  EXPECT_GT(support::Sum(after, "karpenter_voluntary_disruption_decisions_total"), 0);
  EXPECT_GT(support::Sum(after, "karpenter_nodeclaims_disrupted_total", {{"nodepool", "default"}}),
            0);
  EXPECT_EQ(support::Sum(after, "karpenter_nodes_terminated_total"), terminated);
  EXPECT_GE(support::Sum(after, "karpenter_pods_eviction_requests_total", {{"code", "200"}}),
            static_cast<double>(evicted));
  EXPECT_GE(support::Sum(after, "karpenter_pods_drained_total"), static_cast<double>(evicted));
  EXPECT_GT(
      support::Sum(after,
                   "karpenter_voluntary_disruption_decision_evaluation_duration_seconds_count"),
      support::Sum(before,
                   "karpenter_voluntary_disruption_decision_evaluation_duration_seconds_count"));
  EXPECT_EQ(
      support::Sum(after, "karpenter_pods_state", {{"namespace", std::string(kNamespace)}}),
      static_cast<double>(List(*client_, kube::resources::kPods, std::string(kNamespace)).size()));
  EXPECT_GE(support::Sum(
                after, "karpenter_cloudprovider_duration_seconds_count",
                {{"controller", "nodeclaim.lifecycle"}, {"method", "Delete"}, {"provider", "sim"}}),
            terminated);
  EXPECT_GT(support::Count(after, "karpenter_cloudprovider_instance_type_cpu_cores"), 0u);
  EXPECT_TRUE(controller_->Running());

  // Every family docs/metrics.md lists moved during provisioning, consolidation and termination
  // (but those that cannot here, and why), and so every metric a dashboard reads is served.
  Result<std::vector<std::string>> documented = support::DocumentedMetrics(KARPENTER_SOURCE_DIR);
  ASSERT_THAT(documented, IsOk());
  for (const std::string& name : *documented) {
    if (kNeedNotChange.contains(name)) continue;
    const std::map<std::string, double> at_end = support::FamilySeries(after, name);
    EXPECT_FALSE(at_end.empty()) << name << " is not served";
    EXPECT_NE(support::FamilySeries(start, name), at_end) << name << " did not change";
  }
  Result<std::map<std::string, std::vector<std::string>>> dashboards =
      support::DashboardMetrics(KARPENTER_SOURCE_DIR, *documented);
  ASSERT_THAT(dashboards, IsOk());
}

TEST_F(DisruptionE2E, TemplateChangeReplacesEveryNodeWithinItsBudget) {
  Result<kube::Object> budget = client_->Patch(
      kube::resources::kNodePools, "", "default", kube::PatchType::kMerge,
      {{"spec", {{"disruption", {{"budgets", {{{"nodes", "1"}}}}}}}}}, kube::Subresource::kNone);
  ASSERT_THAT(budget, IsOk());
  CreateDeployment("spread", 3, "250m", kube::Object::object(), /*one_per_node=*/true);
  ASSERT_TRUE(support::WaitFor([&] { return Ready("spread") == 3 && Quiet(); }, seconds(180)));
  std::set<std::string> old_claims;
  for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
    old_claims.emplace(kube::Name(claim));
  }
  ASSERT_EQ(old_claims.size(), 3u);

  Result<kube::Object> changed =
      client_->Patch(kube::resources::kNodePools, "", "default", kube::PatchType::kMerge,
                     {{"spec", {{"template", {{"metadata", {{"labels", {{"team", "blue"}}}}}}}}}},
                     kube::Subresource::kNone);
  ASSERT_THAT(changed, IsOk());
  const std::unique_ptr<kube::Client> watcher_client = TestClusterClient();
  Watcher disrupting([&] {
    if (!watcher_client) return size_t{0};
    Result<kube::ObjectList> claims = watcher_client->List(kube::resources::kNodeClaims, {});
    if (!claims.ok()) return size_t{0};
    size_t marked = 0;
    for (const kube::SharedObject& shared : claims->items) {
      const kube::Object& claim = *shared;
      if (old_claims.contains(std::string(kube::Name(claim))) &&
          (!kube::DeletionTimestamp(claim).empty() || Condition(claim, "DisruptionReason"))) {
        ++marked;
      }
    }
    return marked;
  });
  ASSERT_TRUE(support::WaitFor(
      [&] {
        const std::vector<kube::Object> nodes = SimNodes(*client_);
        return nodes.size() == 3 && Ready("spread") == 3 && Quiet() &&
               std::all_of(nodes.begin(), nodes.end(), [](const kube::Object& node) {
                 return kube::Label(node, "team") == "blue";
               });
      },
      seconds(420)))
      << "not every node was replaced by one from the new template; " << State();
  EXPECT_EQ(disrupting.most(), 1u) << "the budget allows one node at a time";
  for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
    EXPECT_FALSE(old_claims.contains(std::string(kube::Name(claim)))) << kube::Name(claim);
  }
}

TEST_F(DisruptionE2E, DoNotDisruptPodKeepsItsNode) {
  CreateDeployment("web", 20, "500m");
  CreateDeployment("keep", 1, "250m", {{std::string(api::kAnnotationDoNotDisrupt), "true"}});
  ASSERT_TRUE(
      support::WaitFor([&] { return Ready("web") == 20 && Ready("keep") == 1; }, seconds(180)));
  kube::Object keep;
  for (kube::Object& pod : List(*client_, kube::resources::kPods, std::string(kNamespace))) {
    if (kube::Label(pod, "app") == "keep") keep = std::move(pod);
  }
  ASSERT_FALSE(keep.is_null());
  const std::string keep_node = NodeName(keep);
  Scale("web", 0);
  // Every other node empties and goes; the one with the pod that must not be disrupted stays,
  // however little it holds.
  ASSERT_TRUE(
      support::WaitFor([&] { return SimNodes(*client_).size() == 1 && Quiet(); }, seconds(240)))
      << SimNodes(*client_).size() << " nodes left";
  // A pass that began after that left it alone and decided nothing else.
  const std::string emptied = FormatTime(RealClock().Now());
  ASSERT_TRUE(support::WaitFor([&] { return NothingLeftToDisrupt(emptied); }, seconds(60)))
      << State();
  const std::vector<kube::Object> nodes = SimNodes(*client_);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(kube::Name(nodes[0]), keep_node);
  Result<kube::Object> still = client_->Get(kube::resources::kPods, kNamespace, kube::Name(keep));
  ASSERT_THAT(still, IsOk()) << "the do-not-disrupt pod was evicted";
  EXPECT_EQ(kube::Uid(*still), kube::Uid(keep));
  EXPECT_EQ(NodeName(*still), keep_node);
  // kubectl describe says why the node stays, on the Node and on its NodeClaim: the Events were
  // written by the recorder's thread, once (within their 15-minute window) however many passes.
  const std::string why = "Pod \"" + std::string(kNamespace) + "/" + std::string(kube::Name(keep)) +
                          "\" has the karpenter.sh/do-not-disrupt annotation";
  std::map<std::string, int> blocked;  // kind → events
  for (const kube::Object& event : List(*client_, kube::resources::kEvents, "default")) {
    if (event.value("reason", "") == "DisruptionBlocked" && event.value("message", "") == why) {
      ++blocked[event["involvedObject"].value("kind", "")];
      if (event["involvedObject"].value("kind", "") == "Node") {
        EXPECT_EQ(event["involvedObject"].value("name", ""), keep_node);
      }
    }
  }
  EXPECT_EQ(blocked["Node"], 1);
  EXPECT_EQ(blocked["NodeClaim"], 1);
  // The debug endpoint answers what the controller sees.
  Result<kube::Object> state =
      support::DebugState(support::PortFromLog(controller_->Log(), "serving health probes"));
  ASSERT_THAT(state, IsOk());
  for (const kube::Object& informer : (*state)["informers"]) {
    EXPECT_TRUE(informer.value("synced", false)) << informer.dump();
  }
  EXPECT_GE((*state)["disruption"].value("decisionsMade", 0), 1) << state->dump();
  EXPECT_FALSE((*state)["disruption"]["lastPass"].value("outcome", "").empty()) << state->dump();
  EXPECT_GE((*state)["events"].value("written", 0), 1) << state->dump();
}

// A NodeClaim's terminationGracePeriod bounds its drain: a pod that may not be evicted
// (do-not-disrupt) is deleted once the period runs out, and the node goes.
TEST_F(DisruptionE2E, TerminationGracePeriodDeletesWhatMayNotBeEvicted) {
  Result<kube::Object> patched =
      client_->Patch(kube::resources::kNodePools, "", "default", kube::PatchType::kMerge,
                     {{"spec", {{"template", {{"spec", {{"terminationGracePeriod", "20s"}}}}}}}},
                     kube::Subresource::kNone);
  ASSERT_THAT(patched, IsOk());
  CreateDeployment("keep", 1, "250m", {{std::string(api::kAnnotationDoNotDisrupt), "true"}});
  ASSERT_TRUE(support::WaitFor([&] { return Ready("keep") == 1; }, seconds(180))) << State();
  kube::Object keep;
  for (kube::Object& pod : List(*client_, kube::resources::kPods, std::string(kNamespace))) {
    if (kube::Label(pod, "app") == "keep") keep = std::move(pod);
  }
  ASSERT_FALSE(keep.is_null());
  std::string claim;
  for (const kube::Object& c : List(*client_, kube::resources::kNodeClaims)) {
    if (Part(c, "status").value("nodeName", "") == NodeName(keep)) claim = kube::Name(c);
  }
  ASSERT_FALSE(claim.empty()) << State();
  ASSERT_OK(client_->Delete(kube::resources::kNodeClaims, "", claim, {}));

  // Held past an eviction round (do-not-disrupt), then deleted when the 20 s run out.
  std::this_thread::sleep_for(seconds(5));
  ASSERT_THAT(client_->Get(kube::resources::kPods, kNamespace, kube::Name(keep)), IsOk())
      << "the do-not-disrupt pod went before the grace period ran out";
  EXPECT_TRUE(support::WaitFor(
      [&] {
        Result<kube::Object> pod =
            client_->Get(kube::resources::kPods, kNamespace, kube::Name(keep));
        return !pod.ok() || kube::Uid(*pod) != kube::Uid(keep);
      },
      seconds(60)))
      << State();
  EXPECT_TRUE(support::WaitFor(
      [&] { return !client_->Get(kube::resources::kNodeClaims, "", claim).ok(); }, seconds(60)))
      << State();
  EXPECT_NE(controller_->Log().find("terminationGracePeriod"), std::string::npos);
}

// A controller that dies between tainting a node for disruption and deleting its NodeClaim
// leaves the node unschedulable; the next one to lead untaints it.
TEST_F(DisruptionE2E, ARestartUntaintsANodeAPreviousRunLeftMarked) {
  CreateDeployment("web", 2, "500m");
  ASSERT_TRUE(support::WaitFor([&] { return Ready("web") == 2; }, seconds(180))) << State();
  controller_->Kill();
  const std::vector<kube::Object> nodes = SimNodes(*client_);
  ASSERT_FALSE(nodes.empty());
  const std::string node(kube::Name(nodes[0]));
  kube::Object taints = Part(nodes[0], "spec").value("taints", kube::Object::array());
  taints.push_back({{"key", std::string(api::kTaintDisrupted)}, {"effect", "NoSchedule"}});
  Result<kube::Object> tainted =
      client_->Patch(kube::resources::kNodes, "", node, kube::PatchType::kMerge,
                     {{"spec", {{"taints", taints}}}}, kube::Subresource::kNone);
  ASSERT_THAT(tainted, IsOk());

  StartController();
  const auto untainted = [&] {
    Result<kube::Object> current = client_->Get(kube::resources::kNodes, "", node);
    if (!current.ok()) return false;
    for (const kube::Object& taint :
         Part(*current, "spec").value("taints", kube::Object::array())) {
      if (taint.value("key", "") == api::kTaintDisrupted) return false;
    }
    return true;
  };
  EXPECT_TRUE(support::WaitFor(untainted, seconds(60))) << State();
  EXPECT_NE(controller_->Log().find("untainting a node a previous run left marked for disruption"),
            std::string::npos)
      << controller_->Log();
}

}  // namespace
}  // namespace karpenter::integration
