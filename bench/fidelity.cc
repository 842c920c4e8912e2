#include "fidelity.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "aws/catalog/load_catalog.h"
#include "common/clock.h"
#include "e2e.h"
#include "kube/object.h"
#include "kube/resource.h"
#include "simulate/inputs.h"
#include "simulate/simulation.h"
#include "support/cluster.h"

namespace karpenter::bench {
namespace {

using json = nlohmann::ordered_json;
using std::chrono::seconds;

constexpr std::string_view kNamespace = "fidelity";

struct Scenario {
  std::string name;
  std::string manifests;  // YAML documents
};

// The NodePool (on-demand amd64 Linux, no category limit, consolidation after a minute), its
// EC2NodeClass and the namespace of every scenario.
std::string Cluster() {
  return fmt::format(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: default}}
spec:
  template:
    spec:
      requirements:
        - {{key: kubernetes.io/arch, operator: In, values: [amd64]}}
        - {{key: kubernetes.io/os, operator: In, values: [linux]}}
        - {{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}}
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
  limits: {{cpu: 100000}}
  disruption: {{consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: default}}
spec:
  role: KarpenterNodeRole-fidelity
  amiSelectorTerms: [{{alias: al2023@latest}}]
  subnetSelectorTerms: [{{tags: {{karpenter.sh/discovery: fidelity}}}}]
  securityGroupSelectorTerms: [{{tags: {{karpenter.sh/discovery: fidelity}}}}]
---
apiVersion: v1
kind: Namespace
metadata: {{name: {}}}
)",
                     kNamespace);
}

// A Deployment of `replicas` pause pods requesting `cpu` and `memory`; `extra` is added to its pod
// spec (indented for it).
std::string Deployment(std::string_view name, int replicas, std::string_view cpu,
                       std::string_view memory, std::string_view extra = "") {
  return fmt::format(R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {0}, namespace: {1}}}
spec:
  replicas: {2}
  selector: {{matchLabels: {{app: {0}}}}}
  template:
    metadata: {{labels: {{app: {0}}}}}
    spec:
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources: {{requests: {{cpu: "{3}", memory: "{4}"}}}}
{5})",
                     name, kNamespace, replicas, cpu, memory, extra);
}

// Ten Deployments sharing `pods`, each of a shape drawn from `seed`: 250m to 2 CPUs, 0.5 to 4 GiB
// per CPU.
Scenario Mixed(uint64_t seed, int pods) {
  constexpr std::array<int, 6> kMilliCpu = {250, 500, 750, 1000, 1500, 2000};
  constexpr std::array<int, 4> kMiPerCpu = {512, 1024, 2048, 4096};
  std::mt19937_64 random(seed);
  std::string manifests = Cluster();
  for (int d = 0; d < 10; ++d) {
    const int cpu = kMilliCpu[random() % kMilliCpu.size()];
    const int memory = cpu * kMiPerCpu[random() % kMiPerCpu.size()] / 1000;
    manifests += Deployment(fmt::format("app-{}", d), pods / 10 + (d < pods % 10 ? 1 : 0),
                            fmt::format("{}m", cpu), fmt::format("{}Mi", memory));
  }
  return {fmt::format("mixed-seed-{}", seed), std::move(manifests)};
}

// Topology spread constraints over the pods of `app`: (topology key, whenUnsatisfiable) each.
std::string Spreads(std::string_view app,
                    const std::vector<std::pair<std::string_view, std::string_view>>& spreads) {
  std::string text = "      topologySpreadConstraints:\n";
  for (const auto& [key, when] : spreads) {
    text += fmt::format(
        "        - {{maxSkew: 1, topologyKey: {}, whenUnsatisfiable: {}, "
        "labelSelector: {{matchLabels: {{app: {}}}}}}}\n",
        key, when, app);
  }
  return text;
}

