// The informer on the memory store, driven deterministically with Sync and Pump from the test's
// thread.

#include "kube/informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/clock.h"
#include "kube/memory/memory_client.h"
#include "support/matchers.h"

namespace karpenter::kube {
namespace {

using std::chrono::milliseconds;
using testing::ElementsAre;
using testing::IsEmpty;
using testing::UnorderedElementsAre;

constexpr TimePoint kStart{std::chrono::seconds(1767225600)};  // 2026-01-01T00:00:00Z

Object Pod(std::string_view name, std::string_view node = "",
           const Object& labels = Object::object()) {
  Object spec = {{"containers", {{{"name", "main"}, {"image", "pause"}}}}};
  if (!node.empty()) spec["nodeName"] = node;
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
          {"spec", spec}};
}

std::vector<std::string> NodeNameIndex(const Object& pod) {
  const std::string node = pod.value("spec", Object::object()).value("nodeName", "");
  if (node.empty()) return {};
  return {node};
}

std::string TypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
    case WatchEventType::kBookmark:
      return "BOOKMARK";
  }
  return "?";
}

std::vector<std::string> Names(const std::vector<Object>& objects) {
  std::vector<std::string> out;
  for (const Object& object : objects) out.emplace_back(Name(object));
  return out;
}

class InformerTest : public testing::Test {
 protected:
  explicit InformerTest(memory::MemoryClientOptions options = {}) : client_(clock_, options) {}

  // An informer of pods that records what its handler hears ("ADDED default/a") and indexes pods
  // by node.
  std::unique_ptr<Informer> PodInformer(ListOptions options = {}) {
    auto informer = std::make_unique<Informer>(client_, resources::kPods, std::move(options));
    informer->AddHandler([this](WatchEventType type, const Object& object) {
      heard_.push_back(TypeName(type) + " " + Key(object));
    });
    informer->AddIndex("by-node", NodeNameIndex);
    return informer;
  }

  Object Create(const Object& object) {
    Result<Object> created = client_.Create(resources::kPods, object, {});
    EXPECT_THAT(created, IsOk());
    return created.ok() ? *created : Object();
  }

  void Relabel(std::string_view name, std::string_view value) {
    Result<Object> patched =
        client_.Patch(resources::kPods, "default", name, PatchType::kMerge,
                      {{"metadata", {{"labels", {{"v", value}}}}}}, Subresource::kNone);
    ASSERT_THAT(patched, IsOk());
  }

  void MoveTo(std::string_view name, std::string_view node) {
    Result<Object> patched = client_.Patch(resources::kPods, "default", name, PatchType::kMerge,
                                           {{"spec", {{"nodeName", node}}}}, Subresource::kNone);
    ASSERT_THAT(patched, IsOk());
  }

  void Delete(std::string_view name) {
    Status deleted = client_.Delete(resources::kPods, "default", name, {});
    ASSERT_THAT(deleted, IsOk());
  }

  size_t Pump(Informer& informer) {
    Result<size_t> pumped = informer.Pump(milliseconds(0));
    EXPECT_THAT(pumped, IsOk());
    return pumped.ok() ? *pumped : 0;
  }

  VirtualClock clock_{kStart};
  memory::MemoryClient client_;
  std::vector<std::string> heard_;
};

TEST_F(InformerTest, SyncListsEverythingAndHandlersHearAdds) {
  Create(Pod("b"));
  Create(Pod("a", "node-1"));
  const auto informer = PodInformer();
  EXPECT_FALSE(informer->synced());
  EXPECT_EQ(informer->size(), 0u);
  ASSERT_THAT(informer->Sync(), IsOk());
  EXPECT_TRUE(informer->synced());
  EXPECT_EQ(informer->size(), 2u);
  EXPECT_THAT(heard_, ElementsAre("ADDED default/a", "ADDED default/b"));
  const std::optional<Object> a = informer->Get("default/a");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ((*a)["spec"]["nodeName"], "node-1");
  EXPECT_FALSE(informer->Get("default/missing").has_value());
  EXPECT_FALSE(informer->Get("a").has_value());  // keys are namespace/name
  std::vector<std::string> keys;
  informer->ForEach([&](const Object& object) { keys.push_back(Key(object)); });
  EXPECT_THAT(keys, ElementsAre("default/a", "default/b"));
  EXPECT_EQ(informer->resource(), resources::kPods);
}

