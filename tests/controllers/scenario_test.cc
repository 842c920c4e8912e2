// Controller scenarios: the in-memory API server, the simulated cloud and the controller manager on
// one virtual clock, driven from the test's thread — no threads, no sleeps, the same run every
// time. (The helpers live here rather than in a scenario.{h,cc} of their own: CMake builds only
// *_test.cc and *_contract.cc files of this folder into controllers_test.)
//
// No kube-scheduler runs in memory, so the world plays a tiny one after every round. It is
// test-only, not the real algorithm: it binds each pending pod to the first Node, by name, that is
// Ready, schedulable, without NoSchedule/NoExecute taints, matches the pod's nodeSelector and has
// the CPU and memory left; a pod with no such Node is marked PodScheduled=False reason
// Unschedulable, which is what makes Karpenter provision for it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
#include "cloud/sim_cloud_provider.h"
#include "common/clock.h"
#include "controllers/cluster_cache.h"
#include "controllers/conditions.h"
#include "controllers/nodepool_hash.h"
#include "kube/client.h"
#include "kube/memory/memory_client.h"
#include "operator/manager.h"

namespace karpenter::scenario {
namespace {

using controllers::ConditionStatus;
using kube::Object;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::Contains;
using testing::Each;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Not;
using testing::SizeIs;

namespace resources = kube::resources;

constexpr TimePoint kStart{seconds(1767225600)};  // 2026-01-01T00:00:00Z

// Two amd64 on-demand types in us-east-1a and us-east-1b, cheapest in us-east-1a.
constexpr std::string_view kCatalog = R"({"instanceTypes": [
  {"name": "small", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "2", "memory": "8Gi", "pods": 20},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.10},
                 {"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.12}]},
  {"name": "large", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "8", "memory": "32Gi", "pods": 50},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.40},
                 {"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.45}]}
]})";

std::vector<cloud::InstanceType> Catalog() {
  Result<std::vector<cloud::InstanceType>> catalog = cloud::ParseCatalogJson(kCatalog, "scenario");
  EXPECT_TRUE(catalog.ok()) << catalog.error().message;
  return catalog.ok() ? std::move(*catalog) : std::vector<cloud::InstanceType>{};
}

// ---- manifests ----------------------------------------------------------------------------------

Object NodeClass(std::string_view name) {
  return {{"apiVersion", "karpenter.k8s.aws/v1"},
          {"kind", "EC2NodeClass"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"role", "KarpenterNodeRole-test"},
            {"amiSelectorTerms", {{{"alias", "al2023@latest"}}}},
            {"subnetSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", "test"}}}}}},
            {"securityGroupSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", "test"}}}}}}}}};
}

Object Requirement(std::string_view key, std::vector<std::string> values,
                   std::string_view op = "In") {
  return {{"key", key}, {"operator", op}, {"values", std::move(values)}};
}

const Object kOnDemand = Object::array({Requirement(api::kLabelCapacityType, {"on-demand"})});
// Only small nodes (2 CPU): a pod of more than 1 CPU needs a node of its own.
const Object kSmallOnly = Object::array({Requirement(api::kLabelCapacityType, {"on-demand"}),
                                         Requirement(api::kLabelInstanceType, {"small"})});

// A NodePool of `node_class` with template `requirements` and, unless null, `limits`.
Object NodePool(std::string_view name, std::string_view node_class,
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
Object Pod(std::string_view name, std::string_view cpu) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"containers",
             {{{"name", "main"},
               {"image", "registry.k8s.io/pause:3.10"},
               {"resources", {{"requests", {{"cpu", cpu}, {"memory", "256Mi"}}}}}}}}}}};
}

// ---- the world ----------------------------------------------------------------------------------

bool Blocks(const api::Taint& taint) {
  return taint.effect == api::TaintEffect::kNoSchedule ||
         taint.effect == api::TaintEffect::kNoExecute;
}