// Half the pods spread evenly over zones, a quarter over zones and (leaning) hosts, a dozen pods
// that each need a host of their own, the rest unconstrained.
Scenario Spread(int pods) {
  std::string manifests = Cluster();
  manifests += Deployment("web", pods / 2, "500m", "1Gi",
                          Spreads("web", {{api::kLabelZone, "DoNotSchedule"}}));
  manifests += Deployment("api", pods / 4, "1", "2Gi",
                          Spreads("api", {{api::kLabelZone, "DoNotSchedule"},
                                          {api::kLabelHostname, "ScheduleAnyway"}}));
  manifests += Deployment("cache", 12, "1", "4Gi", R"(      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - {labelSelector: {matchLabels: {app: cache}}, topologyKey: kubernetes.io/hostname}
)");
  manifests += Deployment("batch", pods - pods / 2 - pods / 4 - 12, "250m", "512Mi");
  return {"spread", std::move(manifests)};
}

// What a run ended with.
struct Figures {
  int nodes = 0;
  double price_per_hour = 0;
  std::map<std::string, int> types;  // instance type → nodes
  double longest_pending_seconds = 0;
  int pods_disrupted = 0;
  int pending_pods = 0;

  std::set<std::string> Families() const {
    std::set<std::string> families;
    for (const auto& [type, count] : types) families.insert(type.substr(0, type.find('.')));
    return families;
  }
  json ToJson() const {
    return {{"nodes", nodes},
            {"pricePerHour", std::round(price_per_hour * 1e4) / 1e4},
            {"instanceTypes", types},
            {"families", Families()},
            {"longestPendingSeconds", longest_pending_seconds},
            {"podsDisrupted", pods_disrupted},
            {"pendingPods", pending_pods}};
  }
};

// The price of `type` in `zone` as `capacity_type` (0 when the catalog has no such offering).
double PriceOf(const std::vector<cloud::InstanceType>& catalog, std::string_view type,
               std::string_view zone, std::string_view capacity_type) {
  for (const cloud::InstanceType& candidate : catalog) {
    if (candidate.name != type) continue;
    for (const cloud::Offering& offering : candidate.offerings) {
      if (offering.zone == zone && offering.capacity_type == capacity_type) return offering.price;
    }
  }
  return 0;
}

Result<Figures> Simulated(const Scenario& scenario, const FidelityArgs& args,
                          const std::vector<cloud::InstanceType>& catalog) {
  simulate::SimulationInput input;
  input.scenario = scenario.name;
  std::vector<std::string> errors;
  simulate::AddManifests(scenario.manifests, scenario.name, input, errors);
  if (!errors.empty()) return Error(scenario.name + ": " + errors.front());
  input.catalog = catalog;
  input.duration = seconds(args.duration_seconds);
  ASSIGN_OR_RETURN(simulate::SimulationResult result, simulate::Simulate(std::move(input)));
  Figures figures;
  figures.nodes = result.after.nodes;
  figures.price_per_hour = result.after.price_per_hour;
  for (const auto& [key, count] : result.after.by_type) figures.types[key.first] += count;
  figures.longest_pending_seconds = result.max_pending_seconds;
  figures.pods_disrupted = result.pods_disrupted;
  figures.pending_pods = result.after.pending_pods;
  return figures;
}