TEST_F(InformerTest, WatchEventsUpdateTheCacheAndReachHandlersInOrder) {
  Create(Pod("a"));
  Create(Pod("b"));
  const auto informer = PodInformer();
  // What the cache holds when a handler runs: it has applied the event already.
  std::vector<std::string> cached_versions;
  informer->AddHandler([&](WatchEventType, const Object& object) {
    const std::optional<Object> cached = informer->Get(Key(object));
    cached_versions.push_back(cached ? std::string(ResourceVersion(*cached)) : "gone");
  });
  ASSERT_THAT(informer->Sync(), IsOk());
  heard_.clear();
  cached_versions.clear();

  Create(Pod("c"));
  Relabel("a", "2");
  Delete("b");  // a pod: MODIFIED (deletionTimestamp set), then DELETED
  Relabel("c", "3");
  EXPECT_EQ(Pump(*informer), 5u);
  EXPECT_THAT(heard_, ElementsAre("ADDED default/c", "MODIFIED default/a", "MODIFIED default/b",
                                  "DELETED default/b", "MODIFIED default/c"));
  EXPECT_EQ(informer->size(), 2u);
  EXPECT_EQ(Label(*informer->Get("default/a"), "v"), "2");
  EXPECT_EQ(Label(*informer->Get("default/c"), "v"), "3");
  EXPECT_FALSE(informer->Get("default/b").has_value());
  // The cached object is the stored one, resourceVersion and all.
  const Result<Object> stored = client_.Get(resources::kPods, "default", "c");
  ASSERT_THAT(stored, IsOk());
  EXPECT_EQ(*informer->Get("default/c"), *stored);
  ASSERT_EQ(cached_versions.size(), 5u);
  EXPECT_EQ(cached_versions[3], "gone");
  EXPECT_EQ(cached_versions[4], ResourceVersion(*stored));

  EXPECT_EQ(Pump(*informer), 0u);
  EXPECT_EQ(heard_.size(), 5u);
}

TEST_F(InformerTest, DeletedEventCarriesTheLastState) {
  Create(Pod("a"));
  const auto informer = PodInformer();
  Object last;
  informer->AddHandler([&](WatchEventType type, const Object& object) {
    if (type == WatchEventType::kDeleted) last = object;
  });
  ASSERT_THAT(informer->Sync(), IsOk());
  Relabel("a", "final");
  Delete("a");
  Pump(*informer);
  EXPECT_EQ(Name(last), "a");
  EXPECT_EQ(Label(last, "v"), "final");
}

TEST_F(InformerTest, IndexesFollowChanges) {
  Create(Pod("a", "node-1"));
  Create(Pod("b", "node-1"));
  Create(Pod("c"));
  const auto informer = PodInformer();
  ASSERT_THAT(informer->Sync(), IsOk());
  EXPECT_THAT(Names(informer->ByIndex("by-node", "node-1")), UnorderedElementsAre("a", "b"));
  EXPECT_THAT(informer->ByIndex("by-node", "node-2"), IsEmpty());
  EXPECT_THAT(informer->ByIndex("no-such-index", "node-1"), IsEmpty());

  MoveTo("a", "node-2");
  MoveTo("c", "node-2");
  Create(Pod("d", "node-1"));
  Pump(*informer);
  EXPECT_THAT(Names(informer->ByIndex("by-node", "node-1")), UnorderedElementsAre("b", "d"));
  EXPECT_THAT(Names(informer->ByIndex("by-node", "node-2")), UnorderedElementsAre("a", "c"));

  // A change elsewhere in the object keeps it indexed once, with its new state.
  Relabel("a", "7");
  Delete("b");
  Delete("d");
  Pump(*informer);
  EXPECT_THAT(informer->ByIndex("by-node", "node-1"), IsEmpty());
  const std::vector<Object> on_node_2 = informer->ByIndex("by-node", "node-2");
  ASSERT_THAT(Names(on_node_2), UnorderedElementsAre("a", "c"));
  for (const Object& pod : on_node_2) {
    if (Name(pod) == "a") {
      EXPECT_EQ(Label(pod, "v"), "7");
    }
  }
}

