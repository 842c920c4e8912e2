#pragma once
// The world of the controller scenarios: the in-memory API server, the simulated cloud and the
// controller manager on one virtual clock, driven from the test's thread — no threads, no sleeps,
// the same run every time. Header-only because CMake builds only *_test.cc and *_contract.cc
// files of this folder into controllers_test.
//
// No kube-scheduler runs in memory, so the world plays a tiny one after every round. It is
// test-only, not the real algorithm: it binds each pending pod to the first Node, by name, that is
// Ready, schedulable, without NoSchedule/NoExecute taints, matches the pod's nodeSelector and has
// the CPU and memory left; a pod with no such Node is marked PodScheduled=False reason
// Unschedulable, which is what makes Karpenter provision for it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "api/node.h"
#include "api/pod.h"
#include "cloud/catalog.h"
#include "cloud/sim/sim_cloud_provider.h"
#include "common/clock.h"
#include "controllers/cluster_cache.h"
#include "controllers/conditions.h"
#include "kube/client.h"
#include "kube/memory/memory_client.h"
#include "metrics/exposition.h"
#include "operator/manager.h"
#include "simulate/simulated_machines.h"
#include "support/matchers.h"
#include "support/metrics_text.h"
#include "support/object_copies.h"

namespace karpenter::scenario {

using kube::Object;
namespace resources = kube::resources;
using std::chrono::milliseconds;
using std::chrono::seconds;

inline constexpr TimePoint kStart{seconds(1767225600)};  // 2026-01-01T00:00:00Z

// Two amd64 on-demand types in us-east-1a and us-east-1b, cheapest in us-east-1a.
inline constexpr std::string_view kCatalog = R"({"instanceTypes": [
  {"name": "small", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "2", "memory": "8Gi", "pods": 20},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.10},
                 {"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.12}]},
  {"name": "large", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "8", "memory": "32Gi", "pods": 50},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.40},
                 {"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.45}]}
]})";

// "tiny", "small" and "large", on demand in us-east-1a only: "tiny" makes replacements cheaper
// than small possible.
inline constexpr std::string_view kThreeSizes = R"({"instanceTypes": [
  {"name": "tiny", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "1", "memory": "4Gi", "pods": 10},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.05}]},
  {"name": "small", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "2", "memory": "8Gi", "pods": 20},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.10}]},
  {"name": "large", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "8", "memory": "32Gi", "pods": 50},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.40}]}
]})";

inline std::vector<cloud::InstanceType> Catalog(std::string_view json = kCatalog) {
  Result<std::vector<cloud::InstanceType>> catalog = cloud::ParseCatalogJson(json, "scenario");
  EXPECT_THAT(catalog, IsOk());
  return catalog.ok() ? std::move(*catalog) : std::vector<cloud::InstanceType>{};
}

// ---- manifests ----------------------------------------------------------------------------------

inline Object NodeClass(std::string_view name) {
  return {{"apiVersion", "karpenter.k8s.aws/v1"},
          {"kind", "EC2NodeClass"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"role", "KarpenterNodeRole-test"},
            {"amiSelectorTerms", {{{"alias", "al2023@latest"}}}},
            {"subnetSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", "test"}}}}}},
            {"securityGroupSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", "test"}}}}}}}}};
}

inline Object Requirement(std::string_view key, std::vector<std::string> values,
                          std::string_view op = "In") {
  return {{"key", key}, {"operator", op}, {"values", std::move(values)}};
}

inline const Object kOnDemand =
    Object::array({Requirement(api::kLabelCapacityType, {"on-demand"})});
// Only small nodes (2 CPU): a pod of more than 1 CPU needs a node of its own.
inline const Object kSmallOnly = Object::array({Requirement(api::kLabelCapacityType, {"on-demand"}),
                                                Requirement(api::kLabelInstanceType, {"small"})});

// A NodePool of `node_class` with template `requirements` and, unless null, `limits`.
inline Object NodePool(std::string_view name, std::string_view node_class,
                       const Object& requirements = kOnDemand, const Object& limits = nullptr) {
  Object pool = {{"apiVersion", "karpenter.sh/v1"},
                 {"kind", "NodePool"},
                 {"metadata", {{"name", name}}},
                 {"spec",
                  {{"template",
                    {{"spec",
                      {{"requirements", requirements},
                       {"nodeClassRef",
                        {{"group", "karpenter.k8s.aws"},
                         {"kind", "EC2NodeClass"},
                         {"name", node_class}}}}}}}}}};
  if (!limits.is_null()) pool["spec"]["limits"] = limits;
  return pool;
}

// A pod in "default" with one container requesting `cpu` and 256Mi of memory.
inline Object Pod(std::string_view name, std::string_view cpu) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"containers",
             {{{"name", "main"},
               {"image", "registry.k8s.io/pause:3.10"},
               {"resources", {{"requests", {{"cpu", cpu}, {"memory", "256Mi"}}}}}}}}}}};
}

