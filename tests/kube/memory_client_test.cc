#include "kube/memory/memory_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "kube/client_contract.h"
#include "kube/disruption_budget.h"
#include "support/matchers.h"
#include "support/object_copies.h"

namespace karpenter::kube::memory {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr TimePoint kStart{std::chrono::seconds(1767225600)};  // 2026-01-01T00:00:00Z

class MemoryHarness final : public contract::ContractHarness {
 public:
  Client& client() override { return client_; }

  std::string FreshNamespace() override {
    const std::string name = "contract-" + std::to_string(++namespaces_);
    const Result<Object> created =
        client_.Create(resources::kNamespaces, {{"metadata", {{"name", name}}}}, {});
    EXPECT_THAT(created, IsOk());
    return name;
  }

  ::testing::AssertionResult WaitForBudget(const std::string& namespace_, const std::string& name,
                                           const contract::BudgetStatus& expected) override {
    const Result<Object> budget = client_.Get(resources::kPodDisruptionBudgets, namespace_, name);
    ListOptions in_namespace;
    in_namespace.namespace_ = namespace_;
    const Result<ObjectList> pods = client_.List(resources::kPods, in_namespace);
    if (!budget.ok() || !pods.ok()) return ::testing::AssertionFailure() << "cannot read";
    const Result<DisruptionBudgetStatus> status = ComputeDisruptionBudget(*budget, pods->items);
    if (!status.ok()) return ::testing::AssertionFailure() << status.error().message;
    if (status->current_healthy == expected.current_healthy &&
        status->desired_healthy == expected.desired_healthy &&
        status->disruptions_allowed == expected.disruptions_allowed) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << "budget " << name << ": healthy " << status->current_healthy << "/"
           << status->desired_healthy << ", allowed " << status->disruptions_allowed;
  }

  ::testing::AssertionResult CompactHistory() override { return ::testing::AssertionSuccess(); }

 private:
  VirtualClock clock_{kStart};
  MemoryClient client_{clock_};
  int namespaces_ = 0;
};

using contract::ClientContract;
INSTANTIATE_TEST_SUITE_P(Memory, ClientContract, ::testing::Values(contract::HarnessFactory([] {
                           return std::make_unique<MemoryHarness>();
                         })));

// --- what only the memory store promises ---------------------------------------------------

Object Pod(std::string_view name, const Object& labels = Object::object()) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
          {"spec", {{"containers", {{{"name", "main"}, {"image", "pause"}}}}}}};
}

ListOptions Fields(std::string field_selector) {
  ListOptions options;
  options.field_selector = std::move(field_selector);
  return options;
}

WatchOptions From(std::string resource_version) {
  WatchOptions options;
  options.resource_version = std::move(resource_version);
  return options;
}

std::vector<std::string> Names(const ObjectList& list) {
  std::vector<std::string> names;
  for (const SharedObject& item : list.items) names.emplace_back(Name(*item));
  return names;
}

TEST(MemoryClient, SameCallsGiveByteIdenticalObjects) {
  const auto run = [] {
    VirtualClock clock(kStart);
    MemoryClient client(clock);
    Object generated = Pod("");
    generated["metadata"]["generateName"] = "web-";
    for (int i = 0; i < 3; ++i) {
      EXPECT_THAT(client.Create(resources::kPods, generated, {}), IsOk());
      clock.Advance(std::chrono::seconds(1));
    }
    const Result<ObjectList> pods = client.List(resources::kPods, {});
    return Object(support::Copies(pods->items)).dump() + pods->resource_version;
  };
  const std::string first = run();
  EXPECT_THAT(first, HasSubstr("web-"));
  EXPECT_EQ(first, run());
}

