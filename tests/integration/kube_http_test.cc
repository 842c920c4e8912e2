// kube/http against the test cluster (scripts/testenv/up; CTest starts it before these tests):
// reads, writes, pagination, watches, error mapping, and the ways of authenticating. Every test
// works in a namespace of its own, deleted at the end, with pods that no node can take
// (nodeSelector contract-test: never), so nothing runs them and nothing else changes them.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.h"
#include "kube/http/config.h"
#include "kube/http/http_client.h"
#include "kube/object.h"
#include "kube/resource.h"
#include "support/matchers.h"
#include "support/self_signed.h"

namespace karpenter::kube::http {
namespace {

using std::chrono::milliseconds;
using testing::HasSubstr;
using testing::StartsWith;

constexpr const char* kKubeconfig = KARPENTER_TESTENV_KUBECONFIG;

// The kubeconfig's folder, where `up` also writes the bearer token.
std::string TestenvDir() { return std::filesystem::path(kKubeconfig).parent_path().string(); }

class KubeHttpTest : public testing::Test {
 protected:
  void SetUp() override {
    Result<Config> config = LoadKubeconfig(kKubeconfig);
    ASSERT_THAT(config, IsOk()) << config.error().message
                                << " (is the test cluster up? scripts/testenv/up " << TestenvDir()
                                << ")";
    config_ = *config;
    Result<std::unique_ptr<Client>> client = NewClient(config_);
    ASSERT_THAT(client, IsOk());
    client_ = std::move(*client);

    std::random_device random;
    namespace_ = "kube-http-" + std::to_string(random() % 1'000'000);
    Result<Object> created = client_->Create(
        resources::kNamespaces, {{"metadata", {{"name", namespace_}}}}, WriteOptions{});
    ASSERT_THAT(created, IsOk());
  }

  void TearDown() override {
    if (client_ != nullptr && !namespace_.empty()) {
      // The namespace controller removes what is left in it.
      (void)client_->Delete(resources::kNamespaces, "", namespace_, DeleteOptions{});
    }
  }

  Object Pod(const std::string& name, const Object& labels = Object::object()) const {
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", namespace_}, {"labels", labels}}},
            {"spec",
             {{"nodeSelector", {{"contract-test", "never"}}},
              {"containers", {{{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}}}}}}};
  }

  Object MustCreate(const Object& object) {
    Result<Object> created = client_->Create(resources::kPods, object, WriteOptions{});
    EXPECT_THAT(created, IsOk());
    return created.ok() ? *created : Object();
  }

  // The scheduler writes a PodScheduled=False condition to each new pod shortly after it is
  // created; tests that depend on an unchanged resourceVersion wait for that write first.
  Object CreateAndWaitForScheduler(const Object& pod) {
    MustCreate(pod);
    const std::string name = pod["metadata"]["name"];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      Result<Object> got = client_->Get(resources::kPods, namespace_, name);
      if (got.ok()) {
        for (const Object& condition : (*got)["status"].value("conditions", Object::array())) {
          if (condition.value("type", "") == "PodScheduled") return *got;
        }
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
    ADD_FAILURE() << "the scheduler did not look at pod " << name;
    return Object();
  }

  std::string CurrentVersion() {
    ListOptions options;
    options.namespace_ = namespace_;
    Result<ObjectList> list = client_->List(resources::kPods, options);
    EXPECT_THAT(list, IsOk());
    return list.ok() ? list->resource_version : "";
  }

  WatchOptions WatchFrom(const std::string& resource_version) const {
    WatchOptions options;
    options.namespace_ = namespace_;
    options.resource_version = resource_version;
    return options;
  }

  // Events until `stop` says so or 30 s pass; bookmarks are left out.
  static std::vector<WatchEvent> Collect(Watch& watch,
                                         const std::function<bool(const WatchEvent&)>& stop) {
    std::vector<WatchEvent> events;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      Result<std::optional<WatchEvent>> next = watch.Next(milliseconds(500));
      if (!next.ok()) {
        ADD_FAILURE() << "watch ended: " << next.error().message;
        break;
      }
      if (!next->has_value() || (*next)->type == WatchEventType::kBookmark) continue;
      events.push_back(std::move(**next));
      if (stop(events.back())) break;
    }
    return events;
  }