// The cluster as the run left it: its NodeClaims (those not being deleted), how long its pods
// waited for a node, and how many the controller evicted (its Events on the nodes it drained).
Result<Figures> Measure(kube::Client& cluster, const std::vector<cloud::InstanceType>& catalog,
                        TimePoint now) {
  Figures figures;
  ASSIGN_OR_RETURN(kube::ObjectList claims, cluster.List(kube::resources::kNodeClaims, {}));
  for (const kube::SharedObject& shared : claims.items) {
    const kube::Object& claim = *shared;
    if (!kube::DeletionTimestamp(claim).empty()) continue;
    const std::string type(kube::Label(claim, api::kLabelInstanceType));
    if (type.empty()) continue;  // not launched yet
    ++figures.nodes;
    ++figures.types[type];
    figures.price_per_hour += PriceOf(catalog, type, kube::Label(claim, api::kLabelZone),
                                      kube::Label(claim, api::kLabelCapacityType));
  }
  kube::ListOptions in_namespace;
  in_namespace.namespace_ = std::string(kNamespace);
  ASSIGN_OR_RETURN(kube::ObjectList pods, cluster.List(kube::resources::kPods, in_namespace));
  for (const kube::SharedObject& shared : pods.items) {
    const kube::Object& pod = *shared;
    const std::optional<TimePoint> created =
        ParseTime(kube::StringAt(pod, {"metadata", "creationTimestamp"}));
    if (!created) continue;
    std::optional<TimePoint> scheduled;
    if (const auto conditions = pod.find("status"); conditions != pod.end()) {
      for (const kube::Object& condition : conditions->value("conditions", kube::Object::array())) {
        if (condition.value("type", "") == "PodScheduled" &&
            condition.value("status", "") == "True") {
          scheduled = ParseTime(condition.value("lastTransitionTime", ""));
        }
      }
    }
    if (!scheduled) ++figures.pending_pods;
    figures.longest_pending_seconds =
        std::max(figures.longest_pending_seconds,
                 std::chrono::duration<double>(scheduled.value_or(now) - *created).count());
  }
  kube::ListOptions evicted;
  evicted.field_selector = "reason=Evicted";
  ASSIGN_OR_RETURN(kube::ObjectList events, cluster.List(kube::resources::kEvents, evicted));
  const std::string ours = fmt::format("pod {}/", kNamespace);
  for (const kube::SharedObject& event : events.items) {
    if (event->value("message", "").find(ours) != std::string::npos) {
      figures.pods_disrupted += event->value("count", 1);
    }
  }
  return figures;
}

Result<Figures> Real(const Scenario& scenario, const FidelityArgs& args, kube::Client& cluster,
                     const support::ChartIdentity& identity,
                     const std::vector<cloud::InstanceType>& catalog) {
  RETURN_IF_ERROR(support::CleanUp(cluster, {std::string(kNamespace)}));
  const std::filesystem::path manifests =
      std::filesystem::temp_directory_path() / fmt::format("karpenter-fidelity-{}.yaml", getpid());
  std::ofstream(manifests) << scenario.manifests;
  const std::string log =
      std::filesystem::temp_directory_path() / fmt::format("karpenter-fidelity-{}.log", getpid());
  std::vector<std::string> controller_args = support::SimControllerArgs(identity);
  const auto boot_delay = simulate::SimulationInput{}.node_boot_delay;
  controller_args.push_back(fmt::format("--sim-node-boot-delay={}ms", boot_delay.count()));
  Result<Figures> figures = [&]() -> Result<Figures> {
    support::ControllerProcess controller(
        args.karpenter_binary.empty() ? BesideThisExecutable("karpenter") : args.karpenter_binary,
        controller_args, log, identity.env);
    RETURN_IF_ERROR(support::AwaitLeadership(controller, seconds(60)));
    RETURN_IF_ERROR(support::ApplyFile(cluster, manifests.string()));
    std::this_thread::sleep_for(seconds(args.duration_seconds));
    Result<Figures> measured = Measure(cluster, catalog, std::chrono::system_clock::now());
    if (!controller.Running()) return Error("the controller exited; its log: " + log);
    return measured;
  }();
  std::filesystem::remove(manifests);
  RETURN_IF_ERROR(support::CleanUp(cluster, {std::string(kNamespace)}));
  if (figures.ok()) std::filesystem::remove(log);
  return figures;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n == 0 ? 0 : n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int Fail(const std::string& message) {
  std::cerr << "karpenter-bench fidelity: " << message << '\n';
  return 1;
}

}  // namespace