// Whether the test scheduler may bind `pod` to `node`, whose bound pods already request `used`.
bool Fits(const api::Pod& pod, const api::Node& node, const api::ResourceList& used) {
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

bool MarkedUnschedulable(const api::Pod& pod) {
  for (const api::PodCondition& condition : pod.status.conditions) {
    if (condition.type == "PodScheduled") {
      return condition.status == "False" && condition.reason == "Unschedulable";
    }
  }
  return false;
}

op::ManagerOptions SimOptions(cloud::SimCloudProvider& cloud, uint64_t seed) {
  op::ManagerOptions options;
  options.sim_cloud = &cloud;
  options.node_booter.mark_ready = true;  // no kwok in memory
  options.seed = seed;
  return options;
}

class World {
 public:
  explicit World(uint64_t seed = 7)
      : cloud_(Catalog(), clock_, "us-east-1"),
        manager_(client_, cloud_, clock_, Logger(), SimOptions(cloud_, seed)) {}
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  kube::Client& client() { return client_; }
  cloud::SimCloudProvider& cloud() { return cloud_; }

  Object Create(const kube::Resource& resource, const Object& object) {
    Result<Object> created = client_.Create(resource, object, kube::WriteOptions{});
    EXPECT_TRUE(created.ok()) << created.error().message;
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
    EXPECT_TRUE(list.ok()) << list.error().message;
    return list.ok() ? std::move(list->items) : std::vector<Object>{};
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
    for (auto& [time, message] : found) messages.push_back(std::move(message));
    return messages;
  }

  // Plays the scheduler once, syncs every informer, starts the manager, and settles.
  void Start() {
    PlayScheduler();
    for (kube::Informer* informer : manager_.cluster().all()) {
      const Status synced = informer->Sync();
      EXPECT_TRUE(synced.ok()) << informer->resource().plural << ": " << synced.error().message;
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
      const Result<size_t> pumped = informer->Pump(milliseconds(0));
      EXPECT_TRUE(pumped.ok()) << informer->resource().plural << ": " << pumped.error().message;
      if (pumped.ok()) events += *pumped;
    }
    manager_.RunOnce();
    PlayScheduler();
    return events;
  }

  // Steps of `step` until `total` has passed.
  void RunFor(milliseconds total, milliseconds step = milliseconds(100)) {
    for (milliseconds passed(0); passed < total; passed += step) Step(step);
  }

  // Steps of 100ms until the clock reads `time`.
  void RunUntilTime(TimePoint time) {
    while (clock_.Now() < time) Step(milliseconds(100));
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
      if (chosen != nullptr) {
        const Result<Object> bound = client_.Patch(
            resources::kPods, pod.metadata.namespace_, pod.metadata.name, kube::PatchType::kMerge,
            {{"spec", {{"nodeName", chosen->metadata.name}}}}, kube::Subresource::kNone);
        EXPECT_TRUE(bound.ok()) << bound.error().message;
        used[chosen->metadata.name] += api::EffectiveRequests(pod.spec);
        condition["status"] = "True";
      } else if (!MarkedUnschedulable(pod)) {
        condition["status"] = "False";
        condition["reason"] = "Unschedulable";
        condition["message"] = "no node fits";
      } else {
        continue;
      }
      const Result<Object> marked = client_.Patch(
          resources::kPods, pod.metadata.namespace_, pod.metadata.name, kube::PatchType::kMerge,
          {{"status", {{"conditions", Object::array({condition})}}}}, kube::Subresource::kStatus);
      EXPECT_TRUE(marked.ok()) << marked.error().message;
    }
  }

  VirtualClock clock_{kStart};
  kube::memory::MemoryClient client_{clock_};
  cloud::SimCloudProvider cloud_;
  op::Manager manager_;
};

std::vector<std::string> Names(const std::vector<Object>& objects) {
  std::vector<std::string> names;
  for (const Object& object : objects) names.emplace_back(kube::Name(object));
  return names;
}

std::string ProviderId(const Object& object) {
  return object.value("spec", Object::object()).value("providerID", "");
}

std::string ClaimProviderId(const Object& claim) {
  return claim.value("status", Object::object()).value("providerID", "");
}

std::vector<std::string> TaintKeys(const Object& node) {
  std::vector<std::string> keys;
  for (const Object& taint : node["spec"].value("taints", Object::array())) {
    keys.push_back(taint.value("key", ""));
  }
  return keys;
}