  Config config_;
  std::unique_ptr<Client> client_;
  std::string namespace_;
};

TEST_F(KubeHttpTest, ListsNamespaces) {
  Result<ObjectList> list = client_->List(resources::kNamespaces, ListOptions{});
  ASSERT_THAT(list, IsOk());
  std::set<std::string> names;
  for (const SharedObject& shared : list->items) {
    const Object& item = *shared;
    names.emplace(Name(item));
    EXPECT_EQ(item["kind"], "Namespace");
    EXPECT_EQ(item["apiVersion"], "v1");
  }
  EXPECT_TRUE(names.count("default"));
  EXPECT_TRUE(names.count("kube-system"));
  EXPECT_TRUE(names.count(namespace_));
  EXPECT_FALSE(list->resource_version.empty());
}

TEST_F(KubeHttpTest, CreatesGetsUpdatesPatchesAndDeletesAPod) {
  const Object created = CreateAndWaitForScheduler(Pod("web", {{"app", "web"}}));
  ASSERT_FALSE(Uid(created).empty());
  ASSERT_FALSE(ResourceVersion(created).empty());

  Result<Object> got = client_->Get(resources::kPods, namespace_, "web");
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(Uid(*got), Uid(created));
  EXPECT_EQ(got->value("kind", ""), "Pod");

  Object changed = *got;
  changed["metadata"]["labels"]["tier"] = "front";
  Result<Object> updated = client_->Update(resources::kPods, changed, Subresource::kNone);
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(Label(*updated, "tier"), "front");
  EXPECT_NE(ResourceVersion(*updated), ResourceVersion(*got));

  // The version read before the update is stale now.
  Result<Object> stale = client_->Update(resources::kPods, changed, Subresource::kNone);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().status, 409);
  EXPECT_EQ(stale.error().reason, "Conflict");
  EXPECT_THAT(stale.error().message,
              StartsWith("PUT /api/v1/namespaces/" + namespace_ + "/pods/web: "));

  Result<Object> merged = client_->Patch(
      resources::kPods, namespace_, "web", PatchType::kMerge,
      {{"metadata", {{"labels", {{"tier", nullptr}, {"patched", "yes"}}}}}}, Subresource::kNone);
  ASSERT_THAT(merged, IsOk());
  EXPECT_EQ(Label(*merged, "patched"), "yes");
  EXPECT_EQ(Label(*merged, "tier"), "");

  // A JSON patch guarded by the resourceVersion: applies once, then the guard fails.
  const Object guarded = Object::array(
      {{{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", ResourceVersion(*merged)}},
       {{"op", "add"}, {"path", "/metadata/annotations"}, {"value", {{"note", "json-patch"}}}}});
  Result<Object> json_patched = client_->Patch(resources::kPods, namespace_, "web",
                                               PatchType::kJson, guarded, Subresource::kNone);
  ASSERT_THAT(json_patched, IsOk());
  EXPECT_EQ(Annotation(*json_patched, "note"), "json-patch");
  Result<Object> replayed = client_->Patch(resources::kPods, namespace_, "web", PatchType::kJson,
                                           guarded, Subresource::kNone);
  ASSERT_FALSE(replayed.ok());
  EXPECT_GE(replayed.error().status, 400);
  EXPECT_LT(replayed.error().status, 500);

  // Writes to the status subresource leave the spec alone, and writes to the pod its status.
  Result<Object> status = client_->Patch(
      resources::kPods, namespace_, "web", PatchType::kMerge,
      {{"spec", {{"activeDeadlineSeconds", 30}}}, {"status", {{"message", "checked"}}}},
      Subresource::kStatus);
  ASSERT_THAT(status, IsOk());
  EXPECT_EQ((*status)["status"].value("message", ""), "checked");
  EXPECT_FALSE((*status)["spec"].contains("activeDeadlineSeconds"));
  Result<Object> main = client_->Patch(resources::kPods, namespace_, "web", PatchType::kMerge,
                                       {{"status", {{"message", "ignored"}}}}, Subresource::kNone);
  ASSERT_THAT(main, IsOk());
  EXPECT_EQ((*main)["status"].value("message", ""), "checked");
  Object with_status = *main;
  with_status["status"]["message"] = "replaced";
  Result<Object> status_update =
      client_->Update(resources::kPods, with_status, Subresource::kStatus);
  ASSERT_THAT(status_update, IsOk());
  EXPECT_EQ((*status_update)["status"].value("message", ""), "replaced");

  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "00000000-0000-0000-0000-000000000000";
  Status refused = client_->Delete(resources::kPods, namespace_, "web", wrong_uid);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().status, 409);

  DeleteOptions now;
  now.precondition_uid = std::string(Uid(created));
  now.grace_period_seconds = 0;
  Status deleted = client_->Delete(resources::kPods, namespace_, "web", now);
  ASSERT_THAT(deleted, IsOk());
  Result<Object> gone = client_->Get(resources::kPods, namespace_, "web");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().status, 404);
}

