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
#include <optional>
#include <random>
#include <set>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "api/labels.h"
#include "aws/api/aws_clients.h"
#include "aws/api/sqs_api.h"
#include "aws/catalog/load_catalog.h"
#include "aws/sdk/curl_transport.h"
#include "chaos_audit.h"
#include "common/clock.h"
#include "controllers/cluster_cache.h"
#include "e2e.h"
#include "kube/object.h"
#include "kube/resource.h"
#include "manifests.h"
#include "simulate/disruption_audit.h"
#include "simulate/inputs.h"
#include "simulate/node_groups.h"
#include "simulate/simulation.h"
#include "simulate/timeline.h"
#include "support/cluster.h"
#include "support/moto_account.h"

namespace karpenter::bench {
namespace {

using json = nlohmann::ordered_json;
using std::chrono::seconds;

constexpr std::string_view kNamespace = "fidelity";

struct Scenario {
  std::string name;
  std::string manifests;    // YAML documents
  std::string timeline;     // `karpenter simulate --timeline` YAML; empty: none
  bool interrupts = false;  // the controller reads an interruption queue (--moto)
};

// The NodePool (consolidation after a minute), its EC2NodeClass and the namespace of every
// scenario.
std::string Cluster() {
  return ClusterYaml(kNamespace,
                     "consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m");
}

// A Deployment of the fidelity namespace.
std::string Deployment(std::string_view name, int replicas, std::string_view cpu,
                       std::string_view memory, std::string_view extra = "") {
  return DeploymentYaml(name, kNamespace, replicas, cpu, memory, extra);
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
  return {fmt::format("mixed-seed-{}", seed), std::move(manifests), ""};
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
  return {"spread", std::move(manifests), ""};
}

// A PodDisruptionBudget over the pods of `app`.
std::string Budget(std::string_view app, std::string_view max_unavailable) {
  return fmt::format(R"(---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {0}, namespace: {1}}}
spec:
  maxUnavailable: "{2}"
  selector: {{matchLabels: {{app: {0}}}}}
)",
                     app, kNamespace, max_unavailable);
}

// Three Deployments behind PDBs scale up from zero, and at a third of the run down to a quarter:
// consolidation then packs what is left onto fewer nodes, a few pods at a time.
Scenario ScaleDown(int pods, int duration_seconds) {
  struct App {
    std::string_view name, cpu, memory;
    int replicas;
  };
  const std::array<App, 3> apps = {App{"web", "500m", "1Gi", pods / 2},
                                   App{"api", "1", "2Gi", pods / 4},
                                   App{"worker", "250m", "1Gi", pods - pods / 2 - pods / 4}};
  std::string manifests = Cluster();
  std::string timeline = "actions:\n";
  for (const App& app : apps) {
    manifests += Deployment(app.name, app.replicas, app.cpu, app.memory) + Budget(app.name, "20%");
    timeline += fmt::format(
        "  - {{at: {}s, scale: {{kind: Deployment, namespace: {}, name: {}, replicas: {}}}}}\n",
        duration_seconds / 3, kNamespace, app.name, std::max(1, app.replicas / 4));
  }
  return {"scale-down", std::move(manifests), std::move(timeline)};
}

// The seed's migration at test-cluster scale: a managed node group runs a fifth of the pods (in
// Deployments behind PDBs) at about three quarters of its CPU; after 30 s it is retired a quarter
// of its nodes at a time, and Karpenter provisions for what the drains displace.
Scenario Retirement(int pods) {
  const int total = std::max(20, pods / 5);
  const int web = total / 2;
  const int api = total / 4;
  const int worker = total - web - api;
  // m5.2xlarge leaves about 7.9 CPUs allocatable.
  const double cpu = web * 0.5 + api * 1.0 + worker * 0.25;
  const int size = std::max(2, static_cast<int>(std::ceil(cpu / (7.9 * 0.75))));
  std::string manifests = Cluster();
  manifests += Deployment("web", web, "500m", "1Gi") + Budget("web", "20%");
  manifests += Deployment("api", api, "1", "2Gi") + Budget("api", "20%");
  manifests += Deployment("worker", worker, "250m", "512Mi") + Budget("worker", "20%");
  std::string timeline = fmt::format(
      R"(nodeGroups:
  - {{name: legacy, instanceType: m5.2xlarge, size: {0}}}
actions:
  - {{at: 30s, scaleNodeGroup: {{name: legacy, size: 0, batch: {1}}}}}
)",
      size, std::max(1, size / 4));
  return {"node-group-retirement", std::move(manifests), std::move(timeline)};
}