// A world with the EC2NodeClass "default", the NodePool "default" and `pods` pending pods web-1…
// of `cpu` each, started.
void StartDefault(World& world, int pods, std::string_view cpu = "500m",
                  const Object& requirements = kOnDemand, const Object& limits = nullptr) {
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools, NodePool("default", "default", requirements, limits));
  for (int i = 1; i <= pods; ++i) {
    world.Create(resources::kPods, Pod("web-" + std::to_string(i), cpu));
  }
  world.Start();
}

// Every pod is bound, and every NodeClaim of a NodePool initialized.
bool Settled(World& world) {
  if (!world.PendingPods().empty()) return false;
  for (const Object& claim : world.List(resources::kNodeClaims)) {
    if (!kube::Label(claim, api::kLabelNodePool).empty() &&
        ConditionStatus(claim, "Initialized") != "True") {
      return false;
    }
  }
  return true;
}

// ---- (a) provisioning ---------------------------------------------------------------------------

TEST(ScenarioTest, PendingPodsGetANodeClaimAfterTheBatchWindowThatBecomesAReadyNode) {
  World world;
  StartDefault(world, 3);
  for (const Object& pod : world.List(resources::kPods)) {
    EXPECT_EQ(ConditionStatus(pod, "PodScheduled"), "False") << kube::Name(pod);
  }
  // The batch window closes 1s after the last pending pod showed up (at the start), not before.
  world.Step(milliseconds(999));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
  world.Step(milliseconds(1));
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  ASSERT_THAT(claims, SizeIs(1)) << "1.5 CPU of pods fit one small node";
  const std::string claim_name(kube::Name(claims[0]));
  EXPECT_THAT(claim_name, testing::StartsWith("default-"));
  for (const char* pod : {"web-1", "web-2", "web-3"}) {
    EXPECT_THAT(world.EventMessages(pod, "Nominated"),
                ElementsAre("Pod should schedule on: nodeclaim/" + claim_name));
  }

  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(10)));
  const Object pool = world.Get(resources::kNodePools, "default");
  const Object claim = world.Get(resources::kNodeClaims, claim_name);
  const std::vector<Object> nodes = world.List(resources::kNodes);
  ASSERT_THAT(nodes, SizeIs(1));
  const Object& node = nodes[0];
  const std::string node_name(kube::Name(node));

  // The NodeClaim: made from its NodePool, launched, registered and initialized.
  EXPECT_EQ(kube::Label(claim, api::kLabelNodePool), "default");
  EXPECT_TRUE(kube::HasFinalizer(claim, api::kFinalizerTermination));
  ASSERT_THAT(claim["metadata"]["ownerReferences"], SizeIs(1));
  EXPECT_EQ(claim["metadata"]["ownerReferences"][0]["kind"], "NodePool");
  EXPECT_EQ(claim["metadata"]["ownerReferences"][0]["uid"], kube::Uid(pool));
  EXPECT_FALSE(kube::Annotation(pool, controllers::kAnnotationNodePoolHash).empty());
  EXPECT_EQ(kube::Annotation(claim, controllers::kAnnotationNodePoolHash),
            kube::Annotation(pool, controllers::kAnnotationNodePoolHash));
  EXPECT_EQ(claim["spec"]["resources"]["requests"]["cpu"], "1500m");
  EXPECT_EQ(kube::Label(claim, api::kLabelInstanceType), "small");
  EXPECT_EQ(kube::Label(claim, api::kLabelZone), "us-east-1a");
  EXPECT_EQ(kube::Label(claim, api::kLabelCapacityType), "on-demand");
  for (const char* type : {"Launched", "Registered", "Initialized", "Ready"}) {
    EXPECT_EQ(ConditionStatus(claim, type), "True") << type;
  }
  EXPECT_EQ(claim["status"]["nodeName"], node_name);
  EXPECT_EQ(claim["status"]["capacity"]["cpu"], "2");

  // The Node: the instance's, registered to the NodeClaim.
  const std::vector<cloud::Instance> instances = *world.cloud().List();
  ASSERT_THAT(instances, SizeIs(1));
  EXPECT_EQ(ProviderId(node), instances[0].provider_id);
  EXPECT_EQ(ClaimProviderId(claim), instances[0].provider_id);
  EXPECT_EQ(node_name, instances[0].node_name);
  for (const auto& [key, value] : claim["metadata"]["labels"].items()) {
    EXPECT_EQ(kube::Label(node, key), value.get<std::string>()) << key;
  }
  EXPECT_EQ(kube::Label(node, api::kLabelRegistered), "true");
  EXPECT_EQ(kube::Label(node, api::kLabelInitialized), "true");
  EXPECT_THAT(TaintKeys(node), Not(Contains(std::string(api::kTaintUnregistered))));
  EXPECT_TRUE(kube::HasFinalizer(node, api::kFinalizerTermination));
  ASSERT_THAT(node["metadata"]["ownerReferences"], SizeIs(1));
  EXPECT_EQ(node["metadata"]["ownerReferences"][0]["kind"], "NodeClaim");
  EXPECT_EQ(node["metadata"]["ownerReferences"][0]["name"], claim_name);
  EXPECT_EQ(node["metadata"]["ownerReferences"][0]["uid"], kube::Uid(claim));

  // Every pod runs there.
  for (const Object& pod : world.List(resources::kPods)) {
    EXPECT_EQ(pod["spec"]["nodeName"], node_name) << kube::Name(pod);
  }

  // The NodePool counts the node and its resources.
  world.RunFor(seconds(1));
  const Object counted = world.Get(resources::kNodePools, "default");
  EXPECT_EQ(counted["status"]["nodes"], 1);
  EXPECT_EQ(counted["status"]["resources"],
            Object::parse(R"({"cpu": "2", "memory": "8Gi", "pods": "20", "nodes": "1"})"));
  for (const char* type : {"ValidationSucceeded", "NodeClassReady", "Ready"}) {
    EXPECT_EQ(ConditionStatus(counted, type), "True") << type;
  }

  // Nothing more is launched for pods that run.
  world.RunFor(seconds(60), seconds(1));
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(1));
  EXPECT_THAT(*world.cloud().List(), SizeIs(1));
}