TEST_F(KubeHttpTest, MapsNotFoundAndAlreadyExists) {
  Result<Object> missing = client_->Get(resources::kPods, namespace_, "missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().status, 404);
  EXPECT_EQ(missing.error().reason, "NotFound");
  EXPECT_EQ(missing.error().message,
            "GET /api/v1/namespaces/" + namespace_ + "/pods/missing: pods \"missing\" not found");

  MustCreate(Pod("twice"));
  Result<Object> again = client_->Create(resources::kPods, Pod("twice"), WriteOptions{});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().status, 409);
  EXPECT_EQ(again.error().reason, "AlreadyExists");

  Status delete_missing = client_->Delete(resources::kPods, namespace_, "missing", {});
  ASSERT_FALSE(delete_missing.ok());
  EXPECT_EQ(delete_missing.error().status, 404);

  Result<Object> invalid = client_->Create(resources::kPods, Pod("Not_A_Valid_Name"), {});
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().status, 422);
  EXPECT_EQ(invalid.error().reason, "Invalid");
}

TEST_F(KubeHttpTest, ADryRunCreateStoresNothing) {
  WriteOptions dry_run;
  dry_run.dry_run = true;
  Result<Object> created = client_->Create(resources::kPods, Pod("dry"), dry_run);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(Name(*created), "dry");
  Result<Object> got = client_->Get(resources::kPods, namespace_, "dry");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().status, 404);
}

TEST_F(KubeHttpTest, ListFetchesEveryPage) {
  for (int i = 0; i < 5; ++i) MustCreate(Pod("paged-" + std::to_string(i), {{"set", "paged"}}));
  MustCreate(Pod("other"));
  ListOptions options;
  options.namespace_ = namespace_;
  options.label_selector = "set in (paged)";
  options.page_size = 2;
  Result<ObjectList> list = client_->List(resources::kPods, options);
  ASSERT_THAT(list, IsOk());
  std::set<std::string> names;
  for (const SharedObject& shared : list->items) {
    const Object& item = *shared;
    names.emplace(Name(item));
    EXPECT_EQ(item["kind"], "Pod");
  }
  EXPECT_EQ(names, (std::set<std::string>{"paged-0", "paged-1", "paged-2", "paged-3", "paged-4"}));
  EXPECT_FALSE(list->resource_version.empty());

  options.label_selector.clear();
  options.field_selector = "metadata.name=other";
  Result<ObjectList> by_field = client_->List(resources::kPods, options);
  ASSERT_THAT(by_field, IsOk());
  ASSERT_EQ(by_field->items.size(), 1u);
  EXPECT_EQ(Name((*by_field->items[0])), "other");
}

TEST_F(KubeHttpTest, AWatchDeliversAddedModifiedAndDeleted) {
  const std::string version = CurrentVersion();
  Result<std::unique_ptr<Watch>> watch = client_->StartWatch(resources::kPods, WatchFrom(version));
  ASSERT_THAT(watch, IsOk());

  MustCreate(Pod("watched"));
  ASSERT_THAT(client_->Patch(resources::kPods, namespace_, "watched", PatchType::kMerge,
                             {{"metadata", {{"labels", {{"seen", "yes"}}}}}}, Subresource::kNone),
              IsOk());
  DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_THAT(client_->Delete(resources::kPods, namespace_, "watched", now), IsOk());

  const std::vector<WatchEvent> events = Collect(
      **watch, [](const WatchEvent& event) { return event.type == WatchEventType::kDeleted; });
  // The scheduler's status write may add MODIFIED events of its own.
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front().type, WatchEventType::kAdded);
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [](const WatchEvent& event) {
    return event.type == WatchEventType::kModified && Label(*event.object, "seen") == "yes";
  }));
  EXPECT_EQ(events.back().type, WatchEventType::kDeleted);
  for (const WatchEvent& event : events) {
    EXPECT_EQ(Name(*event.object), "watched");
    EXPECT_EQ((*event.object)["kind"], "Pod");
  }
}

TEST_F(KubeHttpTest, AWatchFromNowSkipsWhatExists) {
  CreateAndWaitForScheduler(Pod("before"));
  Result<std::unique_ptr<Watch>> watch = client_->StartWatch(resources::kPods, WatchFrom(""));
  ASSERT_THAT(watch, IsOk());
  MustCreate(Pod("after"));
  const std::vector<WatchEvent> events = Collect(**watch, [](const WatchEvent& event) {
    return event.type == WatchEventType::kAdded && Name(*event.object) == "after";
  });
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(Name(*events.back().object), "after");
  for (const WatchEvent& event : events) {
    EXPECT_FALSE(event.type == WatchEventType::kAdded && Name(*event.object) == "before");
  }
}