// The store hands out the states it keeps: an informer over it holds no second copy of a cluster.
TEST(MemoryClient, ListsAndWatchesShareTheStoredStates) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  ASSERT_THAT(client.Create(resources::kPods, Pod("web-1"), {}), IsOk());
  const Result<ObjectList> first = client.List(resources::kPods, {});
  const Result<ObjectList> second = client.List(resources::kPods, {});
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  ASSERT_EQ(first->items.size(), 1u);
  ASSERT_EQ(second->items.size(), 1u);
  EXPECT_EQ(first->items[0].get(), second->items[0].get());

  WatchOptions from_list;
  from_list.resource_version = first->resource_version;
  Result<std::unique_ptr<Watch>> watch = client.StartWatch(resources::kPods, from_list);
  ASSERT_THAT(watch, IsOk());
  ASSERT_THAT(client.Patch(resources::kPods, "default", "web-1", PatchType::kMerge,
                           {{"metadata", {{"labels", {{"seen", "yes"}}}}}}, Subresource::kNone),
              IsOk());
  const Result<std::optional<WatchEvent>> event = (*watch)->Next(std::chrono::milliseconds(0));
  ASSERT_THAT(event, IsOk());
  ASSERT_TRUE(event->has_value());
  const Result<ObjectList> after = client.List(resources::kPods, {});
  ASSERT_THAT(after, IsOk());
  ASSERT_EQ(after->items.size(), 1u);
  EXPECT_EQ((*event)->object.get(), after->items[0].get());
  EXPECT_EQ(Label(*(*event)->object, "seen"), "yes");
  // The state before the patch is untouched: whoever still holds it sees what it was.
  EXPECT_EQ(Label(*first->items[0], "seen"), "");
}

TEST(MemoryClient, CountersAndTheClockMakeMetadata) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  const Result<ObjectList> namespaces = client.List(resources::kNamespaces, {});
  ASSERT_THAT(namespaces, IsOk());
  EXPECT_THAT(Names(*namespaces),
              ElementsAre("default", "kube-node-lease", "kube-public", "kube-system"));
  EXPECT_EQ(namespaces->resource_version, "4");

  clock.Advance(std::chrono::minutes(1));
  const Result<Object> pod = client.Create(resources::kPods, Pod("web-1"), {});
  ASSERT_THAT(pod, IsOk());
  EXPECT_EQ(ResourceVersion(*pod), "5");
  EXPECT_EQ(pod->at("metadata").value("creationTimestamp", ""), "2026-01-01T00:01:00Z");
  EXPECT_TRUE(
      std::regex_match(std::string(Uid(*pod)),
                       std::regex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")));
  EXPECT_EQ(pod->at("apiVersion"), "v1");
  EXPECT_EQ(pod->at("kind"), "Pod");
}

// A snapshot's running pod comes back running, with fresh server metadata, in one write; what
// Create refuses, Restore refuses too.
TEST(MemoryClient, RestoreKeepsAPodsStatusInOneWrite) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  Result<std::unique_ptr<Watch>> watch = client.StartWatch(resources::kPods, {});
  ASSERT_THAT(watch, IsOk());
  Object pod = Pod("web-1");
  pod["metadata"]["uid"] = "from-the-snapshot";
  pod["metadata"]["resourceVersion"] = "987654";
  pod["metadata"]["managedFields"] = Object::array({{{"manager", "kubectl"}}});
  pod["spec"]["nodeName"] = "n1";
  pod["status"] = {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}};
  Result<SharedObject> restored = client.Restore(resources::kPods, pod);
  ASSERT_THAT(restored, IsOk());
  EXPECT_EQ((*restored)->at("status"), pod["status"]);
  EXPECT_EQ(StringAt(**restored, {"spec", "nodeName"}), "n1");
  EXPECT_NE(Uid(**restored), "from-the-snapshot");
  EXPECT_NE(ResourceVersion(**restored), "987654");
  EXPECT_FALSE((*restored)->at("metadata").contains("managedFields"));

  const Result<std::optional<WatchEvent>> added = (*watch)->Next(std::chrono::milliseconds(0));
  ASSERT_THAT(added, IsOk());
  ASSERT_TRUE(added->has_value());
  EXPECT_EQ((*added)->type, WatchEventType::kAdded);
  EXPECT_EQ((*added)->object->at("status").value("phase", ""), "Running");
  const Result<std::optional<WatchEvent>> more = (*watch)->Next(std::chrono::milliseconds(0));
  ASSERT_THAT(more, IsOk());
  EXPECT_FALSE(more->has_value());

  // Other kinds lose their status, as on create.
  Object budget = {{"metadata", {{"name", "b"}, {"namespace", "default"}}},
                   {"spec", {{"minAvailable", 1}}},
                   {"status", {{"disruptionsAllowed", 5}}}};
  Result<SharedObject> restored_budget = client.Restore(resources::kPodDisruptionBudgets, budget);
  ASSERT_THAT(restored_budget, IsOk());
  EXPECT_FALSE((*restored_budget)->contains("status"));

  Result<SharedObject> refused = client.Restore(resources::kPods, Pod("Not_A_Name"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().status, 422);
  EXPECT_THAT(refused.error().message, HasSubstr("Not_A_Name"));
}