TEST(ScenarioTest, PodsThatNeedANodeEachGetANodeClaimEach) {
  World world;
  StartDefault(world, 5, "1500m", kSmallOnly);
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(20)));
  const std::vector<Object> nodes = world.List(resources::kNodes);
  EXPECT_THAT(nodes, SizeIs(5));
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(5));
  std::set<std::string> used;
  for (const Object& pod : world.List(resources::kPods)) {
    used.insert(pod["spec"].value("nodeName", ""));
  }
  EXPECT_EQ(used.size(), 5u) << "one pod on each node";
  for (const Object& node : nodes) {
    EXPECT_EQ(kube::Label(node, api::kLabelInstanceType), "small") << kube::Name(node);
    EXPECT_EQ(kube::Label(node, api::kLabelInitialized), "true") << kube::Name(node);
  }
}

// ---- (b) limits ---------------------------------------------------------------------------------

TEST(ScenarioTest, NodePoolLimitsStopProvisioningAndSayWhy) {
  World world;
  // Each 1500m pod needs a small node of its own (2 CPU); the limit allows two.
  StartDefault(world, 3, "1500m", kSmallOnly, Object{{"cpu", "4"}});
  ASSERT_TRUE(world.RunUntil([&] { return world.PendingPods().size() == 1; }, seconds(20)));
  world.RunFor(seconds(30), milliseconds(500));

  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(2));
  EXPECT_THAT(*world.cloud().List(), SizeIs(2));
  const std::vector<Object> pending = world.PendingPods();
  ASSERT_THAT(pending, SizeIs(1));
  const std::vector<std::string> failed =
      world.EventMessages(kube::Name(pending[0]), "FailedScheduling");
  ASSERT_THAT(failed, Not(IsEmpty()));
  EXPECT_THAT(failed, Each(HasSubstr("limits")));
  EXPECT_EQ(world.Get(resources::kNodePools, "default")["status"]["resources"]["cpu"], "4");
}

// ---- (c) a missing EC2NodeClass -----------------------------------------------------------------