// Version 1 is too old only once etcd has compacted it and no watch cache still holds it; the test
// cluster compacts every 10 s and keeps no watch cache for pods (scripts/testenv/up:
// --etcd-compaction-interval, --watch-cache-sizes pods#0), so this waits up to a minute for that.
TEST_F(KubeHttpTest, AWatchFromATooOldVersionIsExpired) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  Error error;
  while (std::chrono::steady_clock::now() < deadline) {
    Result<std::unique_ptr<Watch>> watch = client_->StartWatch(resources::kPods, WatchFrom("1"));
    // The server may refuse at once or (usually) send an ERROR event first; both are a 410.
    if (!watch.ok()) {
      error = watch.error();
    } else {
      Result<std::optional<WatchEvent>> next = (*watch)->Next(milliseconds(2000));
      if (next.ok()) {  // replayed history or silence: not compacted yet
        std::this_thread::sleep_for(milliseconds(2000));
        continue;
      }
      error = next.error();
    }
    break;
  }
  ASSERT_NE(error.status, 0) << (error.message.empty()
                                     ? "no 410 within a minute: the test cluster's kube-apiserver "
                                       "needs --etcd-compaction-interval 10s and "
                                       "--watch-cache-sizes pods#0"
                                     : error.message);
  EXPECT_EQ(error.status, 410) << error.message;
  EXPECT_EQ(error.reason, "Expired");
  EXPECT_THAT(error.message, StartsWith("watch /api/v1/namespaces/" + namespace_ + "/pods: "));
}

TEST_F(KubeHttpTest, DestroyingAWatchIsPrompt) {
  Result<std::unique_ptr<Watch>> watch =
      client_->StartWatch(resources::kPods, WatchFrom(CurrentVersion()));
  ASSERT_THAT(watch, IsOk());
  const auto start = std::chrono::steady_clock::now();
  watch->reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));
}

TEST_F(KubeHttpTest, EvictsAPod) {
  MustCreate(Pod("evicted"));
  DeleteOptions now;
  now.grace_period_seconds = 0;
  Status evicted = client_->Evict(namespace_, "evicted", now);
  ASSERT_THAT(evicted, IsOk());
  Result<Object> gone = client_->Get(resources::kPods, namespace_, "evicted");
  EXPECT_TRUE(!gone.ok() || !DeletionTimestamp(*gone).empty());

  Status missing = client_->Evict(namespace_, "missing", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().status, 404);
}

TEST_F(KubeHttpTest, IsSafeToShareBetweenThreads) {
  MustCreate(Pod("shared"));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        if (!client_->Get(resources::kPods, namespace_, "shared").ok()) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(KubeHttpTest, AuthenticatesWithABearerToken) {
  const std::string token_file = TestenvDir() + "/token";
  ASSERT_TRUE(std::filesystem::exists(token_file)) << token_file;
  Config config;
  config.server = config_.server;
  config.certificate_authority = config_.certificate_authority;
  config.bearer_token_file = token_file;
  Result<std::unique_ptr<Client>> client = NewClient(config);
  ASSERT_THAT(client, IsOk());
  Result<Object> ns = (*client)->Get(resources::kNamespaces, "", namespace_);
  ASSERT_THAT(ns, IsOk());
  EXPECT_EQ(Name(*ns), namespace_);

  config.bearer_token_file.clear();
  config.bearer_token = "not-the-token";
  Result<std::unique_ptr<Client>> wrong = NewClient(config);
  ASSERT_THAT(wrong, IsOk());
  Result<Object> refused = (*wrong)->Get(resources::kNamespaces, "", namespace_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().status, 401);
  EXPECT_EQ(refused.error().reason, "Unauthorized");
  EXPECT_THAT(refused.error().message, testing::Not(HasSubstr("not-the-token")));
}

TEST_F(KubeHttpTest, AWrongCaFailsTheTlsHandshake) {
  Config config = config_;
  // A self-signed certificate the test cluster's server certificate does not chain to.
  config.certificate_authority = support::MakeSelfSigned("unrelated-ca").certificate_pem;
  Result<std::unique_ptr<Client>> client = NewClient(config);
  ASSERT_THAT(client, IsOk());
  Result<Object> ns = (*client)->Get(resources::kNamespaces, "", "default");
  ASSERT_FALSE(ns.ok());
  EXPECT_EQ(ns.error().status, 0);
  EXPECT_EQ(ns.error().reason, "Unavailable");
  EXPECT_THAT(ns.error().message, StartsWith("GET /api/v1/namespaces/default: "));
  EXPECT_THAT(ns.error().message, HasSubstr("certificate"));
}

}  // namespace
}  // namespace karpenter::kube::http