// A spot scale-up from zero (a NodePool of c, m and r types of a generation after the fourth, as
// spot pools usually are); at a third of the run EC2 takes back the spot capacity of us-east-1a
// (an interruption warning for each spot instance there, the machines gone two minutes later),
// where this fleet's cheapest offerings put most of it, and Karpenter replaces it elsewhere.
Scenario SpotInterruption(int pods, int duration_seconds) {
  std::string manifests = ClusterYaml(
      kNamespace, "consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m", "spot",
      "        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, "
      "m, r]}\n"
      "        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: "
      "['4']}\n");
  manifests += Deployment("web", pods / 2, "500m", "1Gi");
  manifests += Deployment("api", pods / 4, "1", "2Gi");
  manifests += Deployment("worker", pods - pods / 2 - pods / 4, "750m", "3Gi");
  std::string timeline = fmt::format(
      "actions:\n  - {{at: {}s, interruptSpot: {{zone: us-east-1a}}}}\n", duration_seconds / 3);
  return {"spot-interruption", std::move(manifests), std::move(timeline), /*interrupts=*/true};
}

// The karpenter binary the controller runs from.
std::string KarpenterBinary(const FidelityArgs& args) {
  return args.karpenter_binary.empty() ? BesideThisExecutable("karpenter") : args.karpenter_binary;
}

std::string FamilyOf(std::string_view type) { return std::string(type.substr(0, type.find('.'))); }

// What a run ended with.
struct Figures {
  int nodes = 0;
  double price_per_hour = 0;
  std::map<std::string, int> types;            // instance type → nodes
  std::map<std::string, double> family_price;  // instance family → its nodes' $/h
  double longest_pending_seconds = 0;
  int pods_disrupted = 0;
  int pending_pods = 0;
  int node_group_nodes = 0;     // of managed node groups, apart from the figures above
  json series = json::array();  // FidelityArgs::series_seconds