TEST(ScenarioTest, NodePoolWithoutItsNodeClassIsNotReadyAndProvisionsNothing) {
  World world;
  world.Create(resources::kNodePools, NodePool("orphan", "missing"));
  world.Create(resources::kPods, Pod("web-1", "500m"));
  world.Start();
  world.RunFor(seconds(30), milliseconds(500));

  const Object pool = world.Get(resources::kNodePools, "orphan");
  EXPECT_EQ(ConditionStatus(pool, "NodeClassReady"), "False");
  EXPECT_EQ(ConditionStatus(pool, "Ready"), "False");
  EXPECT_EQ(ConditionStatus(pool, "ValidationSucceeded"), "True");
  EXPECT_THAT(world.EventMessages("orphan", "NotReady"),
              ElementsAre(HasSubstr("EC2NodeClass \"missing\" not found")));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
  EXPECT_THAT(*world.cloud().List(), IsEmpty());
  EXPECT_THAT(world.EventMessages("web-1", "FailedScheduling"), Not(IsEmpty()));

  // Once the EC2NodeClass exists, the NodePool is Ready and provisions.
  world.Create(resources::kEC2NodeClasses, NodeClass("missing"));
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(30)));
  const Object ready = world.Get(resources::kNodePools, "orphan");
  EXPECT_EQ(ConditionStatus(ready, "NodeClassReady"), "True");
  EXPECT_EQ(ConditionStatus(ready, "Ready"), "True");
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(1));
}

// ---- (d) deletion -------------------------------------------------------------------------------

TEST(ScenarioTest, DeletingANodeClaimDeletesItsNodeAndInstance) {
  World world;
  StartDefault(world, 1);
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(10)));
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  ASSERT_THAT(claims, SizeIs(1));
  const std::string claim_name(kube::Name(claims[0]));
  ASSERT_THAT(world.List(resources::kNodes), SizeIs(1));

  ASSERT_TRUE(world.client().Delete(resources::kNodeClaims, "", claim_name, {}).ok());
  // The finalizer holds it until its Node and instance are gone.
  EXPECT_FALSE(kube::DeletionTimestamp(world.Get(resources::kNodeClaims, claim_name)).empty());
  world.RunFor(seconds(2));
  EXPECT_TRUE(world.Get(resources::kNodeClaims, claim_name).is_null());
  EXPECT_THAT(world.List(resources::kNodes), IsEmpty());
  EXPECT_THAT(*world.cloud().List(), IsEmpty());
  world.RunFor(seconds(2));
  const Object pool = world.Get(resources::kNodePools, "default");
  EXPECT_EQ(pool["status"]["nodes"], 0);
}

// ---- (e) garbage collection ---------------------------------------------------------------------

// An instance launched for a NodeClaim the cluster never recorded (a crash between the launch and
// the write).
cloud::Instance LeakInstance(World& world) {
  api::NodeClaim ghost;
  ghost.metadata.name = "default-ghost";
  ghost.metadata.labels[std::string(api::kLabelNodePool)] = "default";
  ghost.spec.resource_requests.Set(api::kResourceCpu, Quantity::FromMilli(500));
  Result<cloud::Instance> instance = world.cloud().Create(ghost);
  EXPECT_TRUE(instance.ok()) << instance.error().message;
  return instance.ok() ? *instance : cloud::Instance();
}

TEST(ScenarioTest, InstanceWithoutNodeClaimIsTerminatedAfterTheGracePeriod) {
  World world;
  StartDefault(world, 0);
  world.RunUntilTime(kStart + seconds(20));
  const cloud::Instance leaked = LeakInstance(world);
  // Garbage collection runs every 30s; at 30s the instance is 10s old, within its 30s of grace.
  world.RunUntilTime(kStart + seconds(59) + milliseconds(900));
  EXPECT_TRUE(world.cloud().Get(leaked.provider_id).ok());
  world.RunUntilTime(kStart + seconds(61));
  const Result<cloud::Instance> gone = world.cloud().Get(leaked.provider_id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().reason, cloud::kReasonNotFound);
}