TEST(MemoryClient, CreateSetsStatusLikeTheServer) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  Object pod = Pod("web-1");
  pod["status"] = {{"phase", "Running"}};
  EXPECT_EQ(client.Create(resources::kPods, pod, {})->at("status"), Object({{"phase", "Pending"}}));

  // Nodes register with their status.
  const Object node = {{"metadata", {{"name", "n1"}}}, {"status", {{"phase", "Running"}}}};
  EXPECT_EQ(client.Create(resources::kNodes, node, {})->at("status").value("phase", ""), "Running");

  Object budget = {{"metadata", {{"name", "b"}, {"namespace", "default"}}},
                   {"spec", {{"minAvailable", 1}}},
                   {"status", {{"disruptionsAllowed", 5}}}};
  EXPECT_FALSE(client.Create(resources::kPodDisruptionBudgets, budget, {})->contains("status"));
}

TEST(MemoryClient, ObjectsWithoutAGenerationKeepNone) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  const Object lease = {{"metadata", {{"name", "l"}, {"namespace", "default"}, {"generation", 7}}},
                        {"spec", {{"holderIdentity", "a"}}}};
  const Result<Object> created = client.Create(resources::kLeases, lease, {});
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(Generation(*created), 0);
  const Result<Object> patched =
      client.Patch(resources::kLeases, "default", "l", PatchType::kMerge,
                   {{"spec", {{"holderIdentity", "b"}}}}, Subresource::kNone);
  ASSERT_THAT(patched, IsOk());
  EXPECT_EQ(Generation(*patched), 0);
}

TEST(MemoryClient, MarkingForDeletionBumpsTheGeneration) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  Object pod = Pod("web-1");
  pod["metadata"]["finalizers"] = {"karpenter.sh/test"};
  ASSERT_THAT(client.Create(resources::kPods, pod, {}), IsOk());
  clock.Advance(std::chrono::seconds(30));
  ASSERT_THAT(client.Delete(resources::kPods, "default", "web-1", {}), IsOk());
  const Result<Object> deleting = client.Get(resources::kPods, "default", "web-1");
  ASSERT_THAT(deleting, IsOk());
  EXPECT_EQ(Generation(*deleting), 2);
  EXPECT_EQ(DeletionTimestamp(*deleting), "2026-01-01T00:00:30Z");
}

TEST(MemoryClient, UpdateCannotStartADeletion) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  Result<Object> pod = client.Create(resources::kPods, Pod("web-1"), {});
  ASSERT_THAT(pod, IsOk());
  (*pod)["metadata"]["deletionTimestamp"] = FormatTime(kStart);
  const Result<Object> updated = client.Update(resources::kPods, *pod, Subresource::kNone);
  ASSERT_FALSE(updated.ok());
  EXPECT_EQ(updated.error().status, 422);
  EXPECT_THAT(updated.error().message, HasSubstr("metadata.deletionTimestamp"));
}

TEST(MemoryClient, UnsupportedFieldSelectorsAreRefused) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  const Result<ObjectList> pods = client.List(resources::kPods, Fields("spec.priority=1"));
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.error().status, 400);
  EXPECT_EQ(pods.error().message, "field label not supported: spec.priority");
  const Result<ObjectList> leases =
      client.List(resources::kLeases, Fields("spec.holderIdentity=a"));
  ASSERT_FALSE(leases.ok());
  EXPECT_THAT(leases.error().message, HasSubstr("not a known field selector"));
}

TEST(MemoryClient, AbsentBooleansSelectAsFalse) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  ASSERT_THAT(client.Create(resources::kNodes, {{"metadata", {{"name", "a"}}}}, {}), IsOk());
  ASSERT_THAT(
      client.Create(resources::kNodes,
                    {{"metadata", {{"name", "b"}}}, {"spec", {{"unschedulable", true}}}}, {}),
      IsOk());
  const Result<ObjectList> schedulable =
      client.List(resources::kNodes, Fields("spec.unschedulable=false"));
  ASSERT_THAT(schedulable, IsOk());
  EXPECT_THAT(Names(*schedulable), ElementsAre("a"));
}