  std::set<std::string> Families() const {
    std::set<std::string> families;
    for (const auto& [type, count] : types) families.insert(FamilyOf(type));
    return families;
  }
  // The families that make the fleet: each at least a tenth of its $/h. A family of one node
  // that a run chose for a few stranded pods is chance, not a forecast to check.
  std::set<std::string> MainFamilies() const {
    std::set<std::string> families;
    for (const auto& [family, price] : family_price) {
      if (price >= 0.1 * price_per_hour) families.insert(family);
    }
    return families;
  }
  json ToJson() const {
    json out = {{"nodes", nodes},
                {"pricePerHour", std::round(price_per_hour * 1e4) / 1e4},
                {"instanceTypes", types},
                {"families", Families()},
                {"mainFamilies", MainFamilies()},
                {"longestPendingSeconds", longest_pending_seconds},
                {"podsDisrupted", pods_disrupted},
                {"pendingPods", pending_pods},
                {"nodeGroupNodes", node_group_nodes}};
    if (!series.empty()) out["series"] = series;
    return out;
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

json SeriesPoint(int t, int launched, int nodes, int pending_pods, double price_per_hour,
                 int pods_disrupted) {
  return {{"t", t},
          {"launched", launched},
          {"nodes", nodes},
          {"pendingPods", pending_pods},
          {"pricePerHour", std::round(price_per_hour * 1e4) / 1e4},
          {"podsDisrupted", pods_disrupted}};
}

Result<Figures> Simulated(const Scenario& scenario, const FidelityArgs& args,
                          const std::vector<cloud::InstanceType>& catalog, uint64_t seed) {
  simulate::SimulationInput input;
  input.scenario = scenario.name;
  input.seed = seed;
  std::vector<std::string> errors;
  simulate::AddManifests(scenario.manifests, scenario.name, input, errors);
  if (!errors.empty()) return Error(scenario.name + ": " + errors.front());
  if (!scenario.timeline.empty()) {
    ASSIGN_OR_RETURN(input.timeline, simulate::ParseTimeline(scenario.timeline, scenario.name));
  }
  input.catalog = catalog;
  input.duration = seconds(args.duration_seconds);
  ASSIGN_OR_RETURN(simulate::SimulationResult result, simulate::Simulate(std::move(input)));
  Figures figures;
  figures.nodes = result.after.nodes;
  figures.price_per_hour = result.after.price_per_hour;
  for (const auto& [key, count] : result.after.by_type) figures.types[key.first] += count;
  // Karpenter's nodes only, as the real runs count its NodeClaims.
  for (const simulate::FinalNode& node : result.nodes) {
    if (node.node_group.empty()) {
      figures.family_price[FamilyOf(node.instance_type)] +=
          PriceOf(catalog, node.instance_type, node.zone, node.capacity_type);
      continue;
    }
    ++figures.node_group_nodes;
    --figures.nodes;
    if (--figures.types[node.instance_type] == 0) figures.types.erase(node.instance_type);
    figures.price_per_hour -= PriceOf(catalog, node.instance_type, node.zone, node.capacity_type);
  }
  figures.longest_pending_seconds = result.max_pending_seconds;
  figures.pods_disrupted = result.pods_disrupted;
  for (int t = 0; args.series_seconds > 0 && t <= args.duration_seconds; t += args.series_seconds) {
    int launched = 0;
    for (const simulate::TimelineEvent& event : result.timeline) {
      if (event.t <= t && event.event == "Launched") ++launched;
    }
    simulate::Sample last;
    for (const simulate::Sample& sample : result.samples) {
      if (sample.t <= t) last = sample;
    }
    figures.series.push_back(SeriesPoint(t, launched, last.on_demand_nodes + last.spot_nodes,
                                         last.pending_pods, last.price_per_hour,
                                         last.pods_disrupted));
  }
  figures.pending_pods = result.after.pending_pods;
  return figures;
}

// How many of the scenario's pods the controller evicted from `since` to `until`, from the test
// cluster's audit log (scripts/testenv/audit-policy.yaml records every eviction): the successful
// ones made with a ServiceAccount's token, which only the controller uses here (the benchmark's
// own drains go as the cluster's admin). Its Events would undercount: the event recorder gives
// each node a burst of 25, and an interrupted node drains a hundred pods.
Result<int> ControllerEvictions(const std::string& testenv_dir, TimePoint since, TimePoint until) {
  const std::filesystem::path path = std::filesystem::path(testenv_dir) / "logs" / "audit.log";
  std::ifstream log(path);
  if (!log) return Error(fmt::format("cannot read the test cluster's audit log {}", path.string()));
  int count = 0;
  for (const PodRemoval& removal : ReadPodRemovals(log, kNamespace, since)) {
    if (removal.eviction && removal.at <= until && removal.code / 100 == 2 &&
        removal.user.starts_with("system:serviceaccount:")) {
      ++count;
    }
  }
  return count;
}

// The cluster as the run that began at `started` left it: its NodeClaims (registered, not being
// deleted), how long its pods waited for a node, and how many the controller evicted (its Events
// in the audit log of the test cluster in `testenv_dir`).
Result<Figures> Measure(kube::Client& cluster, const std::vector<cloud::InstanceType>& catalog,
                        const std::string& testenv_dir, TimePoint started, TimePoint now) {
  Figures figures;
  ASSIGN_OR_RETURN(kube::ObjectList claims, cluster.List(kube::resources::kNodeClaims, {}));
  for (const kube::SharedObject& shared : claims.items) {
    const kube::Object& claim = *shared;
    if (!kube::DeletionTimestamp(claim).empty()) continue;
    // Registered ones, as the simulation counts Nodes (a claim still booting has none yet).
    if (kube::StringAt(claim, {"status", "nodeName"}).empty()) continue;
    const std::string type(kube::Label(claim, api::kLabelInstanceType));
    const double price = PriceOf(catalog, type, kube::Label(claim, api::kLabelZone),
                                 kube::Label(claim, api::kLabelCapacityType));
    ++figures.nodes;
    ++figures.types[type];
    figures.family_price[FamilyOf(type)] += price;
    figures.price_per_hour += price;
  }
  ASSIGN_OR_RETURN(kube::ObjectList nodes, cluster.List(kube::resources::kNodes, {}));
  for (const kube::SharedObject& node : nodes.items) {
    if (!kube::Label(*node, api::kLabelNodeGroup).empty() &&
        kube::DeletionTimestamp(*node).empty()) {
      ++figures.node_group_nodes;
    }
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
  ASSIGN_OR_RETURN(figures.pods_disrupted, ControllerEvictions(testenv_dir, started, now));
  return figures;
}

// What the test cluster has `t` seconds into a run that began at `started`: every Node (not being
// deleted), its pending pods, how many NodeClaims were seen so far (`seen`, which this adds to)
// and how many pods were disrupted (the controller's evictions and the timeline's, `drained`).
Result<json> RealSeriesPoint(kube::Client& cluster, const std::vector<cloud::InstanceType>& catalog,
                             const std::string& testenv_dir, TimePoint started, int t,
                             std::set<std::string>& seen, int drained) {
  ASSIGN_OR_RETURN(kube::ObjectList claims, cluster.List(kube::resources::kNodeClaims, {}));
  for (const kube::SharedObject& claim : claims.items) seen.emplace(kube::Name(*claim));
  ASSIGN_OR_RETURN(kube::ObjectList nodes, cluster.List(kube::resources::kNodes, {}));
  int live = 0;
  double price = 0;
  for (const kube::SharedObject& node : nodes.items) {
    if (!kube::DeletionTimestamp(*node).empty()) continue;
    ++live;
    price += PriceOf(catalog, kube::Label(*node, api::kLabelInstanceType),
                     kube::Label(*node, api::kLabelZone),
                     kube::Label(*node, api::kLabelCapacityType).empty()
                         ? api::kCapacityTypeOnDemand
                         : kube::Label(*node, api::kLabelCapacityType));
  }
  kube::ListOptions pending;
  pending.namespace_ = std::string(kNamespace);
  pending.field_selector = "spec.nodeName=";
  ASSIGN_OR_RETURN(kube::ObjectList pods, cluster.List(kube::resources::kPods, pending));
  ASSIGN_OR_RETURN(const int evicted,
                   ControllerEvictions(testenv_dir, started, std::chrono::system_clock::now()));
  return SeriesPoint(t, static_cast<int>(seen.size()), live, static_cast<int>(pods.items.size()),
                     price, evicted + drained);
}

// Plays a scenario's timeline on the test cluster as `karpenter simulate` plays it in memory, with
// the simulation's own stand-in for what the test cluster lacks: managed node groups (their Nodes
// annotated for kwok, which plays their kubelets; retired by cordon, evictions the API server
// checks against the PDBs, and deletion). Workloads are scaled by patching them, as `kubectl
// scale` would; kinds of action a test cluster cannot play are refused.
//
// A spot interruption is EC2's part played as EC2 plays it: a warning on the interruption queue
// (moto's SQS, `interruption` below) for each spot instance of the zone, which the controller's
// interruption controller reads; two minutes later the machines are gone (their Nodes deleted,
// what still ran on them lost), as the simulation has it.
struct InterruptionQueue {
  aws::SqsApi& sqs;
  std::string url;
};

class RealTimeline {
 public:
  // `interruption` (null: spot interruptions are refused) must outlive this.
  RealTimeline(kube::Client& cluster, const simulate::Timeline& timeline,
               const std::vector<cloud::InstanceType>& catalog, InterruptionQueue* interruption)
      : cluster_(cluster),
        interruption_(interruption),
        timeline_(timeline),
        audit_(cluster),
        cache_(cluster),
        node_groups_(audit_, cache_, clock_, catalog, "us-east-1",
                     [](const std::string& /*event*/, const std::string& /*node*/) {}) {}

  // Before the workloads: the node groups' Nodes.
  Status Start() {
    for (kube::Informer* informer : cache_.all()) RETURN_IF_ERROR(informer->Sync());
    for (const simulate::NodeGroupSpec& spec : timeline_.node_groups) {
      RETURN_IF_ERROR(node_groups_.Create(spec));
    }
    return {};
  }

  // Runs the actions due `elapsed` after the start and carries on the drains.
  Status Advance(std::chrono::milliseconds elapsed) {
    for (kube::Informer* informer : cache_.all()) {
      RETURN_IF_ERROR(informer->Pump(std::chrono::milliseconds(0)));
    }
    elapsed_ = elapsed;
    for (; next_ < timeline_.actions.size() && timeline_.actions[next_].at <= elapsed; ++next_) {
      RETURN_IF_ERROR(std::visit(*this, timeline_.actions[next_].kind));
    }
    RETURN_IF_ERROR(node_groups_.Run());
    return Reclaim();
  }

  // The pods the node groups' drains evicted (the controller's evictions are its Events).
  int pods_disrupted() const { return static_cast<int>(audit_.pods_disrupted()); }

  Status operator()(const simulate::ScaleNodeGroup& scale) { return node_groups_.Scale(scale); }
  Status operator()(const simulate::ScaleWorkload& scale) {
    const kube::Resource* resource = support::ResourceForKind(scale.kind);
    if (resource == nullptr) return Error("scale: kind " + scale.kind + " is not supported");
    const kube::Object patch = {
        {"spec", {{scale.kind == "Job" ? "parallelism" : "replicas", scale.replicas}}}};
    RETURN_IF_ERROR(cluster_.Patch(*resource, scale.namespace_, scale.name, kube::PatchType::kMerge,
                                   patch, kube::Subresource::kNone));
    return {};
  }
  Status operator()(const simulate::InterruptSpot& interrupt) {
    if (interruption_ == nullptr) return Error("interruptSpot needs --moto (an SQS queue)");
    for (const auto& node : cache_.decoded_nodes().All()) {
      if (api::LabelValue(node->metadata.labels, api::kLabelCapacityType) !=
              api::kCapacityTypeSpot ||
          api::LabelValue(node->metadata.labels, api::kLabelZone) != interrupt.zone) {
        continue;
      }
      const std::string& provider_id = node->spec.provider_id;
      const std::string instance = provider_id.substr(provider_id.rfind('/') + 1);
      const json warning = {
          {"version", "0"},
          {"detail-type", "EC2 Spot Instance Interruption Warning"},
          {"source", "aws.ec2"},
          {"detail", {{"instance-id", instance}, {"instance-action", "terminate"}}}};
      Result<std::string> sent = interruption_->sqs.SendMessage(interruption_->url, warning.dump());
      if (!sent.ok()) return sent.error();
      reclaims_.push_back({elapsed_ + kSpotWarning, node->metadata.name});
    }
    return {};
  }
  Status operator()(const simulate::Note& /*note*/) { return {}; }
  template <class Other>
  Status operator()(const Other& action) {
    return Error("the test cluster cannot play \"" + simulate::Describe(action) + "\"");
  }

 private:
  // EC2 takes an interrupted spot instance back this long after its warning.
  static constexpr std::chrono::minutes kSpotWarning{2};
  struct PendingReclaim {
    std::chrono::milliseconds at;
    std::string node;
  };

  // The interrupted machines whose time is up go, with what still runs on them.
  Status Reclaim() {
    for (auto it = reclaims_.begin(); it != reclaims_.end();) {
      if (it->at > elapsed_) {
        ++it;
        continue;
      }
      for (const kube::Object& pod :
           cache_.pods().ByIndex(controllers::kIndexPodsByNode, it->node)) {
        if (kube::DeletionTimestamp(pod).empty()) audit_.RecordLoss(pod);
      }
      Status deleted = cluster_.Delete(kube::resources::kNodes, "", it->node, {});
      if (!deleted.ok() && deleted.error().status != 404) return deleted;
      it = reclaims_.erase(it);
    }
    return {};
  }

  kube::Client& cluster_;
  InterruptionQueue* interruption_;
  const simulate::Timeline& timeline_;
  simulate::DisruptionAudit audit_;  // counts evictions as the simulation does
  RealClock clock_;
  controllers::ClusterCache cache_;
  simulate::NodeGroups node_groups_;
  size_t next_ = 0;
  std::chrono::milliseconds elapsed_{0};
  std::vector<PendingReclaim> reclaims_;
};

// The moto account a scenario with spot interruptions needs: the controller's environment (its
// key, the fault proxy as the AWS endpoint, the queue) and the queue the benchmark writes to.
struct Moto {
  explicit Moto(support::MotoAccount moto_account) : account(std::move(moto_account)) {}

  support::MotoAccount account;
  aws::CurlTransport transport;
  RealClock clock;
  std::optional<aws::AwsClients> clients;
  std::optional<aws::SqsApi> sqs;
  std::optional<InterruptionQueue> queue;
};

Result<Figures> Real(const Scenario& scenario, const FidelityArgs& args, kube::Client& cluster,
                     const support::ChartIdentity& identity, Moto* moto,
                     const std::vector<cloud::InstanceType>& catalog, int run) {
  // RunFidelity refuses a scenario that interrupts without --moto.
  InterruptionQueue* queue = scenario.interrupts ? &*moto->queue : nullptr;
  simulate::Timeline parsed;
  if (!scenario.timeline.empty()) {
    ASSIGN_OR_RETURN(parsed, simulate::ParseTimeline(scenario.timeline, scenario.name));
  }
  RETURN_IF_ERROR(support::CleanUp(cluster, {std::string(kNamespace)}));
  // Events carry whole seconds; the previous run's are older than its clean-up.
  const TimePoint started =
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  const std::filesystem::path manifests =
      std::filesystem::temp_directory_path() / fmt::format("karpenter-fidelity-{}.yaml", getpid());
  std::ofstream(manifests) << scenario.manifests;
  const std::string log =
      args.logs_dir.empty()
          ? std::filesystem::temp_directory_path() /
                fmt::format("karpenter-fidelity-{}.log", getpid())
          : std::filesystem::path(args.logs_dir) / fmt::format("{}-{}.log", scenario.name, run);
  std::vector<std::string> controller_args = support::SimControllerArgs(identity);
  const simulate::SimulationInput assumed;
  controller_args.push_back(
      fmt::format("--sim-node-boot-delay={}ms", assumed.node_boot_delay.count()));
  controller_args.push_back(
      fmt::format("--sim-node-boot-spread={}", std::lround(assumed.node_boot_spread * 100)));
  Result<Figures> figures = [&]() -> Result<Figures> {
    // As IRSA would give it: the account's key, region and queue (INTERRUPTION_QUEUE).
    support::ControllerProcess controller(
        KarpenterBinary(args), controller_args, log,
        queue != nullptr ? moto->account.ControllerEnvironment(identity.env) : identity.env);
    RETURN_IF_ERROR(support::AwaitLeadership(controller, seconds(60)));
    RealTimeline timeline(cluster, parsed, catalog, queue);
    RETURN_IF_ERROR(timeline.Start());
    RETURN_IF_ERROR(support::ApplyFile(cluster, manifests.string()));
    const auto start = std::chrono::steady_clock::now();
    const auto end = start + seconds(args.duration_seconds);
    json series = json::array();
    std::set<std::string> claims_seen;
    int next_point = 0;
    while (std::chrono::steady_clock::now() < end) {
      const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - start);
      RETURN_IF_ERROR(timeline.Advance(elapsed));
      if (args.series_seconds > 0 && elapsed >= seconds(next_point)) {
        ASSIGN_OR_RETURN(json point,
                         RealSeriesPoint(cluster, catalog, args.testenv_dir, started, next_point,
                                         claims_seen, timeline.pods_disrupted()));
        series.push_back(std::move(point));
        next_point += args.series_seconds;
      }
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          seconds(1), end - std::chrono::steady_clock::now()));
    }
    Result<Figures> measured =
        Measure(cluster, catalog, args.testenv_dir, started, std::chrono::system_clock::now());
    if (!controller.Running()) return Error("the controller exited; its log: " + log);
    if (measured.ok()) {
      measured->pods_disrupted += timeline.pods_disrupted();
      measured->series = std::move(series);
    }
    return measured;
  }();
  std::filesystem::remove(manifests);
  RETURN_IF_ERROR(support::CleanUp(cluster, {std::string(kNamespace)}));
  if (figures.ok() && args.logs_dir.empty()) std::filesystem::remove(log);
  return figures;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n == 0 ? 0 : n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Runs of one side (the controller's or the simulation's) as the report gives them: each run's
// figures (`runs`), and the median, least and most of their nodes and $/h.
struct RunSpread {
  json runs = json::array();
  std::vector<double> nodes;
  std::vector<double> prices;