// A PodDisruptionBudget "web" over the pods labelled app=web.
inline Object Pdb(int max_unavailable) {
  return {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"maxUnavailable", max_unavailable}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
}

// ---- the world ----------------------------------------------------------------------------------

inline bool Blocks(const api::Taint& taint) {
  return taint.effect == api::TaintEffect::kNoSchedule ||
         taint.effect == api::TaintEffect::kNoExecute;
}

// Whether the test scheduler may bind `pod` to `node`, whose bound pods already request `used`.
inline bool Fits(const api::Pod& pod, const api::Node& node, const api::ResourceList& used) {
  if (!node.Ready() || node.spec.unschedulable || !node.metadata.deletion_timestamp.empty()) {
    return false;
  }
  for (const api::Taint& taint : node.spec.taints) {
    if (Blocks(taint)) return false;
  }
  for (const auto& [key, value] : pod.spec.node_selector) {
    const auto label = node.metadata.labels.find(key);
    if (label == node.metadata.labels.end() || label->second != value) return false;
  }
  const api::ResourceList requests = api::EffectiveRequests(pod.spec);
  return requests.cpu() + used.cpu() <= node.status.allocatable.cpu() &&
         requests.memory() + used.memory() <= node.status.allocatable.memory();
}

// The simulated machines' Nodes: marked Ready at once (no kwok in memory).
inline constexpr cloud::NodeBooterOptions kInstantBoot{.mark_ready = true};