// The Node a leaked machine registered goes with it (else a restarted booter would adopt the
// terminated instance again from the Node's annotation).
TEST(ScenarioTest, NodeOfAGarbageCollectedInstanceIsDeleted) {
  World world;
  StartDefault(world, 0);
  const cloud::Instance leaked = LeakInstance(world);
  world.Step(milliseconds(100));
  ASSERT_FALSE(world.Get(resources::kNodes, leaked.node_name).is_null());
  world.RunFor(seconds(61));
  ASSERT_FALSE(world.cloud().Get(leaked.provider_id).ok());
  EXPECT_TRUE(world.Get(resources::kNodes, leaked.node_name).is_null());
}

TEST(ScenarioTest, NodeClaimWhoseInstanceVanishedIsDeleted) {
  World world;
  StartDefault(world, 1);
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(10)));
  const std::vector<Object> claims = world.List(resources::kNodeClaims);
  ASSERT_THAT(claims, SizeIs(1));
  const std::string claim_name(kube::Name(claims[0]));
  ASSERT_TRUE(world.cloud().Delete(ClaimProviderId(claims[0])).ok());  // terminated outside

  // The next garbage collection, 30s after the start, finds it.
  world.RunUntilTime(kStart + seconds(29) + milliseconds(900));
  EXPECT_FALSE(world.Get(resources::kNodeClaims, claim_name).is_null());
  world.RunUntilTime(kStart + seconds(32));
  EXPECT_TRUE(world.Get(resources::kNodeClaims, claim_name).is_null());
  EXPECT_THAT(world.List(resources::kNodes), IsEmpty());
}

// ---- (f) insufficient capacity ------------------------------------------------------------------

TEST(ScenarioTest, InsufficientCapacityDeletesTheNodeClaimWithAnEvent) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  // The only offering this NodePool allows: small, us-east-1a, on-demand.
  world.Create(resources::kNodePools,
               NodePool("default", "default",
                        Object::array({Requirement(api::kLabelCapacityType, {"on-demand"}),
                                       Requirement(api::kLabelInstanceType, {"small"}),
                                       Requirement(api::kLabelZone, {"us-east-1a"})})));
  world.Create(resources::kPods, Pod("web-1", "500m"));
  world.Start();
  ASSERT_TRUE(world.RunUntil([&] { return !world.List(resources::kNodeClaims).empty(); }));
  const std::string claim_name(kube::Name(world.List(resources::kNodeClaims)[0]));
  // The offering runs out between planning and launching.
  world.cloud().SetOfferingAvailable("small", "us-east-1a", "on-demand", false);
  world.RunFor(seconds(30), milliseconds(500));

  EXPECT_TRUE(world.Get(resources::kNodeClaims, claim_name).is_null());
  EXPECT_THAT(world.EventMessages(claim_name, "InsufficientCapacityError"),
              ElementsAre(HasSubstr("no available offering")));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty()) << "nothing else can launch";
  EXPECT_THAT(*world.cloud().List(), IsEmpty());
  EXPECT_THAT(world.EventMessages("web-1", "FailedScheduling"), Not(IsEmpty()));

  // When the offering is back, the pending pod gets its node.
  world.cloud().SetOfferingAvailable("small", "us-east-1a", "on-demand", true);
  EXPECT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(30)));
}

// ---- (g) invalid objects ------------------------------------------------------------------------

// A NodeClaim of the NodeClass "default" with `requirements`, as a user might create one.
Object NodeClaim(std::string_view name, const Object& requirements) {
  return {{"apiVersion", "karpenter.sh/v1"},
          {"kind", "NodeClaim"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"requirements", requirements},
            {"nodeClassRef",
             {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}};
}

TEST(ScenarioTest, InvalidNodeClaimGetsAnEventAndNothingElseStops) {
  World world;
  // The memory store does not validate CRD schemas, so it takes what a real API server would not.
  world.Create(resources::kNodeClaims,
               NodeClaim("broken", Object::array({Requirement("team", {"a"}, "Sometimes")})));
  StartDefault(world, 1);
  ASSERT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(20)));

  EXPECT_THAT(world.EventMessages("broken", "InvalidNodeClaim"),
              ElementsAre(HasSubstr("Sometimes")));
  const Object broken = world.Get(resources::kNodeClaims, "broken");
  EXPECT_EQ(ClaimProviderId(broken), "");
  EXPECT_THAT(*world.cloud().List(), SizeIs(1)) << "only the valid NodeClaim launched";
  EXPECT_THAT(world.List(resources::kNodeClaims), SizeIs(2));
}