  void Add(const Figures& figures, json run) {
    nodes.push_back(figures.nodes);
    prices.push_back(figures.price_per_hour);
    runs.push_back(std::move(run));
  }
  double MedianNodes() const { return Median(nodes); }
  double MedianPrice() const { return Median(prices); }
  json ToJson() const {
    return {{"runs", runs},
            {"medianNodes", MedianNodes()},
            {"minNodes", *std::min_element(nodes.begin(), nodes.end())},
            {"maxNodes", *std::max_element(nodes.begin(), nodes.end())},
            {"medianPricePerHour", std::round(MedianPrice() * 1e4) / 1e4}};
  }
};

int Fail(const std::string& message) {
  std::cerr << "karpenter-bench fidelity: " << message << '\n';
  return 1;
}

}  // namespace

int RunFidelity(const FidelityArgs& args) {
  if (args.testenv_dir.empty() && args.runs > 0) return Fail("--testenv is required");
  if (args.runs < 0 || args.pods < 20 || args.duration_seconds < 60 || args.series_seconds < 0 ||
      args.sim_seeds < 1) {
    return Fail(
        "--runs and --series must not be negative, --pods must be at least 20, --duration at "
        "least 60, --sim-seeds at least 1");
  }
  Result<std::vector<cloud::InstanceType>> catalog =
      aws::LoadCatalog("aws", aws::AwsCatalogOptions{});
  if (!catalog.ok()) return Fail(catalog.error().message);
  std::unique_ptr<kube::Client> cluster;
  support::ChartIdentity identity;
  if (!args.logs_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(args.logs_dir, error);
    if (error) return Fail("--logs " + args.logs_dir + ": " + error.message());
  }
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

  // Only a scenario with spot interruptions needs moto.
  std::optional<Moto> moto;
  if (args.runs > 0 && !args.moto_dir.empty()) {
    Result<support::MotoAccount> account = support::MotoAccount::Read(args.moto_dir);
    if (!account.ok()) return Fail(account.error().message);
    if (account->Seeded("region") != "us-east-1") {
      return Fail("--moto " + args.moto_dir + ": its account is in " + account->Seeded("region") +
                  "; the simulated EC2 serves the embedded catalog's us-east-1, so start it with "
                  "scripts/testenv/moto-up DIR karpenter-test us-east-1");
    }
    moto.emplace(std::move(*account));
    Result<aws::AwsClients> clients =
        aws::AwsClients::Create(moto->account.TestEnvironment(), moto->account.Seeded("region"),
                                moto->transport, moto->clock);
    if (!clients.ok()) return Fail(clients.error().message);
    moto->clients.emplace(std::move(*clients));
    moto->sqs.emplace(moto->clients->sqs());
    Result<std::string> url = moto->sqs->GetQueueUrl(moto->account.Seeded("cluster"));
    if (!url.ok()) return Fail(url.error().message);
    moto->queue.emplace(InterruptionQueue{*moto->sqs, std::move(*url)});
    // The controller's key may do what `karpenter iam policy` allows, nothing more.
    Result<kube::Object> policy = moto->account.GeneratedPolicy(KarpenterBinary(args));
    if (!policy.ok()) return Fail(policy.error().message);
    if (Status set = moto->account.SetFaults(kube::Object::object()); !set.ok()) {
      return Fail(set.error().message);
    }
    if (Status set = moto->account.SetControllerPolicy(*policy); !set.ok()) {
      return Fail(set.error().message);
    }
  }

  std::vector<Scenario> scenarios;
  for (const std::string& name : args.scenarios) {
    if (name == "mixed") {
      for (uint64_t seed : args.seeds) scenarios.push_back(Mixed(seed, args.pods));
    } else if (name == "spread") {
      scenarios.push_back(Spread(args.pods));
    } else if (name == "scale-down") {
      scenarios.push_back(ScaleDown(args.pods, args.duration_seconds));
    } else if (name == "node-group-retirement") {
      scenarios.push_back(Retirement(args.pods));
    } else if (name == "spot-interruption") {
      if (args.runs > 0 && !moto) return Fail("--scenarios spot-interruption needs --moto");
      scenarios.push_back(SpotInterruption(args.pods, args.duration_seconds));
    } else {
      return Fail("--scenarios: no scenario \"" + name +
                  "\" (mixed, spread, scale-down, node-group-retirement, spot-interruption)");
    }
  }

  json out = {{"durationSeconds", args.duration_seconds},
              {"runs", args.runs},
              {"scenarios", json::array()}};
  int within = 0;
  double worst_nodes = 0;
  double worst_price = 0;
  for (const Scenario& scenario : scenarios) {
    // The simulation varies with its seed (boot times, spot prices) as the controller varies
    // between runs: its medians over seeds 1..N are what is compared.
    std::vector<Figures> sims;
    RunSpread simulated;
    std::set<std::string> simulated_families;  // of any seed
    for (uint64_t seed = 1; seed <= static_cast<uint64_t>(args.sim_seeds); ++seed) {
      Result<Figures> figures = Simulated(scenario, args, *catalog, seed);
      if (!figures.ok()) return Fail(figures.error().message);
      simulated_families.merge(figures->Families());
      json run = figures->ToJson();
      run["seed"] = seed;
      simulated.Add(*figures, std::move(run));
      sims.push_back(std::move(*figures));
    }
    // The seed whose fleet has the median node count: its main families are the forecast's.
    std::vector<const Figures*> by_nodes;
    by_nodes.reserve(sims.size());
    for (const Figures& figures : sims) by_nodes.push_back(&figures);
    std::stable_sort(by_nodes.begin(), by_nodes.end(),
                     [](const Figures* a, const Figures* b) { return a->nodes < b->nodes; });
    const Figures& median_sim = *by_nodes[(by_nodes.size() - 1) / 2];
    if (args.runs == 0) {
      out["scenarios"].push_back(
          {{"name", scenario.name}, {"pods", args.pods}, {"simulated", simulated.ToJson()}});
      continue;
    }
    std::vector<Figures> real;
    for (int run = 0; run < args.runs; ++run) {
      Result<Figures> figures =
          Real(scenario, args, *cluster, identity, moto ? &*moto : nullptr, *catalog, run + 1);
      if (!figures.ok()) return Fail(scenario.name + ": " + figures.error().message);
      real.push_back(std::move(*figures));
    }
    RunSpread measured;
    std::set<std::string> real_families;             // of any run
    std::optional<std::set<std::string>> real_main;  // main in every run
    for (const Figures& figures : real) {
      measured.Add(figures, figures.ToJson());
      real_families.merge(figures.Families());
      std::set<std::string> main = figures.MainFamilies();
      if (real_main) {
        std::erase_if(*real_main,
                      [&](const std::string& family) { return !main.contains(family); });
      } else {
        real_main = std::move(main);
      }
    }
    const double median_nodes = measured.MedianNodes();
    const double median_price = measured.MedianPrice();
    const double sim_median_nodes = simulated.MedianNodes();
    const double node_error =
        median_nodes > 0 ? (sim_median_nodes - median_nodes) / median_nodes : 0;
    const double price_error =
        median_price > 0 ? (simulated.MedianPrice() - median_price) / median_price : 0;
    // The same families: none the simulation's fleet is made of that no real run used, and none
    // missing that every real run's fleet is made of.
    const std::set<std::string> simulated_main = median_sim.MainFamilies();
    const bool same_families = std::includes(real_families.begin(), real_families.end(),
                                             simulated_main.begin(), simulated_main.end()) &&
                               std::includes(simulated_families.begin(), simulated_families.end(),
                                             real_main->begin(), real_main->end());
    const bool ok =
        std::abs(sim_median_nodes - median_nodes) <= std::max(1.0, 0.1 * median_nodes) &&
        std::abs(price_error) <= 0.05 && same_families;
    within += ok ? 1 : 0;
    worst_nodes = std::max(worst_nodes, std::abs(node_error));
    worst_price = std::max(worst_price, std::abs(price_error));
    out["scenarios"].push_back({{"name", scenario.name},
                                {"pods", args.pods},
                                {"real", measured.ToJson()},
                                {"simulated", simulated.ToJson()},
                                {"nodeError", std::round(node_error * 1e4) / 1e4},
                                {"priceError", std::round(price_error * 1e4) / 1e4},
                                {"sameFamilies", same_families},
                                {"withinTarget", ok}});
    std::cerr << "karpenter-bench fidelity: " << scenario.name << ": real " << median_nodes
              << " nodes (median), simulated " << sim_median_nodes << " (median)\n";
  }
  out["summary"] = {{"scenarios", scenarios.size()},
                    {"withinTarget", within},
                    {"worstNodeError", std::round(worst_nodes * 1e4) / 1e4},
                    {"worstPriceError", std::round(worst_price * 1e4) / 1e4}};
  std::cout << out.dump() << '\n';
  return 0;
}

}  // namespace karpenter::bench