TEST(MemoryClient, CreateRefusesAResourceVersion) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  Object pod = Pod("web-1");
  pod["metadata"]["resourceVersion"] = "3";
  const Result<Object> created = client.Create(resources::kPods, pod, {});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().status, 500);
}

TEST(MemoryClient, WatchHistoryStartsAfterTheInitialObjects) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  const Result<std::unique_ptr<Watch>> expired =
      client.StartWatch(resources::kNamespaces, From("3"));
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().status, 410);
  EXPECT_EQ(expired.error().reason, "Expired");
  EXPECT_EQ(expired.error().message, "too old resource version: 3 (4)");
  EXPECT_THAT(client.StartWatch(resources::kNamespaces, From("4")), IsOk());
  EXPECT_EQ(client.StartWatch(resources::kPods, From("x")).error().status, 400);
}

TEST(MemoryClient, WatchThatFallsBehindTheHistoryExpires) {
  VirtualClock clock(kStart);
  MemoryClientOptions options;
  options.history_limit = 3;
  MemoryClient client(clock, options);
  Result<std::unique_ptr<Watch>> watch = client.StartWatch(resources::kPods, {});
  ASSERT_THAT(watch, IsOk());
  for (const char* name : {"a", "b", "c", "d"}) {
    ASSERT_THAT(client.Create(resources::kPods, Pod(name), {}), IsOk());
  }
  // Only the last three events are kept; the watch still needs the first.
  const Result<std::optional<WatchEvent>> next = (*watch)->Next(std::chrono::milliseconds(0));
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.error().status, 410);
  EXPECT_EQ(client.StartWatch(resources::kPods, From("4")).error().status, 410);
  EXPECT_THAT(client.StartWatch(resources::kPods, From("5")), IsOk());
}

TEST(MemoryClient, HeldHistoryWaitsForLiveWatchesOnly) {
  VirtualClock clock(kStart);
  MemoryClientOptions options;
  options.history_limit = 3;
  options.hold_history_for_watches = true;
  MemoryClient client(clock, options);
  Result<std::unique_ptr<Watch>> watch = client.StartWatch(resources::kPods, {});
  ASSERT_THAT(watch, IsOk());
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
  for (const std::string& name : names) {
    ASSERT_THAT(client.Create(resources::kPods, Pod(name), {}), IsOk());
  }
  // The live watch has read nothing yet: all six events wait for it.
  for (const std::string& name : names) {
    const Result<std::optional<WatchEvent>> next = (*watch)->Next(std::chrono::milliseconds(0));
    ASSERT_THAT(next, IsOk());
    ASSERT_TRUE(next->has_value());
    EXPECT_EQ(Name(*(*next)->object), name);
  }
  // Once it has read them, the history shrinks back to the limit with the next write, and a new
  // watch from before that expires as usual.
  (*watch).reset();
  ASSERT_THAT(client.Create(resources::kPods, Pod("g"), {}), IsOk());
  EXPECT_EQ(client.StartWatch(resources::kPods, From("5")).error().status, 410);
  EXPECT_THAT(client.StartWatch(resources::kPods, From("8")), IsOk());
}

TEST(MemoryClient, WatchFromZeroStartsWithTheCurrentObjects) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  ASSERT_THAT(client.Create(resources::kPods, Pod("web-1"), {}), IsOk());
  Result<std::unique_ptr<Watch>> watch = client.StartWatch(resources::kPods, From("0"));
  ASSERT_THAT(watch, IsOk());
  ASSERT_THAT(client.Create(resources::kPods, Pod("web-2"), {}), IsOk());
  std::vector<std::string> seen;
  while (true) {
    Result<std::optional<WatchEvent>> next = (*watch)->Next(std::chrono::milliseconds(0));
    ASSERT_THAT(next, IsOk());
    if (!next->has_value()) break;
    seen.emplace_back(Name(*(*next)->object));
    EXPECT_EQ((*next)->type, WatchEventType::kAdded);
  }
  EXPECT_THAT(seen, ElementsAre("web-1", "web-2"));
}