int RunFidelity(const FidelityArgs& args) {
  if (args.testenv_dir.empty() && args.runs > 0) return Fail("--testenv is required");
  if (args.runs < 0 || args.pods < 20 || args.duration_seconds < 60) {
    return Fail("--runs must not be negative, --pods must be at least 20, --duration at least 60");
  }
  Result<std::vector<cloud::InstanceType>> catalog =
      aws::LoadCatalog("aws", aws::AwsCatalogOptions{});
  if (!catalog.ok()) return Fail(catalog.error().message);
  std::unique_ptr<kube::Client> cluster;
  support::ChartIdentity identity;
  if (args.runs > 0) {
    Result<std::unique_ptr<kube::Client>> client =
        TestClusterWithCrds(args.testenv_dir + "/kubeconfig", args.source_dir);
    if (!client.ok()) return Fail(client.error().message);
    cluster = std::move(*client);
    // The controller runs as the chart runs it: the identity scripts/testenv/identity gave it.
    Result<support::ChartIdentity> read = support::ReadChartIdentity(args.testenv_dir);
    if (!read.ok()) return Fail(read.error().message);
    identity = std::move(*read);
  }

  std::vector<Scenario> scenarios;
  for (uint64_t seed : args.seeds) scenarios.push_back(Mixed(seed, args.pods));
  if (args.spread) scenarios.push_back(Spread(args.pods));

  json out = {{"durationSeconds", args.duration_seconds},
              {"runs", args.runs},
              {"scenarios", json::array()}};
  int within = 0;
  double worst_nodes = 0;
  double worst_price = 0;
  for (const Scenario& scenario : scenarios) {
    Result<Figures> simulated = Simulated(scenario, args, *catalog);
    if (!simulated.ok()) return Fail(simulated.error().message);
    if (args.runs == 0) {
      out["scenarios"].push_back(
          {{"name", scenario.name}, {"pods", args.pods}, {"simulated", simulated->ToJson()}});
      continue;
    }
    std::vector<Figures> real;
    for (int run = 0; run < args.runs; ++run) {
      Result<Figures> figures = Real(scenario, args, *cluster, identity, *catalog);
      if (!figures.ok()) return Fail(scenario.name + ": " + figures.error().message);
      real.push_back(std::move(*figures));
    }
    std::vector<double> nodes;
    std::vector<double> prices;
    std::set<std::string> real_families;
    json runs = json::array();
    for (const Figures& figures : real) {
      nodes.push_back(figures.nodes);
      prices.push_back(figures.price_per_hour);
      real_families.merge(figures.Families());
      runs.push_back(figures.ToJson());
    }
    const double median_nodes = Median(nodes);
    const double median_price = Median(prices);
    const double node_error =
        median_nodes > 0 ? (simulated->nodes - median_nodes) / median_nodes : 0;
    const double price_error =
        median_price > 0 ? (simulated->price_per_hour - median_price) / median_price : 0;
    // Families the simulation used that no real run did, or the reverse in every run.
    const bool same_families = simulated->Families() == real_families;
    const bool ok =
        std::abs(simulated->nodes - median_nodes) <= std::max(1.0, 0.1 * median_nodes) &&
        std::abs(price_error) <= 0.05 && same_families;
    within += ok ? 1 : 0;
    worst_nodes = std::max(worst_nodes, std::abs(node_error));
    worst_price = std::max(worst_price, std::abs(price_error));
    out["scenarios"].push_back({{"name", scenario.name},
                                {"pods", args.pods},
                                {"real",
                                 {{"runs", runs},
                                  {"medianNodes", median_nodes},
                                  {"minNodes", *std::min_element(nodes.begin(), nodes.end())},
                                  {"maxNodes", *std::max_element(nodes.begin(), nodes.end())},
                                  {"medianPricePerHour", std::round(median_price * 1e4) / 1e4}}},
                                {"simulated", simulated->ToJson()},
                                {"nodeError", std::round(node_error * 1e4) / 1e4},
                                {"priceError", std::round(price_error * 1e4) / 1e4},
                                {"sameFamilies", same_families},
                                {"withinTarget", ok}});
    std::cerr << "karpenter-bench fidelity: " << scenario.name << ": real " << median_nodes
              << " nodes (median), simulated " << simulated->nodes << '\n';
  }
  out["summary"] = {{"scenarios", scenarios.size()},
                    {"withinTarget", within},
                    {"worstNodeError", std::round(worst_nodes * 1e4) / 1e4},
                    {"worstPriceError", std::round(worst_price * 1e4) / 1e4}};
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace karpenter::bench
