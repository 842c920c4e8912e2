// Termination: a deleted NodeClaim's Node is tainted and drained — tier by tier, through the
// Eviction API and its PodDisruptionBudgets, within the NodeClaim's terminationGracePeriod —
// before its machine goes. The in-memory API server, the simulated cloud (its booter plays the
// kubelets) and the controller manager run on one virtual clock, driven from the test's thread.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "cloud/catalog.h"
#include "cloud/sim/sim_cloud_provider.h"
#include "common/clock.h"
#include "controllers/conditions.h"
#include "kube/client.h"
#include "kube/forwarding_client.h"
#include "kube/memory/memory_client.h"
#include "metrics/exposition.h"
#include "operator/manager.h"
#include "simulate/simulated_machines.h"
#include "support/matchers.h"
#include "support/metrics_text.h"

namespace karpenter::controllers {
namespace {

using kube::Object;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::AllOf;
using testing::Contains;
using testing::ElementsAre;
using testing::Ge;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Le;
using testing::Pair;

namespace resources = kube::resources;

constexpr TimePoint kStart{seconds(1767225600)};  // 2026-01-01T00:00:00Z
constexpr std::string_view kClaim = "claim";
constexpr std::string_view kHold = "example.com/hold";  // a pod finalizer: keeps it terminating

constexpr std::string_view kCatalog = R"({"instanceTypes": [
  {"name": "small", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
   "capacity": {"cpu": "2", "memory": "8Gi", "pods": 20},
   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.10}]}
]})";

std::vector<cloud::InstanceType> Catalog() {
  Result<std::vector<cloud::InstanceType>> catalog =
      cloud::ParseCatalogJson(kCatalog, "termination");
  EXPECT_THAT(catalog, IsOk());
  return catalog.ok() ? std::move(*catalog) : std::vector<cloud::InstanceType>{};
}

// The memory store, recording the grace period of every pod deletion (the store itself ignores
// grace periods: a deleted pod goes at once).
class GraceRecordingClient final : public kube::ForwardingClient {
 public:
  explicit GraceRecordingClient(const Clock& clock) : ForwardingClient(memory_), memory_(clock) {}

  // (pod name, grace period seconds or -1), in order.
  const std::vector<std::pair<std::string, int64_t>>& pod_deletions() const {
    return pod_deletions_;
  }

  Status Delete(const kube::Resource& resource, std::string_view namespace_, std::string_view name,
                const kube::DeleteOptions& options) override {
    if (resource == resources::kPods) {
      pod_deletions_.emplace_back(name, options.grace_period_seconds.value_or(-1));
    }
    return memory_.Delete(resource, namespace_, name, options);
  }

 private:
  kube::memory::MemoryClient memory_;
  std::vector<std::pair<std::string, int64_t>> pod_deletions_;
};

// A running, ready pod in "default" labelled app=web, before it is bound.
Object Pod(std::string_view name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "web"}}}}},
          {"spec",
           {{"containers",
             {{{"name", "main"},
               {"image", "registry.k8s.io/pause:3.10"},
               {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}}}}}}};
}

Object DaemonSetPod(std::string_view name) {
  Object pod = Pod(name);
  pod["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                         {"kind", "DaemonSet"},
                                         {"name", "agent"},
                                         {"uid", "ds-uid"},
                                         {"controller", true}}};
  return pod;
}

Object Critical(Object pod) {
  pod["spec"]["priorityClassName"] = "system-node-critical";
  return pod;
}

Object Held(Object pod) {
  pod["metadata"]["finalizers"] = {kHold};
  return pod;
}

Object WithGracePeriod(Object pod, int64_t seconds) {
  pod["spec"]["terminationGracePeriodSeconds"] = seconds;
  return pod;
}

// A budget over the app=web pods that allows `max_unavailable` of them to be down.
Object Budget(int max_unavailable) {
  return {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"selector", {{"matchLabels", {{"app", "web"}}}}}, {"maxUnavailable", max_unavailable}}}};
}