TEST(MemoryClient, NextWaitsForAWriteFromAnotherThread) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  Result<std::unique_ptr<Watch>> watch = client.StartWatch(resources::kPods, {});
  ASSERT_THAT(watch, IsOk());
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_THAT(client.Create(resources::kPods, Pod("web-1"), {}), IsOk());
  });
  const Result<std::optional<WatchEvent>> next = (*watch)->Next(std::chrono::seconds(10));
  writer.join();
  ASSERT_THAT(next, IsOk());
  ASSERT_TRUE(next->has_value());
  EXPECT_EQ(Name(*(*next)->object), "web-1");
}

TEST(MemoryClient, WatchOutlivesTheClient) {
  VirtualClock clock(kStart);
  auto client = std::make_unique<MemoryClient>(clock);
  Result<std::unique_ptr<Watch>> watch = client->StartWatch(resources::kPods, {});
  ASSERT_THAT(watch, IsOk());
  client.reset();
  const Result<std::optional<WatchEvent>> next = (*watch)->Next(std::chrono::milliseconds(0));
  ASSERT_THAT(next, IsOk());
  EXPECT_FALSE(next->has_value());
}

TEST(MemoryClient, ConcurrentWritersGetDistinctVersions) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&client] {
      Object pod = Pod("");
      pod["metadata"]["generateName"] = "web-";
      for (int i = 0; i < 50; ++i) EXPECT_THAT(client.Create(resources::kPods, pod, {}), IsOk());
    });
  }
  for (std::thread& writer : writers) writer.join();
  const Result<ObjectList> pods = client.List(resources::kPods, {});
  ASSERT_THAT(pods, IsOk());
  std::set<std::string> versions;
  for (const SharedObject& pod : pods->items) versions.emplace(ResourceVersion(*pod));
  EXPECT_EQ(pods->items.size(), 200u);
  EXPECT_EQ(versions.size(), 200u);
}

TEST(MemoryClient, DeletingANamespaceDeletesItsObjects) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  ASSERT_THAT(client.Create(resources::kNamespaces, {{"metadata", {{"name", "team"}}}}, {}),
              IsOk());
  Object pod = Pod("web-1");
  pod["metadata"]["namespace"] = "team";
  ASSERT_THAT(client.Create(resources::kPods, pod, {}), IsOk());
  Object held = Pod("web-2");
  held["metadata"]["namespace"] = "team";
  held["metadata"]["finalizers"] = {"karpenter.sh/test"};
  ASSERT_THAT(client.Create(resources::kPods, held, {}), IsOk());

  ASSERT_THAT(client.Delete(resources::kNamespaces, "", "team", {}), IsOk());
  EXPECT_FALSE(client.Get(resources::kPods, "team", "web-1").ok());
  const Result<Object> terminating = client.Get(resources::kNamespaces, "", "team");
  ASSERT_THAT(terminating, IsOk());
  EXPECT_EQ(terminating->at("status").value("phase", ""), "Terminating");
  Object late = Pod("web-3");
  late["metadata"]["namespace"] = "team";
  const Result<Object> refused = client.Create(resources::kPods, late, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().status, 403);

  ASSERT_THAT(client.Patch(resources::kPods, "team", "web-2", PatchType::kMerge,
                           {{"metadata", {{"finalizers", nullptr}}}}, Subresource::kNone),
              IsOk());
  EXPECT_EQ(client.Get(resources::kNamespaces, "", "team").error().status, 404);
}

TEST(MemoryClient, EvictionUnderABrokenBudgetIsRefused) {
  VirtualClock clock(kStart);
  MemoryClient client(clock);
  ASSERT_THAT(client.Create(resources::kPods, Pod("web-1", {{"app", "web"}}), {}), IsOk());
  ASSERT_THAT(client.Patch(resources::kPods, "default", "web-1", PatchType::kMerge,
                           {{"status", {{"phase", "Running"}}}}, Subresource::kStatus),
              IsOk());
  const Object budget = {
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec", {{"minAvailable", "half"}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
  ASSERT_THAT(client.Create(resources::kPodDisruptionBudgets, budget, {}), IsOk());
  const Status evicted = client.Evict("default", "web-1", {});
  ASSERT_FALSE(evicted.ok());
  EXPECT_EQ(evicted.error().status, 429);
  EXPECT_THAT(evicted.error().message, HasSubstr("budget web"));
}

}  // namespace
}  // namespace karpenter::kube::memory