class World {
 public:
  explicit World(uint64_t seed = 7, std::string_view catalog = kCatalog,
                 const std::function<void(op::ManagerOptions&)>& configure = {})
      : cloud_(Catalog(catalog), clock_, "us-east-1"),
        manager_(client_, cloud_, clock_, Logger(), Options(seed, configure)),
        machines_(manager_, client_, cloud_, clock_, Logger(), kInstantBoot) {
    if (cloud::OverlayStore* overlays = manager_.overlays()) cloud_.UseOverlays(*overlays);
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  kube::Client& client() { return client_; }
  op::Manager& manager() { return manager_; }
  VirtualClock& clock() { return clock_; }
  TimePoint Now() const { return clock_.Now(); }
  cloud::SimCloudProvider& cloud() { return cloud_; }

  Object Create(const kube::Resource& resource, const Object& object) {
    Result<Object> created = client_.Create(resource, object, kube::WriteOptions{});
    EXPECT_THAT(created, IsOk());
    return created.ok() ? std::move(*created) : Object();
  }

  // The stored object, or null.
  Object Get(const kube::Resource& resource, std::string_view name,
             std::string_view namespace_ = "") {
    Result<Object> object = client_.Get(resource, namespace_, name);
    return object.ok() ? std::move(*object) : Object();
  }

  std::vector<Object> List(const kube::Resource& resource) {
    Result<kube::ObjectList> list = client_.List(resource, kube::ListOptions{});
    EXPECT_THAT(list, IsOk());
    return list.ok() ? support::Copies(list->items) : std::vector<Object>{};
  }

  // The messages of the Events with `reason` about the object named `name`, oldest first.
  std::vector<std::string> EventMessages(std::string_view name, std::string_view reason) {
    std::vector<std::pair<std::string, std::string>> found;  // time, message
    for (const Object& event : List(resources::kEvents)) {
      if (event["involvedObject"].value("name", "") == name &&
          event.value("reason", "") == reason) {
        EXPECT_EQ(event["source"].value("component", ""), "karpenter");
        found.emplace_back(event.value("firstTimestamp", ""), event.value("message", ""));
      }
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> messages;
    messages.reserve(found.size());
    for (auto& [time, message] : found) messages.push_back(std::move(message));
    return messages;
  }

  // What a scrape of the manager's series would say now.
  std::vector<support::Sample> Scrape() {
    const prometheus::Collectable* sources[] = {&manager_.registry(), &manager_.state_metrics(),
                                                &manager_.instance_type_metrics(),
                                                &manager_.event_metrics()};
    Result<std::vector<support::Sample>> samples =
        support::ParseExposition(metrics::TextExposition(sources));
    EXPECT_THAT(samples, IsOk());
    return samples.ok() ? std::move(*samples) : std::vector<support::Sample>{};
  }

  // Keeps `replicas` pods labelled app=`app` (named `app`-1, -2, …) of `cpu` each, like a
  // ReplicaSet: evicted pods come back pending; scaling down deletes the newest first.
  // `annotations` go on every pod.
  void KeepReplicas(const std::string& app, int replicas, const std::string& cpu,
                    const Object& annotations = Object::object()) {
    replica_sets_[app] = {replicas, cpu, annotations};
    PlayReplicaSets();
  }

  // Plays the scheduler once, syncs every informer, starts the manager, and settles.
  void Start() {
    PlayScheduler();
    for (kube::Informer* informer : manager_.cluster().all()) {
      const Status synced = informer->Sync();
      EXPECT_THAT(synced, IsOk()) << informer->resource().plural << ": " << synced.error().message;
    }
    manager_.Start();
    Settle();
  }

  // Advances the clock by `by`, delivers what changed to the informers, runs one round of every
  // controller, and plays the scheduler. Returns how many watch events were delivered.
  size_t Step(milliseconds by) {
    clock_.Advance(by);
    size_t events = 0;
    for (kube::Informer* informer : manager_.cluster().all()) {
      if (held_.contains(informer->resource().plural)) continue;
      const Result<size_t> pumped = informer->Pump(milliseconds(0));
      EXPECT_THAT(pumped, IsOk()) << informer->resource().plural << ": " << pumped.error().message;
      if (pumped.ok()) events += *pumped;
    }
    manager_.RunOnce();
    PlayReplicaSets();
    PlayScheduler();
    return events;
  }

  // Until Release, the informer of `resource` gets no watch events: its cache lags behind the
  // API server, as a real watch may.
  void Hold(const kube::Resource& resource) { held_.emplace(resource.plural); }
  void Release(const kube::Resource& resource) { held_.erase(std::string(resource.plural)); }

  // Steps of `step` until `total` has passed.
  void RunFor(milliseconds total, milliseconds step = milliseconds(100)) {
    for (milliseconds passed(0); passed < total; passed += step) Step(step);
  }

  // Steps of `step` until the clock reads `time` (the last one shorter if need be).
  void RunUntilTime(TimePoint time, milliseconds step = milliseconds(100)) {
    while (clock_.Now() < time) {
      Step(std::min(step, std::chrono::duration_cast<milliseconds>(time - clock_.Now())));
    }
  }

  // Steps of 100ms until `done` holds; false when `limit` passed first.
  bool RunUntil(const std::function<bool()>& done, milliseconds limit = seconds(60)) {
    for (milliseconds passed(0); passed < limit; passed += milliseconds(100)) {
      if (done()) return true;
      Step(milliseconds(100));
    }
    return done();
  }

  // Rounds at the current time until one delivers no event: the round before it wrote nothing.
  void Settle() {
    constexpr int kMaxRounds = 50;
    Step(milliseconds(0));
    for (int round = 1; round < kMaxRounds; ++round) {
      if (Step(milliseconds(0)) == 0) return;
    }
    ADD_FAILURE() << "still busy after " << kMaxRounds << " rounds at the same time";
  }

  std::vector<Object> PendingPods() {
    std::vector<Object> pending;
    for (Object& pod : List(resources::kPods)) {
      if (pod["spec"].value("nodeName", "").empty()) pending.push_back(std::move(pod));
    }
    return pending;
  }

 private:
  static op::ManagerOptions Options(uint64_t seed,
                                    const std::function<void(op::ManagerOptions&)>& configure) {
    op::ManagerOptions options;
    options.seed = seed;
    options.events.synchronous = true;  // a virtual clock, as in a simulation
    if (configure) configure(options);
    return options;
  }

  std::set<std::string, std::less<>> held_;  // resources whose informers Step skips

  struct ReplicaSet {
    int replicas = 0;
    std::string cpu;
    Object annotations;
    int created = 0;
  };

  void PlayReplicaSets() {
    if (replica_sets_.empty()) return;
    std::map<std::string, std::vector<Object>, std::less<>> live;  // by app, oldest first
    for (Object& pod : List(resources::kPods)) {
      const std::string app(kube::Label(pod, "app"));
      if (replica_sets_.contains(app) && kube::DeletionTimestamp(pod).empty()) {
        live[app].push_back(std::move(pod));
      }
    }
    for (auto& [app, set] : replica_sets_) {
      std::vector<Object>& pods = live[app];
      std::sort(pods.begin(), pods.end(), [](const Object& a, const Object& b) {
        return a["metadata"].value("creationTimestamp", "") <
                   b["metadata"].value("creationTimestamp", "") ||
               (a["metadata"].value("creationTimestamp", "") ==
                    b["metadata"].value("creationTimestamp", "") &&
                kube::Uid(a) < kube::Uid(b));
      });
      while (static_cast<int>(pods.size()) > set.replicas) {
        const Status deleted =
            client_.Delete(resources::kPods, "default", kube::Name(pods.back()), {});
        EXPECT_THAT(deleted, IsOk());
        pods.pop_back();
      }
      for (int i = static_cast<int>(pods.size()); i < set.replicas; ++i) {
        Object pod = Pod(app + "-" + std::to_string(++set.created), set.cpu);
        pod["metadata"]["labels"] = {{"app", app}};
        pod["metadata"]["annotations"] = set.annotations;
        Create(resources::kPods, pod);
      }
    }
  }

  void PlayScheduler() {
    std::vector<api::Node> nodes;
    for (const Object& object : List(resources::kNodes)) {
      if (std::optional<api::Node> node = controllers::DecodeNode(object)) {
        nodes.push_back(std::move(*node));
      }
    }
    std::vector<api::Pod> pending;
    std::map<std::string, api::ResourceList, std::less<>> used;  // by node name
    for (const Object& object : List(resources::kPods)) {
      std::optional<api::Pod> pod = controllers::DecodePod(object);
      if (!pod) continue;
      if (!pod->spec.node_name.empty()) {
        used[pod->spec.node_name] += api::EffectiveRequests(pod->spec);
      } else if (pod->metadata.deletion_timestamp.empty()) {
        pending.push_back(std::move(*pod));
      }
    }
    for (const api::Pod& pod : pending) {
      const api::Node* chosen = nullptr;
      for (const api::Node& node : nodes) {
        if (Fits(pod, node, used[node.metadata.name])) {
          chosen = &node;
          break;
        }
      }
      Object condition = {{"type", "PodScheduled"},
                          {"lastTransitionTime", FormatTime(clock_.Now())}};
      Object status = Object::object();
      if (chosen != nullptr) {
        const Result<Object> bound = client_.Patch(
            resources::kPods, pod.metadata.namespace_, pod.metadata.name, kube::PatchType::kMerge,
            {{"spec", {{"nodeName", chosen->metadata.name}}}}, kube::Subresource::kNone);
        EXPECT_THAT(bound, IsOk());
        used[chosen->metadata.name] += api::EffectiveRequests(pod.spec);
        condition["status"] = "True";
        // The kubelet's part: the pod starts at once and is ready.
        status["phase"] = "Running";
        status["conditions"] = Object::array({condition,
                                              {{"type", "Ready"},
                                               {"status", "True"},
                                               {"lastTransitionTime", FormatTime(clock_.Now())}}});
      } else if (!api::MarkedUnschedulable(pod)) {
        condition["status"] = "False";
        condition["reason"] = "Unschedulable";
        condition["message"] = "no node fits";
      } else {
        continue;
      }
      if (!status.contains("conditions")) status["conditions"] = Object::array({condition});
      const Result<Object> marked =
          client_.Patch(resources::kPods, pod.metadata.namespace_, pod.metadata.name,
                        kube::PatchType::kMerge, {{"status", status}}, kube::Subresource::kStatus);
      EXPECT_THAT(marked, IsOk());
    }
  }

  VirtualClock clock_{kStart};
  kube::memory::MemoryClient client_{clock_};
  cloud::SimCloudProvider cloud_;
  op::Manager manager_;
  simulate::SimulatedMachines machines_;
  std::map<std::string, ReplicaSet, std::less<>> replica_sets_;
};

inline std::vector<std::string> Names(const std::vector<Object>& objects) {
  std::vector<std::string> names;
  names.reserve(objects.size());
  for (const Object& object : objects) names.emplace_back(kube::Name(object));
  return names;
}

inline std::string ProviderId(const Object& object) {
  return object.value("spec", Object::object()).value("providerID", "");
}

inline std::string ClaimProviderId(const Object& claim) {
  return claim.value("status", Object::object()).value("providerID", "");
}

inline std::vector<std::string> TaintKeys(const Object& node) {
  std::vector<std::string> keys;
  for (const Object& taint : node["spec"].value("taints", Object::array())) {
    keys.push_back(taint.value("key", ""));
  }
  return keys;
}

// A world with the EC2NodeClass "default", the NodePool "default" and `pods` pending pods web-1…
// of `cpu` each, started.
inline void StartDefault(World& world, int pods, std::string_view cpu = "500m",
                         const Object& requirements = kOnDemand, const Object& limits = nullptr) {
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, NodePool("default", "default", requirements, limits));
  for (int i = 1; i <= pods; ++i) {
    world.Create(resources::kPods, Pod("web-" + std::to_string(i), cpu));
  }
  world.Start();
}

// Every pod is bound, and every NodeClaim of a NodePool initialized.
// The instance types of the cluster's Nodes, sorted.
inline std::vector<std::string> InstanceTypes(World& world) {
  std::vector<std::string> types;
  for (const Object& node : world.List(resources::kNodes)) {
    types.emplace_back(kube::Label(node, api::kLabelInstanceType));
  }
  std::sort(types.begin(), types.end());
  return types;
}

inline bool Settled(World& world) {
  if (!world.PendingPods().empty()) return false;
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    if (!kube::Label(claim, api::kLabelNodePool).empty() &&
        controllers::ConditionStatus(claim, "Initialized") != "True") {
      return false;
    }
  }
  return true;
}

}  // namespace karpenter::scenario