TEST_F(InformerTest, ListOptionsSelectWhatIsCached) {
  Create(Pod("web-1", "", {{"app", "web"}}));
  Create(Pod("db-1", "", {{"app", "db"}}));
  ListOptions options;
  options.label_selector = "app=web";
  const auto informer = PodInformer(options);
  ASSERT_THAT(informer->Sync(), IsOk());
  EXPECT_THAT(heard_, ElementsAre("ADDED default/web-1"));
  Create(Pod("web-2", "", {{"app", "web"}}));
  Create(Pod("db-2", "", {{"app", "db"}}));
  Pump(*informer);
  EXPECT_THAT(heard_, ElementsAre("ADDED default/web-1", "ADDED default/web-2"));
  EXPECT_EQ(informer->size(), 2u);
}

TEST_F(InformerTest, PumpBeforeSyncSyncsFirst) {
  Create(Pod("a"));
  const auto informer = PodInformer();
  EXPECT_EQ(Pump(*informer), 0u);
  EXPECT_TRUE(informer->synced());
  EXPECT_THAT(heard_, ElementsAre("ADDED default/a"));
  Create(Pod("b"));
  EXPECT_EQ(Pump(*informer), 1u);
}

TEST_F(InformerTest, PumpWithZeroTimeoutDoesNotBlock) {
  const auto informer = PodInformer();
  ASSERT_THAT(informer->Sync(), IsOk());
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(Pump(*informer), 0u);
  // A hundred empty pumps; one blocking pump would take the watch's whole wait.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
}

TEST_F(InformerTest, SecondSyncReportsOnlyDifferences) {
  Create(Pod("a"));
  Create(Pod("b"));
  const auto informer = PodInformer();
  ASSERT_THAT(informer->Sync(), IsOk());
  heard_.clear();
  Relabel("a", "1");
  Delete("b");
  Create(Pod("c"));
  // A relist, without pumping the events: deletions first, then adds and changes.
  ASSERT_THAT(informer->Sync(), IsOk());
  EXPECT_THAT(heard_, ElementsAre("DELETED default/b", "MODIFIED default/a", "ADDED default/c"));
  // The new watch starts after the relist: nothing is heard twice.
  EXPECT_EQ(Pump(*informer), 0u);
  EXPECT_EQ(heard_.size(), 3u);
}

// A store that keeps only three events of history, so a watch that falls behind gets 410.
class InformerRelistTest : public InformerTest {
 protected:
  InformerRelistTest() : InformerTest(memory::MemoryClientOptions{.history_limit = 3}) {}
};

TEST_F(InformerRelistTest, RelistAfterExpiredWatchDeliversDeletions) {
  Create(Pod("a", "node-1"));
  Create(Pod("b", "node-1"));
  const auto informer = PodInformer();
  ASSERT_THAT(informer->Sync(), IsOk());
  heard_.clear();

  // More events than the history keeps: the informer's watch falls behind.
  Delete("a");  // MODIFIED (deletionTimestamp) and DELETED
  Create(Pod("c"));
  Relabel("b", "1");
  Relabel("b", "2");
  Pump(*informer);  // the watch expired: the informer relists
  EXPECT_THAT(heard_, ElementsAre("DELETED default/a", "MODIFIED default/b", "ADDED default/c"));
  EXPECT_FALSE(informer->Get("default/a").has_value());
  EXPECT_EQ(Label(*informer->Get("default/b"), "v"), "2");
  EXPECT_THAT(Names(informer->ByIndex("by-node", "node-1")), ElementsAre("b"));

  // And it watches again from the relist.
  heard_.clear();
  Create(Pod("d"));
  EXPECT_EQ(Pump(*informer), 1u);
  EXPECT_THAT(heard_, ElementsAre("ADDED default/d"));
}

}  // namespace
}  // namespace karpenter::kube