TEST(ScenarioTest, NodeClaimWithAMalformedStatusGetsAnEventAndNothingElseStops) {
  World world;
  world.Create(resources::kNodeClaims, NodeClaim("typed", Object::array()));
  // Nor does it check what /status takes.
  Object claim = world.Get(resources::kNodeClaims, "typed");
  claim["status"] = {{"providerID", 5}, {"conditions", Object::array({7})}};
  const Result<Object> updated =
      world.client().Update(resources::kNodeClaims, claim, kube::Subresource::kStatus);
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  StartDefault(world, 1);
  // Past the first garbage collection, which reads every NodeClaim's status.
  world.RunUntilTime(kStart + seconds(40));

  EXPECT_TRUE(Settled(world));
  EXPECT_THAT(world.EventMessages("typed", "InvalidNodeClaim"), SizeIs(1));
  EXPECT_FALSE(world.Get(resources::kNodeClaims, "typed").is_null());
  EXPECT_THAT(*world.cloud().List(), SizeIs(1));
}

TEST(ScenarioTest, InvalidNodePoolIsNotReadyAndNotUsed) {
  World world;
  world.Create(resources::kEC2NodeClasses, NodeClass("default"));
  world.Create(resources::kNodePools,
               NodePool("bad", "default",
                        Object::array({Requirement(api::kLabelCapacityType, {"on-demand"}),
                                       Requirement("team", {"a"}, "Sometimes")})));
  world.Create(resources::kPods, Pod("web-1", "500m"));
  world.Start();
  world.RunFor(seconds(15), milliseconds(500));

  const Object pool = world.Get(resources::kNodePools, "bad");
  EXPECT_EQ(ConditionStatus(pool, "ValidationSucceeded"), "False");
  EXPECT_EQ(ConditionStatus(pool, "Ready"), "False");
  EXPECT_THAT(world.EventMessages("bad", "NotReady"), ElementsAre(HasSubstr("Sometimes")));
  EXPECT_THAT(world.List(resources::kNodeClaims), IsEmpty());
}

// ---- (h) determinism ----------------------------------------------------------------------------

// What a provisioning run leaves behind.
struct Outcome {
  std::vector<std::string> node_claims;
  std::vector<std::string> nodes;
  std::string stored;  // the NodeClaims, Nodes and pods as stored, byte for byte
};

Outcome Provision(uint64_t seed) {
  World world(seed);
  StartDefault(world, 5, "1500m", kSmallOnly);
  EXPECT_TRUE(world.RunUntil([&] { return Settled(world); }, seconds(20)));
  world.RunFor(seconds(5));
  Outcome outcome;
  outcome.node_claims = Names(world.List(resources::kNodeClaims));
  outcome.nodes = Names(world.List(resources::kNodes));
  for (const auto* resource : {&resources::kNodeClaims, &resources::kNodes, &resources::kPods}) {
    for (const Object& object : world.List(*resource)) outcome.stored += object.dump() + "\n";
  }
  return outcome;
}

TEST(ScenarioTest, SameSeedSameRun) {
  const Outcome first = Provision(7);
  const Outcome second = Provision(7);
  EXPECT_THAT(first.node_claims, SizeIs(5));
  EXPECT_EQ(first.node_claims, second.node_claims);
  EXPECT_EQ(first.nodes, second.nodes);
  EXPECT_EQ(first.stored, second.stored);
}

TEST(ScenarioTest, AnotherSeedNamesNodeClaimsDifferently) {
  const Outcome seven = Provision(7);
  const Outcome eight = Provision(8);
  EXPECT_NE(seven.node_claims, eight.node_claims);
  // Node names come from the simulated cloud's launch counter, not from the seed.
  EXPECT_EQ(seven.nodes, eight.nodes);
}

}  // namespace
}  // namespace karpenter::scenario