class TerminationTest : public testing::Test {
 protected:
  static op::ManagerOptions Options() {
    op::ManagerOptions options;
    options.events.synchronous = true;  // a virtual clock
    return options;
  }

  TerminationTest()
      : cloud_(Catalog(), clock_, "us-east-1"),
        manager_(client_, cloud_, clock_, Logger(), Options()),
        machines_(manager_, client_, cloud_, clock_, Logger(),
                  cloud::NodeBooterOptions{.mark_ready = true}) {}  // no kwok in memory

  // Creates the NodeClaim (with `termination_grace_period`, unless empty) and runs until its Node
  // is initialized.
  void Start(std::string_view termination_grace_period = "") {
    Object claim = {
        {"apiVersion", "karpenter.sh/v1"},
        {"kind", "NodeClaim"},
        {"metadata", {{"name", kClaim}, {"finalizers", {api::kFinalizerTermination}}}},
        {"spec",
         {{"requirements",
           {{{"key", api::kLabelCapacityType}, {"operator", "In"}, {"values", {"on-demand"}}}}},
          {"taints", {{{"key", "team"}, {"value", "a"}, {"effect", "NoSchedule"}}}},
          {"nodeClassRef",
           {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}};
    if (!termination_grace_period.empty()) {
      claim["spec"]["terminationGracePeriod"] = termination_grace_period;
    }
    Create(resources::kNodeClaims, claim);
    for (kube::Informer* informer : manager_.cluster().all()) {
      const Status synced = informer->Sync();
      ASSERT_THAT(synced, IsOk()) << informer->resource().plural << ": " << synced.error().message;
    }
    manager_.Start();
    ASSERT_TRUE(RunUntil([&] { return ConditionStatus(GetClaim(), "Initialized") == "True"; }));
    provider_id_ = GetClaim()["status"].value("providerID", "");
    node_name_ = GetClaim()["status"].value("nodeName", "");
    ASSERT_FALSE(node_name_.empty());
  }

  Object Create(const kube::Resource& resource, const Object& object) {
    Result<Object> created = client_.Create(resource, object, kube::WriteOptions{});
    EXPECT_THAT(created, IsOk());
    return created.ok() ? std::move(*created) : Object();
  }

  // Creates `pod` bound to the Node, running and ready.
  void Bind(Object pod) {
    pod["spec"]["nodeName"] = node_name_;
    const Object created = Create(resources::kPods, pod);
    const Result<Object> running = client_.Patch(
        resources::kPods, "default", kube::Name(created), kube::PatchType::kMerge,
        {{"status",
          {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}},
        kube::Subresource::kStatus);
    EXPECT_THAT(running, IsOk());
  }

  void DeleteClaim() {
    ASSERT_THAT(client_.Delete(resources::kNodeClaims, "", kClaim, {}), IsOk());
  }

  // Lets the pod `name` finish terminating.
  void Release(std::string_view name) {
    const Result<Object> released =
        client_.Patch(resources::kPods, "default", name, kube::PatchType::kMerge,
                      {{"metadata", {{"finalizers", nullptr}}}}, kube::Subresource::kNone);
    EXPECT_THAT(released, IsOk());
  }

  // The stored object, or null.
  Object Get(const kube::Resource& resource, std::string_view name,
             std::string_view namespace_ = "") {
    Result<Object> object = client_.Get(resource, namespace_, name);
    return object.ok() ? std::move(*object) : Object();
  }
  Object GetClaim() { return Get(resources::kNodeClaims, kClaim); }
  Object GetNode() { return Get(resources::kNodes, node_name_); }
  Object GetPod(std::string_view name) { return Get(resources::kPods, name, "default"); }
  bool Terminating(std::string_view name) { return !kube::DeletionTimestamp(GetPod(name)).empty(); }
  bool Untouched(std::string_view name) {
    const Object pod = GetPod(name);
    return !pod.is_null() && kube::DeletionTimestamp(pod).empty();
  }
  bool InstanceExists() { return cloud_.Get(provider_id_).ok(); }
  // The Node, its NodeClaim and its instance are all gone.
  bool Terminated() { return GetClaim().is_null() && GetNode().is_null() && !InstanceExists(); }

  // The messages of the Events with `reason` about the Node.
  std::vector<std::string> NodeEvents(std::string_view reason) {
    Result<kube::ObjectList> events = client_.List(resources::kEvents, kube::ListOptions{});
    EXPECT_THAT(events, IsOk());
    std::vector<std::string> messages;
    if (!events.ok()) return messages;
    for (const kube::SharedObject& shared : events->items) {
      const Object& event = *shared;
      if (event["involvedObject"].value("name", "") == node_name_ &&
          event.value("reason", "") == reason) {
        messages.push_back(event.value("message", ""));
      }
    }
    return messages;
  }

  // Advances the clock by `by`, delivers what changed to the informers and runs one round of
  // every controller.
  void Step(milliseconds by = milliseconds(100)) {
    clock_.Advance(by);
    for (kube::Informer* informer : manager_.cluster().all()) {
      const Result<size_t> pumped = informer->Pump(milliseconds(0));
      EXPECT_THAT(pumped, IsOk()) << informer->resource().plural << ": " << pumped.error().message;
    }
    manager_.RunOnce();
  }

  // Steps of 100ms until `done` holds; false when `limit` passed first.
  bool RunUntil(const std::function<bool()>& done, milliseconds limit = seconds(30)) {
    for (milliseconds passed(0); passed < limit; passed += milliseconds(100)) {
      if (done()) return true;
      Step();
    }
    return done();
  }

  // Steps of 100ms until the clock reads `time`.
  void RunUntilTime(TimePoint time) {
    while (clock_.Now() < time) Step();
  }

  // When the deleted NodeClaim's terminationGracePeriod of `period` ends.
  TimePoint Deadline(seconds period) {
    const std::optional<TimePoint> deleted = ParseTime(kube::DeletionTimestamp(GetClaim()));
    EXPECT_TRUE(deleted.has_value());
    return deleted.value_or(TimePoint()) + period;
  }

  VirtualClock clock_{kStart};
  GraceRecordingClient client_{clock_};
  cloud::SimCloudProvider cloud_;
  op::Manager manager_;
  simulate::SimulatedMachines machines_;
  std::string provider_id_;
  std::string node_name_;
};

std::vector<std::string> TaintKeys(const Object& node) {
  std::vector<std::string> keys;
  for (const Object& taint : node["spec"].value("taints", Object::array())) {
    keys.push_back(taint.value("key", ""));
  }
  return keys;
}

TEST_F(TerminationTest, EvictsOrdinaryPodsThenDaemonSetPodsThenCriticalOnes) {
  Start();
  Bind(Held(Pod("web-1")));
  Bind(Pod("web-2"));
  Bind(Held(DaemonSetPod("agent")));
  Bind(Held(Critical(Pod("dns"))));
  Bind(Critical(DaemonSetPod("proxy")));
  DeleteClaim();

  // Ordinary pods first; the rest wait while web-1 is still terminating.
  ASSERT_TRUE(RunUntil([&] { return Terminating("web-1"); }));
  EXPECT_THAT(TaintKeys(GetNode()), Contains(std::string(api::kTaintDisrupted)));
  EXPECT_THAT(TaintKeys(GetNode()), Contains("team")) << "the other taints stay";
  EXPECT_TRUE(GetPod("web-2").is_null());
  Step(seconds(5));
  EXPECT_TRUE(Untouched("agent"));
  EXPECT_TRUE(Untouched("dns"));
  EXPECT_TRUE(Untouched("proxy"));
  EXPECT_TRUE(InstanceExists());

  // Then the DaemonSet pods.
  Release("web-1");
  ASSERT_TRUE(RunUntil([&] { return Terminating("agent"); }));
  Step(seconds(5));
  EXPECT_TRUE(Untouched("dns"));
  EXPECT_TRUE(Untouched("proxy"));

  // Then the critical pods, critical DaemonSet pods last.
  Release("agent");
  ASSERT_TRUE(RunUntil([&] { return Terminating("dns"); }));
  Step(seconds(5));
  EXPECT_TRUE(Untouched("proxy"));
  EXPECT_TRUE(InstanceExists());

  Release("dns");
  ASSERT_TRUE(RunUntil([&] { return Terminated(); }));
  EXPECT_TRUE(GetPod("proxy").is_null());
  EXPECT_THAT(NodeEvents("Evicted"),
              ElementsAre("Evicted pod default/web-1", "Evicted pod default/web-2",
                          "Evicted pod default/agent", "Evicted pod default/dns",
                          "Evicted pod default/proxy"));
  EXPECT_THAT(client_.pod_deletions(), IsEmpty()) << "evicted, never deleted";
}

TEST_F(TerminationTest, BudgetThatAllowsNoDisruptionHoldsTheNodeAndItsInstance) {
  Start();
  Create(resources::kPodDisruptionBudgets, Budget(0));
  Bind(Pod("web-1"));
  Bind(Pod("web-2"));
  DeleteClaim();

  Step(seconds(60));
  for (int i = 0; i < 100; ++i) Step();
  EXPECT_TRUE(Untouched("web-1"));
  EXPECT_TRUE(Untouched("web-2"));
  EXPECT_FALSE(GetNode().is_null());
  EXPECT_TRUE(InstanceExists());
  EXPECT_FALSE(GetClaim().is_null());
  EXPECT_THAT(NodeEvents("FailedDraining"),
              Contains(AllOf(HasSubstr("Cannot evict pod default/web-1"),
                             HasSubstr("disruption budget web"))));

  // Once the budget allows it, the pods go, then the instance, the Node and the NodeClaim. Retries
  // back off to at most 10s.
  const Result<Object> relaxed =
      client_.Patch(resources::kPodDisruptionBudgets, "default", "web", kube::PatchType::kMerge,
                    {{"spec", {{"maxUnavailable", 1}}}}, kube::Subresource::kNone);
  ASSERT_THAT(relaxed, IsOk());
  EXPECT_TRUE(RunUntil([&] { return Terminated(); }, seconds(12)));
  EXPECT_TRUE(GetPod("web-1").is_null());
  EXPECT_TRUE(GetPod("web-2").is_null());

  // The series count the refusals and the evictions.
  const prometheus::Collectable* sources[] = {&manager_.registry()};
  Result<std::vector<support::Sample>> scrape =
      support::ParseExposition(metrics::TextExposition(sources));
  ASSERT_THAT(scrape, IsOk());
  EXPECT_GE(support::Sum(*scrape, "karpenter_pods_eviction_requests_total", {{"code", "429"}}), 2);
  EXPECT_EQ(support::Sum(*scrape, "karpenter_pods_eviction_requests_total", {{"code", "200"}}), 2);
  EXPECT_EQ(support::Sum(*scrape, "karpenter_pods_drained_total"), 2);
  EXPECT_EQ(support::Sum(*scrape, "karpenter_nodes_drained_total"), 1);
  EXPECT_EQ(support::Sum(*scrape, "karpenter_nodeclaims_terminated_total"), 1);
}

TEST_F(TerminationTest, AWallClockSteppedBackDoesNotHoldTheDrain) {
  Start();
  Create(resources::kPodDisruptionBudgets, Budget(0));
  Bind(Pod("web-1"));
  DeleteClaim();
  ASSERT_TRUE(RunUntil([&] { return !NodeEvents("FailedDraining").empty(); }));
  Step(seconds(20));  // the eviction retries back off to their longest wait

  // The wall clock is stepped back an hour (an NTP correction) while the budget relaxes: the
  // eviction backoff and the NodeClaim's requeue are timers on the monotonic clock, so the drain
  // goes on within the longest backoff instead of an hour later.
  clock_.Set(clock_.Now() - std::chrono::hours(1));
  const Result<Object> relaxed =
      client_.Patch(resources::kPodDisruptionBudgets, "default", "web", kube::PatchType::kMerge,
                    {{"spec", {{"maxUnavailable", 1}}}}, kube::Subresource::kNone);
  ASSERT_THAT(relaxed, IsOk());
  EXPECT_TRUE(RunUntil([&] { return Terminated(); }, seconds(12)));
}

TEST_F(TerminationTest, InstanceIsTerminatedOnlyOnceTheNodeIsDrained) {
  Start();
  Bind(Held(Pod("web-1")));
  DeleteClaim();
  ASSERT_TRUE(RunUntil([&] { return Terminating("web-1"); }));
  Step(seconds(30));
  Step();
  EXPECT_TRUE(InstanceExists());
  EXPECT_FALSE(GetNode().is_null());
  EXPECT_TRUE(kube::HasFinalizer(GetNode(), api::kFinalizerTermination));
  EXPECT_EQ(ConditionStatus(GetClaim(), api::kConditionDrained), api::kConditionFalse);

  Release("web-1");
  EXPECT_TRUE(RunUntil([&] { return Terminated(); }, seconds(3)));
}

// A VolumeAttachment of the Node for PersistentVolume `volume`, as the attach/detach controller
// makes one for a pod's volume.
Object Attachment(std::string_view name, std::string_view node, std::string_view volume) {
  return {{"apiVersion", "storage.k8s.io/v1"},
          {"kind", "VolumeAttachment"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"attacher", "ebs.csi.aws.com"},
            {"nodeName", node},
            {"source", {{"persistentVolumeName", volume}}}}}};
}

// Drained, the instance still waits for the Node's VolumeAttachments to go (the volumes of the
// pods that left detach), with VolumesDetached=False and an Event naming them.
TEST_F(TerminationTest, TheInstanceWaitsForTheNodesVolumesToDetach) {
  Start();
  Bind(Pod("web-1"));
  Create(resources::kVolumeAttachments, Attachment("csi-web", node_name_, "pv-web"));
  DeleteClaim();
  ASSERT_TRUE(RunUntil([&] { return GetPod("web-1").is_null(); }));
  Step(seconds(60));
  Step();
  EXPECT_TRUE(InstanceExists());
  EXPECT_FALSE(GetNode().is_null());
  const Object claim = GetClaim();
  EXPECT_EQ(ConditionStatus(claim, api::kConditionDrained), api::kConditionTrue);
  EXPECT_EQ(ConditionStatus(claim, api::kConditionVolumesDetached), api::kConditionFalse);
  EXPECT_THAT(NodeEvents("AwaitingVolumeDetachment"),
              Contains(HasSubstr("VolumeAttachments bound to the node (csi-web)")));

  ASSERT_THAT(client_.Delete(resources::kVolumeAttachments, "", "csi-web", {}), IsOk());
  EXPECT_TRUE(RunUntil([&] { return Terminated(); }, seconds(10)));
}

// The volumes of pods the drain leaves on the Node would never detach: they do not hold it. The
// others do, until the terminationGracePeriod ends.
TEST_F(TerminationTest, VolumesOfPodsLeftOnTheNodeDoNotHoldItNorAnyPastTheDeadline) {
  Start("2m");
  Object agent = Pod("agent");
  agent["spec"]["tolerations"] = {{{"operator", "Exists"}}};
  agent["spec"]["volumes"] = {
      {{"name", "logs"}, {"persistentVolumeClaim", {{"claimName", "logs"}}}}};
  Create(resources::kPersistentVolumeClaims,
         {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", "logs"}, {"namespace", "default"}}},
          {"spec",
           {{"accessModes", {"ReadWriteOnce"}},
            {"resources", {{"requests", {{"storage", "1Gi"}}}}},
            {"volumeName", "pv-logs"}}}});
  Bind(agent);
  Create(resources::kVolumeAttachments, Attachment("csi-logs", node_name_, "pv-logs"));
  Create(resources::kVolumeAttachments, Attachment("csi-data", node_name_, "pv-data"));
  Create(resources::kVolumeAttachments, Attachment("csi-other", "another-node", "pv-other"));
  DeleteClaim();
  Step();
  const TimePoint deadline = Deadline(seconds(120));

  RunUntilTime(deadline - seconds(1));
  EXPECT_TRUE(InstanceExists());
  EXPECT_THAT(NodeEvents("AwaitingVolumeDetachment"),
              Contains(HasSubstr("VolumeAttachments bound to the node (csi-data)")));
  EXPECT_TRUE(Untouched("agent"));
  ASSERT_TRUE(RunUntil([&] { return Terminated(); }, seconds(10)));
}

TEST_F(TerminationTest, DoNotDisruptPodHoldsTheNodeUntilTheGracePeriodForcesIt) {
  Start("2m");
  Object keep = WithGracePeriod(Pod("keep"), 10);
  keep["metadata"]["annotations"] = {{api::kAnnotationDoNotDisrupt, "true"}};
  Bind(keep);
  Bind(Pod("web-1"));
  DeleteClaim();
  Step();
  const TimePoint deadline = Deadline(seconds(120));

  ASSERT_TRUE(RunUntil([&] { return GetPod("web-1").is_null(); }));
  // Its own grace period is 10s: it is deleted 10s before the deadline, not before.
  RunUntilTime(deadline - seconds(11));
  EXPECT_TRUE(Untouched("keep"));
  EXPECT_TRUE(InstanceExists());
  RunUntilTime(deadline - seconds(9));
  EXPECT_TRUE(GetPod("keep").is_null());
  ASSERT_THAT(client_.pod_deletions(), ElementsAre(Pair("keep", AllOf(Ge(9), Le(10)))));
  EXPECT_THAT(NodeEvents("Deleted"),
              ElementsAre(AllOf(HasSubstr("default/keep"), HasSubstr("terminationGracePeriod"))));
  EXPECT_TRUE(RunUntil([&] { return Terminated(); }, seconds(3)));
}

TEST_F(TerminationTest, GracePeriodDeadlineDeletesWhatTheBudgetsHold) {
  Start("2m");
  Create(resources::kPodDisruptionBudgets, Budget(0));
  Bind(Held(WithGracePeriod(Pod("web-1"), 20)));
  Bind(WithGracePeriod(Pod("web-2"), 20));
  Bind(DaemonSetPod("agent"));  // the default grace period, 30s
  DeleteClaim();
  Step();
  const TimePoint deadline = Deadline(seconds(120));

  RunUntilTime(deadline - seconds(31));
  EXPECT_TRUE(Untouched("web-1"));
  EXPECT_TRUE(Untouched("web-2"));
  EXPECT_TRUE(Untouched("agent")) << "its tier waits for the ordinary pods";
  EXPECT_THAT(client_.pod_deletions(), IsEmpty());

  // Each pod is deleted, bypassing the budget, when what is left of the deadline is its grace.
  RunUntilTime(deadline - seconds(29));
  EXPECT_TRUE(GetPod("agent").is_null());
  EXPECT_TRUE(Untouched("web-1"));
  RunUntilTime(deadline - seconds(19));
  EXPECT_TRUE(Terminating("web-1"));
  EXPECT_TRUE(GetPod("web-2").is_null());
  EXPECT_TRUE(InstanceExists()) << "web-1 is still terminating";

  // At the deadline whatever is left is deleted at once and the Node no longer waits.
  RunUntilTime(deadline - milliseconds(100));
  EXPECT_TRUE(InstanceExists());
  ASSERT_TRUE(RunUntil([&] { return Terminated(); }, seconds(2)));
  EXPECT_THAT(
      client_.pod_deletions(),
      ElementsAre(Pair("agent", AllOf(Ge(29), Le(30))), Pair("web-1", AllOf(Ge(19), Le(20))),
                  Pair("web-2", AllOf(Ge(19), Le(20))), Pair("web-1", 0)));
}

TEST_F(TerminationTest, PodsThatWouldComeBackOrCannotBeEvictedDoNotHoldTheNode) {
  Start();
  Object tolerant = Pod("tolerant");
  tolerant["spec"]["tolerations"] = {{{"key", api::kTaintDisrupted}, {"operator", "Exists"}}};
  Bind(tolerant);
  Object everywhere = DaemonSetPod("everywhere");
  everywhere["spec"]["tolerations"] = {{{"operator", "Exists"}}};
  Bind(everywhere);
  Object mirror = Pod("kube-proxy");
  mirror["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "abc"}};
  Bind(mirror);
  Bind(Pod("done"));
  ASSERT_THAT(client_.Patch(resources::kPods, "default", "done", kube::PatchType::kMerge,
                            {{"status", {{"phase", "Succeeded"}}}}, kube::Subresource::kStatus),
              IsOk());
  DeleteClaim();

  EXPECT_TRUE(RunUntil([&] { return Terminated(); }, seconds(3)));
  for (const char* pod : {"tolerant", "everywhere", "kube-proxy", "done"}) {
    EXPECT_TRUE(Untouched(pod)) << pod;
  }
  EXPECT_THAT(NodeEvents("Evicted"), IsEmpty());
}

TEST_F(TerminationTest, NotReadyNodeWhoseInstanceIsGoneIsRemovedWithoutDraining) {
  Start();
  Create(resources::kPodDisruptionBudgets, Budget(0));  // a drain would wait forever
  Bind(Pod("web-1"));
  ASSERT_THAT(
      client_.Patch(
          resources::kNodes, "", node_name_, kube::PatchType::kMerge,
          {{"status",
            {{"conditions",
              {{{"type", "Ready"}, {"status", "Unknown"}, {"reason", "NodeStatusUnknown"}}}}}}},
          kube::Subresource::kStatus),
      IsOk());
  ASSERT_THAT(cloud_.Delete(provider_id_), IsOk());  // terminated outside

  // Garbage collection finds the NodeClaim without an instance and deletes it.
  EXPECT_TRUE(RunUntil([&] { return Terminated(); }, seconds(35)));
  EXPECT_TRUE(Untouched("web-1"));
  EXPECT_THAT(NodeEvents("FailedDraining"), IsEmpty());
}

TEST_F(TerminationTest, DeletingTheNodeDeletesItsNodeClaimWhichDrainsAndTerminatesIt) {
  Start();
  Bind(Held(Pod("web-1")));
  ASSERT_THAT(client_.Delete(resources::kNodes, "", node_name_, {}),
              IsOk());  // kubectl delete node
  ASSERT_FALSE(GetNode().is_null()) << "our finalizer holds it";

  ASSERT_TRUE(RunUntil([&] { return Terminating("web-1"); }, seconds(3)));
  EXPECT_FALSE(kube::DeletionTimestamp(GetClaim()).empty());
  EXPECT_THAT(TaintKeys(GetNode()), Contains(std::string(api::kTaintDisrupted)));
  Step(seconds(10));
  EXPECT_TRUE(InstanceExists());
  EXPECT_FALSE(GetNode().is_null());

  Release("web-1");
  EXPECT_TRUE(RunUntil([&] { return Terminated(); }, seconds(3)));
  EXPECT_THAT(NodeEvents("Evicted"), ElementsAre("Evicted pod default/web-1"));
}

}  // namespace
}  // namespace karpenter::controllers
