#include "kube/client_contract.h"

#include <fmt/format.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>

#include "common/clock.h"

namespace karpenter::kube::contract {
namespace {

using ::testing::AssertionFailure;
using ::testing::AssertionResult;
using ::testing::AssertionSuccess;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Long enough for a real server under load; the memory store answers at once.
constexpr std::chrono::milliseconds kEventWait = std::chrono::seconds(10);
constexpr std::chrono::milliseconds kQuietWait = std::chrono::milliseconds(200);
constexpr std::string_view kFinalizer = "karpenter.sh/contract-test";

template <class T>
AssertionResult IsOk(const Result<T>& result) {
  if (result.ok()) return AssertionSuccess();
  const Error& error = result.error();
  return AssertionFailure() << "error " << error.status << " " << error.reason << ": "
                            << error.message;
}

template <class T>
AssertionResult IsError(const Result<T>& result, int status, std::string_view reason) {
  if (result.ok()) return AssertionFailure() << "succeeded; want " << status << " " << reason;
  const Error& error = result.error();
  if (error.status == status && error.reason == reason) return AssertionSuccess();
  return AssertionFailure() << "error " << error.status << " " << error.reason << ": "
                            << error.message << "; want " << status << " " << reason;
}

std::vector<std::string> Names(const ObjectList& list) {
  std::vector<std::string> names;
  for (const SharedObject& item : list.items) names.emplace_back(Name(*item));
  return names;
}

std::string_view TypeName(WatchEventType type) {
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

// The next event that is not a bookmark, failing when none arrives in time.
AssertionResult NextEvent(Watch& watch, WatchEvent& event) {
  while (true) {
    Result<std::optional<WatchEvent>> next = watch.Next(kEventWait);
    if (!next.ok()) return IsOk(next);
    if (!next->has_value())
      return AssertionFailure() << "no event within " << kEventWait.count() << "ms";
    if ((*next)->type == WatchEventType::kBookmark) continue;
    event = std::move(**next);
    return AssertionSuccess();
  }
}

// "ADDED web-1": what a test expects of an event.
std::string Describe(const WatchEvent& event) {
  return std::string(TypeName(event.type)) + " " + std::string(Name(*event.object));
}

AssertionResult NoMoreEvents(Watch& watch) {
  Result<std::optional<WatchEvent>> next = watch.Next(kQuietWait);
  if (!next.ok()) return IsOk(next);
  if (next->has_value() && (*next)->type != WatchEventType::kBookmark) {
    return AssertionFailure() << "unexpected event " << Describe(**next);
  }
  return AssertionSuccess();
}

Object LabelsPatch(const Object& labels) { return {{"metadata", {{"labels", labels}}}}; }

ListOptions Listing(std::string namespace_, std::string label_selector = "",
                    std::string field_selector = "") {
  ListOptions options;
  options.namespace_ = std::move(namespace_);
  options.label_selector = std::move(label_selector);
  options.field_selector = std::move(field_selector);
  return options;
}

// Without bookmarks, so that a quiet watch is silent.
WatchOptions Watching(std::string namespace_, std::string resource_version,
                      std::string label_selector = "") {
  WatchOptions options;
  options.namespace_ = std::move(namespace_);
  options.resource_version = std::move(resource_version);
  options.label_selector = std::move(label_selector);
  options.allow_bookmarks = false;
  return options;
}

DeleteOptions Preconditions(std::string uid, std::string resource_version = "") {
  DeleteOptions options;
  options.precondition_uid = std::move(uid);
  options.precondition_resource_version = std::move(resource_version);
  return options;
}

constexpr std::string_view kWrongUid = "00000000-0000-0000-0000-000000000000";

}  // namespace

void ClientContract::SetUp() {
  harness_ = GetParam()();
  env_ = {&harness_->client(), harness_->FreshNamespace()};
}

void ClientContract::TearDown() {
  for (const std::string& node : nodes_) {
    const Status deleted = client().Delete(resources::kNodes, "", node, {});
    (void)deleted;  // best effort: the test may have deleted it already
  }
}

Object ClientContract::PodManifest(std::string_view name, const Object& labels) const {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", env_.namespace_}, {"labels", labels}}},
      {"spec",
       {{"schedulerName", "contract-test-none"},
        {"nodeSelector", {{"contract-test", "never"}}},
        {"containers", {{{"name", "main"}, {"image", "registry.k8s.io/pause:3.10"}}}}}},
  };
}

Result<Object> ClientContract::CreateOnceAdmitted(
    Object pod, std::string_view name, const std::function<bool(const Result<Object>&)>& admitted) {
  Result<Object> created = Error{"no pod created"};
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string named = fmt::format("{}-{}", name, attempt);
    pod["metadata"]["name"] = named;
    created = client().Create(resources::kPods, pod, {});
    if (admitted(created)) break;
    if (created.ok()) {
      EXPECT_TRUE(IsOk(client().Delete(resources::kPods, env_.namespace_, named, {})));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return created;
}

Object ClientContract::LeaseManifest(std::string_view name) const {
  return {
      {"apiVersion", "coordination.k8s.io/v1"},
      {"kind", "Lease"},
      {"metadata", {{"name", name}, {"namespace", env_.namespace_}}},
      {"spec", {{"holderIdentity", "contract-test"}}},
  };
}

Object ClientContract::BudgetManifest(std::string_view name, std::string_view app,
                                      int64_t min_available) const {
  return {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", name}, {"namespace", env_.namespace_}}},
      {"spec", {{"minAvailable", min_available}, {"selector", {{"matchLabels", {{"app", app}}}}}}},
  };
}

std::string ClientContract::NodeName(std::string_view suffix) {
  nodes_.push_back(env_.namespace_ + "-" + std::string(suffix));
  return nodes_.back();
}

AssertionResult ClientContract::SetPodStatus(std::string_view name, std::string_view phase,
                                             bool ready) {
  Result<Object> pod = client().Get(resources::kPods, env_.namespace_, name);
  if (!pod.ok()) return IsOk(pod);
  (*pod)["status"]["phase"] = phase;
  (*pod)["status"]["conditions"] = {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}};
  return IsOk(client().Update(resources::kPods, *pod, Subresource::kStatus));
}

// --- create and get ------------------------------------------------------------------------

TEST_P(ClientContract, CreateReturnsTheStoredObject) {
  const Result<Object> created =
      client().Create(resources::kPods, PodManifest("web-1", {{"app", "web"}}), {});
  ASSERT_TRUE(IsOk(created));
  EXPECT_EQ(Name(*created), "web-1");
  EXPECT_EQ(Namespace(*created), env_.namespace_);
  EXPECT_EQ(created->value("apiVersion", ""), "v1");
  EXPECT_EQ(created->value("kind", ""), "Pod");
  EXPECT_FALSE(Uid(*created).empty());
  EXPECT_FALSE(ResourceVersion(*created).empty());
  EXPECT_EQ(Generation(*created), 1);
  EXPECT_TRUE(ParseTime(created->at("metadata").value("creationTimestamp", "")).has_value());
  EXPECT_EQ(Label(*created, "app"), "web");
  // A create cannot set a pod's status: pods start Pending.
  EXPECT_EQ(created->at("status").value("phase", ""), "Pending");

  const Result<Object> got = client().Get(resources::kPods, env_.namespace_, "web-1");
  ASSERT_TRUE(IsOk(got));
  EXPECT_EQ(Uid(*got), Uid(*created));
  EXPECT_EQ(ResourceVersion(*got), ResourceVersion(*created));
}

TEST_P(ClientContract, GetOfAMissingObjectIsNotFound) {
  const Result<Object> pod = client().Get(resources::kPods, env_.namespace_, "missing");
  ASSERT_TRUE(IsError(pod, 404, "NotFound"));
  EXPECT_THAT(pod.error().message, HasSubstr("pods \"missing\" not found"));
  const Result<Object> lease = client().Get(resources::kLeases, env_.namespace_, "missing");
  ASSERT_TRUE(IsError(lease, 404, "NotFound"));
  EXPECT_THAT(lease.error().message, HasSubstr("leases.coordination.k8s.io \"missing\" not found"));
}

TEST_P(ClientContract, CreatingAnExistingObjectIsAlreadyExists) {
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1"), {})));
  const Result<Object> again = client().Create(resources::kPods, PodManifest("web-1"), {});
  ASSERT_TRUE(IsError(again, 409, "AlreadyExists"));
  EXPECT_THAT(again.error().message, HasSubstr("pods \"web-1\" already exists"));
}

TEST_P(ClientContract, InvalidOrMissingNamesAreInvalid) {
  EXPECT_TRUE(IsError(client().Create(resources::kPods, PodManifest("Web_1"), {}), 422, "Invalid"));
  Object unnamed = PodManifest("x");
  unnamed["metadata"].erase("name");
  EXPECT_TRUE(IsError(client().Create(resources::kPods, unnamed, {}), 422, "Invalid"));
  Object bad_label = PodManifest("web-1", {{"app", "not a label value"}});
  EXPECT_TRUE(IsError(client().Create(resources::kPods, bad_label, {}), 422, "Invalid"));
}

TEST_P(ClientContract, CreatingInAMissingNamespaceIsNotFound) {
  Object pod = PodManifest("web-1");
  const std::string missing = env_.namespace_ + "-missing";
  pod["metadata"]["namespace"] = missing;
  const Result<Object> created = client().Create(resources::kPods, pod, {});
  ASSERT_TRUE(IsError(created, 404, "NotFound"));
  EXPECT_THAT(created.error().message, HasSubstr("namespaces \"" + missing + "\" not found"));
}

TEST_P(ClientContract, GenerateNameGivesUniqueNames) {
  Object pod = PodManifest("x");
  pod["metadata"].erase("name");
  pod["metadata"]["generateName"] = "web-";
  const Result<Object> first = client().Create(resources::kPods, pod, {});
  const Result<Object> second = client().Create(resources::kPods, pod, {});
  ASSERT_TRUE(IsOk(first));
  ASSERT_TRUE(IsOk(second));
  EXPECT_THAT(std::string(Name(*first)), ::testing::StartsWith("web-"));
  EXPECT_EQ(Name(*first).size(), std::string_view("web-").size() + 5);
  EXPECT_NE(Name(*first), Name(*second));
  EXPECT_TRUE(IsOk(client().Get(resources::kPods, env_.namespace_, Name(*second))));
}

TEST_P(ClientContract, DryRunCreateStoresNothing) {
  const Result<Object> created =
      client().Create(resources::kPods, PodManifest("web-1"), WriteOptions{.dry_run = true});
  ASSERT_TRUE(IsOk(created));
  EXPECT_EQ(Name(*created), "web-1");
  EXPECT_TRUE(IsError(client().Get(resources::kPods, env_.namespace_, "web-1"), 404, "NotFound"));
}

TEST_P(ClientContract, ClusterScopedObjectsHaveNoNamespace) {
  const std::string name = NodeName("node");
  const Object node = {{"apiVersion", "v1"},
                       {"kind", "Node"},
                       {"metadata", {{"name", name}, {"namespace", env_.namespace_}}}};
  const Result<Object> created = client().Create(resources::kNodes, node, {});
  ASSERT_TRUE(IsOk(created));
  EXPECT_EQ(Namespace(*created), "");
  EXPECT_EQ(Generation(*created), 0);  // Nodes carry no generation
  EXPECT_TRUE(IsOk(client().Get(resources::kNodes, "", name)));
  const Result<ObjectList> listed =
      client().List(resources::kNodes, Listing("", "", "metadata.name=" + name));
  ASSERT_TRUE(IsOk(listed));
  EXPECT_THAT(Names(*listed), ElementsAre(name));
  EXPECT_TRUE(IsOk(client().Delete(resources::kNodes, "", name, {})));
  EXPECT_TRUE(IsError(client().Get(resources::kNodes, "", name), 404, "NotFound"));
}

TEST_P(ClientContract, NamespacesStartActive) {
  EXPECT_TRUE(IsOk(client().Get(resources::kNamespaces, "", "default")));
  EXPECT_TRUE(IsOk(client().Get(resources::kNamespaces, "", "kube-system")));
  const Result<Object> fresh = client().Get(resources::kNamespaces, "", env_.namespace_);
  ASSERT_TRUE(IsOk(fresh));
  EXPECT_EQ(fresh->at("status").value("phase", ""), "Active");
  EXPECT_EQ(Label(*fresh, "kubernetes.io/metadata.name"), env_.namespace_);
}

// --- list ----------------------------------------------------------------------------------

TEST_P(ClientContract, ListSelectsByNamespaceAndLabels) {
  const std::string other = harness_->FreshNamespace();
  // A label of this test only, so that listing every namespace sees no one else's pods.
  const std::string run = env_.namespace_;
  const auto create = [&](std::string_view namespace_, std::string_view name, Object labels) {
    labels["run"] = run;
    Object pod = PodManifest(name, labels);
    pod["metadata"]["namespace"] = namespace_;
    ASSERT_TRUE(IsOk(client().Create(resources::kPods, pod, {})));
  };
  create(env_.namespace_, "web-2", {{"app", "web"}, {"tier", "back"}});
  create(env_.namespace_, "web-1", {{"app", "web"}, {"tier", "front"}});
  create(env_.namespace_, "db-1", {{"app", "db"}});
  create(other, "web-1", {{"app", "web"}});

  const auto names = [&](std::string namespace_, std::string selector) {
    const Result<ObjectList> list =
        client().List(resources::kPods, Listing(std::move(namespace_), std::move(selector)));
    EXPECT_TRUE(IsOk(list));
    if (list.ok()) {
      EXPECT_FALSE(list->resource_version.empty());
    }
    return list.ok() ? Names(*list) : std::vector<std::string>{};
  };
  EXPECT_THAT(names(env_.namespace_, ""), ElementsAre("db-1", "web-1", "web-2"));
  EXPECT_THAT(names(env_.namespace_, "app=web"), ElementsAre("web-1", "web-2"));
  EXPECT_THAT(names(env_.namespace_, "app == db"), ElementsAre("db-1"));
  EXPECT_THAT(names(env_.namespace_, "app in (web, db), tier!=back"), ElementsAre("db-1", "web-1"));
  EXPECT_THAT(names(env_.namespace_, "app notin (web)"), ElementsAre("db-1"));
  EXPECT_THAT(names(env_.namespace_, "tier"), ElementsAre("web-1", "web-2"));
  EXPECT_THAT(names(env_.namespace_, "!tier"), ElementsAre("db-1"));
  EXPECT_THAT(names(env_.namespace_, "app=cache"), IsEmpty());

  // Every namespace: sorted by namespace, then name.
  const Result<ObjectList> all =
      client().List(resources::kPods, Listing("", "run=" + run + ",app=web"));
  ASSERT_TRUE(IsOk(all));
  std::vector<std::string> keys;
  for (const SharedObject& item : all->items) keys.push_back(Key(*item));
  std::vector<std::string> expected = {Key(env_.namespace_, "web-1"), Key(env_.namespace_, "web-2"),
                                       Key(other, "web-1")};
  std::sort(expected.begin(), expected.end(), [](const std::string& a, const std::string& b) {
    const auto split = [](const std::string& key) {
      const size_t slash = key.find('/');
      return std::pair(key.substr(0, slash), key.substr(slash + 1));
    };
    return split(a) < split(b);
  });
  EXPECT_EQ(keys, expected);
}

TEST_P(ClientContract, ListSelectsByFields) {
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1"), {})));
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-2"), {})));
  ASSERT_TRUE(SetPodStatus("web-2", "Running", true));
  const auto names = [&](std::string selector) {
    const Result<ObjectList> list =
        client().List(resources::kPods, Listing(env_.namespace_, "", std::move(selector)));
    EXPECT_TRUE(IsOk(list));
    return list.ok() ? Names(*list) : std::vector<std::string>{};
  };
  EXPECT_THAT(names("metadata.name=web-1"), ElementsAre("web-1"));
  EXPECT_THAT(names("metadata.name!=web-1"), ElementsAre("web-2"));
  EXPECT_THAT(names("status.phase=Running"), ElementsAre("web-2"));
  EXPECT_THAT(names("status.phase==Pending,metadata.name=web-1"), ElementsAre("web-1"));
  EXPECT_THAT(names("metadata.namespace=" + env_.namespace_), ElementsAre("web-1", "web-2"));
  EXPECT_THAT(names("spec.nodeName="), ElementsAre("web-1", "web-2"));  // unbound
}

TEST_P(ClientContract, BadSelectorsAreBadRequests) {
  EXPECT_TRUE(
      IsError(client().List(resources::kPods, Listing("", "app in (web")), 400, "BadRequest"));
  EXPECT_TRUE(
      IsError(client().List(resources::kPods, Listing("", "", "spec.bogus=x")), 400, "BadRequest"));
  EXPECT_TRUE(IsError(client().List(resources::kPods, Listing("", "", "metadata.name")), 400,
                      "BadRequest"));
}

// --- update --------------------------------------------------------------------------------

TEST_P(ClientContract, UpdateWithAStaleResourceVersionIsConflict) {
  const Result<Object> created = client().Create(resources::kPods, PodManifest("web-1"), {});
  ASSERT_TRUE(IsOk(created));
  Object changed = *created;
  changed["metadata"]["labels"]["app"] = "web";
  const Result<Object> updated = client().Update(resources::kPods, changed, Subresource::kNone);
  ASSERT_TRUE(IsOk(updated));
  EXPECT_NE(ResourceVersion(*updated), ResourceVersion(*created));
  EXPECT_EQ(Label(*updated, "app"), "web");

  changed["metadata"]["labels"]["app"] = "db";  // still at the created version
  const Result<Object> stale = client().Update(resources::kPods, changed, Subresource::kNone);
  ASSERT_TRUE(IsError(stale, 409, "Conflict"));
  EXPECT_THAT(stale.error().message, HasSubstr("the object has been modified"));
  const Result<Object> got = client().Get(resources::kPods, env_.namespace_, "web-1");
  ASSERT_TRUE(IsOk(got));
  EXPECT_EQ(Label(*got, "app"), "web");
}

TEST_P(ClientContract, UpdateThatChangesNothingKeepsTheResourceVersion) {
  const Result<Object> created = client().Create(resources::kPods, PodManifest("web-1"), {});
  ASSERT_TRUE(IsOk(created));
  const Result<Object> updated = client().Update(resources::kPods, *created, Subresource::kNone);
  ASSERT_TRUE(IsOk(updated));
  EXPECT_EQ(ResourceVersion(*updated), ResourceVersion(*created));
}

TEST_P(ClientContract, UpdateWithoutAResourceVersionIsUnconditionalForPodsOnly) {
  const Result<Object> pod = client().Create(resources::kPods, PodManifest("web-1"), {});
  ASSERT_TRUE(IsOk(pod));
  Object unconditional = *pod;
  unconditional["metadata"].erase("resourceVersion");
  unconditional["metadata"]["labels"]["app"] = "web";
  const Result<Object> updated =
      client().Update(resources::kPods, unconditional, Subresource::kNone);
  ASSERT_TRUE(IsOk(updated));
  EXPECT_EQ(Label(*updated, "app"), "web");

  // Leases (like PodDisruptionBudgets and custom resources) insist on a resourceVersion.
  const Result<Object> lease = client().Create(resources::kLeases, LeaseManifest("lock"), {});
  ASSERT_TRUE(IsOk(lease));
  Object lease_update = *lease;
  lease_update["metadata"].erase("resourceVersion");
  EXPECT_TRUE(IsError(client().Update(resources::kLeases, lease_update, Subresource::kNone), 422,
                      "Invalid"));
}

TEST_P(ClientContract, StatusIsASubresource) {
  const Result<Object> created = client().Create(resources::kPods, PodManifest("web-1"), {});
  ASSERT_TRUE(IsOk(created));

  // A write to the pod keeps the stored status.
  Object main = *created;
  main["status"]["phase"] = "Running";
  main["metadata"]["labels"]["app"] = "web";
  const Result<Object> updated = client().Update(resources::kPods, main, Subresource::kNone);
  ASSERT_TRUE(IsOk(updated));
  EXPECT_EQ(Label(*updated, "app"), "web");
  EXPECT_EQ(updated->at("status").value("phase", ""), "Pending");

  // A write to /status changes only the status.
  Object status = *updated;
  status["status"]["phase"] = "Running";
  status["spec"]["containers"][0]["image"] = "registry.k8s.io/pause:changed";
  const Result<Object> written = client().Update(resources::kPods, status, Subresource::kStatus);
  ASSERT_TRUE(IsOk(written));
  EXPECT_EQ(written->at("status").value("phase", ""), "Running");
  EXPECT_EQ(written->at("spec")["containers"][0].value("image", ""), "registry.k8s.io/pause:3.10");
  EXPECT_EQ(Generation(*written), 1);

  // Leases have no status subresource.
  ASSERT_TRUE(IsOk(client().Create(resources::kLeases, LeaseManifest("lock"), {})));
  EXPECT_TRUE(IsError(client().Patch(resources::kLeases, env_.namespace_, "lock", PatchType::kMerge,
                                     {{"status", {{"x", "y"}}}}, Subresource::kStatus),
                      404, "NotFound"));
}

TEST_P(ClientContract, GenerationCountsSpecChanges) {
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1"), {})));
  const Object image = {
      {"spec", {{"containers", {{{"name", "main"}, {"image", "registry.k8s.io/pause:3.9"}}}}}}};
  const Result<Object> respec = client().Patch(resources::kPods, env_.namespace_, "web-1",
                                               PatchType::kMerge, image, Subresource::kNone);
  ASSERT_TRUE(IsOk(respec));
  EXPECT_EQ(Generation(*respec), 2);
  const Result<Object> relabelled =
      client().Patch(resources::kPods, env_.namespace_, "web-1", PatchType::kMerge,
                     LabelsPatch({{"app", "web"}}), Subresource::kNone);
  ASSERT_TRUE(IsOk(relabelled));
  EXPECT_EQ(Generation(*relabelled), 2);

  const Result<Object> budget =
      client().Create(resources::kPodDisruptionBudgets, BudgetManifest("web", "web", 1), {});
  ASSERT_TRUE(IsOk(budget));
  EXPECT_EQ(Generation(*budget), 1);
  const Result<Object> tightened =
      client().Patch(resources::kPodDisruptionBudgets, env_.namespace_, "web", PatchType::kMerge,
                     {{"spec", {{"minAvailable", 2}}}}, Subresource::kNone);
  ASSERT_TRUE(IsOk(tightened));
  EXPECT_EQ(Generation(*tightened), 2);
}

// --- patch ---------------------------------------------------------------------------------

TEST_P(ClientContract, MergePatchSetsAndRemovesFields) {
  const Result<Object> created =
      client().Create(resources::kPods, PodManifest("web-1", {{"a", "1"}, {"b", "2"}}), {});
  ASSERT_TRUE(IsOk(created));
  const Result<Object> patched =
      client().Patch(resources::kPods, env_.namespace_, "web-1", PatchType::kMerge,
                     LabelsPatch({{"a", nullptr}, {"c", "3"}}), Subresource::kNone);
  ASSERT_TRUE(IsOk(patched));
  EXPECT_EQ(patched->at("metadata").at("labels"), Object({{"b", "2"}, {"c", "3"}}));
  EXPECT_NE(ResourceVersion(*patched), ResourceVersion(*created));

  // A resourceVersion in the patch is a precondition.
  Object stale = LabelsPatch({{"d", "4"}});
  stale["metadata"]["resourceVersion"] = ResourceVersion(*created);
  EXPECT_TRUE(IsError(client().Patch(resources::kPods, env_.namespace_, "web-1", PatchType::kMerge,
                                     stale, Subresource::kNone),
                      409, "Conflict"));
  EXPECT_TRUE(
      IsError(client().Patch(resources::kPods, env_.namespace_, "missing", PatchType::kMerge,
                             LabelsPatch({{"a", "1"}}), Subresource::kNone),
              404, "NotFound"));
}

TEST_P(ClientContract, JsonPatchTestsTheResourceVersion) {
  // With a label, so that the labels map exists: servers drop empty ones.
  const Result<Object> created =
      client().Create(resources::kPods, PodManifest("web-1", {{"tier", "front"}}), {});
  ASSERT_TRUE(IsOk(created));
  const auto guarded = [](std::string_view version, std::string_view value) {
    return Object::array({
        {{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", version}},
        {{"op", "add"}, {"path", "/metadata/labels/app"}, {"value", value}},
    });
  };
  const Result<Object> patched =
      client().Patch(resources::kPods, env_.namespace_, "web-1", PatchType::kJson,
                     guarded(ResourceVersion(*created), "web"), Subresource::kNone);
  ASSERT_TRUE(IsOk(patched));
  EXPECT_EQ(Label(*patched, "app"), "web");

  // The "test" fails against the old version: 422, and nothing changes.
  EXPECT_TRUE(IsError(client().Patch(resources::kPods, env_.namespace_, "web-1", PatchType::kJson,
                                     guarded(ResourceVersion(*created), "db"), Subresource::kNone),
                      422, "Invalid"));
  const Result<Object> got = client().Get(resources::kPods, env_.namespace_, "web-1");
  ASSERT_TRUE(IsOk(got));
  EXPECT_EQ(Label(*got, "app"), "web");
  EXPECT_EQ(ResourceVersion(*got), ResourceVersion(*patched));
}

// --- delete and finalizers -----------------------------------------------------------------

TEST_P(ClientContract, DeleteHonoursPreconditions) {
  const Result<Object> created = client().Create(resources::kPods, PodManifest("web-1"), {});
  ASSERT_TRUE(IsOk(created));
  const std::string uid(Uid(*created));
  const std::string version(ResourceVersion(*created));
  EXPECT_TRUE(IsError(client().Delete(resources::kPods, env_.namespace_, "web-1",
                                      Preconditions(std::string(kWrongUid))),
                      409, "Conflict"));
  EXPECT_TRUE(IsError(
      client().Delete(resources::kPods, env_.namespace_, "web-1", Preconditions("", version + "0")),
      409, "Conflict"));
  EXPECT_TRUE(IsOk(client().Get(resources::kPods, env_.namespace_, "web-1")));
  EXPECT_TRUE(IsOk(
      client().Delete(resources::kPods, env_.namespace_, "web-1", Preconditions(uid, version))));
  EXPECT_TRUE(IsError(client().Get(resources::kPods, env_.namespace_, "web-1"), 404, "NotFound"));
  EXPECT_TRUE(
      IsError(client().Delete(resources::kPods, env_.namespace_, "web-1", {}), 404, "NotFound"));
}

TEST_P(ClientContract, FinalizersHoldDeletionUntilTheLastIsRemoved) {
  Object lease = LeaseManifest("lock");
  lease["metadata"]["finalizers"] = {kFinalizer};
  ASSERT_TRUE(IsOk(client().Create(resources::kLeases, lease, {})));
  ASSERT_TRUE(IsOk(client().Delete(resources::kLeases, env_.namespace_, "lock", {})));

  Result<Object> deleting = client().Get(resources::kLeases, env_.namespace_, "lock");
  ASSERT_TRUE(IsOk(deleting));
  EXPECT_TRUE(ParseTime(DeletionTimestamp(*deleting)).has_value());
  EXPECT_EQ(deleting->at("metadata").value("deletionGracePeriodSeconds", -1), 0);
  // Deleting again is fine and changes nothing.
  ASSERT_TRUE(IsOk(client().Delete(resources::kLeases, env_.namespace_, "lock", {})));
  const Result<Object> again = client().Get(resources::kLeases, env_.namespace_, "lock");
  ASSERT_TRUE(IsOk(again));
  EXPECT_EQ(ResourceVersion(*again), ResourceVersion(*deleting));

  // No new finalizers on an object being deleted; other changes are fine.
  Object more = *deleting;
  more["metadata"]["finalizers"].push_back("karpenter.sh/another");
  EXPECT_TRUE(
      IsError(client().Update(resources::kLeases, more, Subresource::kNone), 422, "Invalid"));
  Object relabelled = *deleting;
  relabelled["metadata"]["labels"]["app"] = "web";
  deleting = client().Update(resources::kLeases, relabelled, Subresource::kNone);
  ASSERT_TRUE(IsOk(deleting));
  EXPECT_EQ(DeletionTimestamp(*deleting), DeletionTimestamp(*again));

  // Removing the last finalizer deletes it.
  Object released = *deleting;
  released["metadata"]["finalizers"] = Object::array();
  EXPECT_TRUE(IsOk(client().Update(resources::kLeases, released, Subresource::kNone)));
  EXPECT_TRUE(IsError(client().Get(resources::kLeases, env_.namespace_, "lock"), 404, "NotFound"));
}

TEST_P(ClientContract, PatchThatRemovesTheLastFinalizerDeletes) {
  Object lease = LeaseManifest("lock");
  lease["metadata"]["finalizers"] = {kFinalizer};
  ASSERT_TRUE(IsOk(client().Create(resources::kLeases, lease, {})));
  ASSERT_TRUE(IsOk(client().Delete(resources::kLeases, env_.namespace_, "lock", {})));
  EXPECT_TRUE(IsOk(client().Patch(resources::kLeases, env_.namespace_, "lock", PatchType::kMerge,
                                  {{"metadata", {{"finalizers", nullptr}}}}, Subresource::kNone)));
  EXPECT_TRUE(IsError(client().Get(resources::kLeases, env_.namespace_, "lock"), 404, "NotFound"));
}

// --- watch ---------------------------------------------------------------------------------

TEST_P(ClientContract, WatchFromAResourceVersionReplaysEventsInOrder) {
  const Result<ObjectList> before = client().List(resources::kPods, Listing(env_.namespace_));
  ASSERT_TRUE(IsOk(before));
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1"), {})));
  ASSERT_TRUE(IsOk(client().Patch(resources::kPods, env_.namespace_, "web-1", PatchType::kMerge,
                                  LabelsPatch({{"app", "web"}}), Subresource::kNone)));
  ASSERT_TRUE(IsOk(client().Delete(resources::kPods, env_.namespace_, "web-1", {})));

  Result<std::unique_ptr<Watch>> watch =
      client().StartWatch(resources::kPods, Watching(env_.namespace_, before->resource_version));
  ASSERT_TRUE(IsOk(watch));
  std::vector<WatchEvent> events(4);
  for (WatchEvent& event : events) ASSERT_TRUE(NextEvent(**watch, event));
  EXPECT_EQ(Describe(events[0]), "ADDED web-1");
  EXPECT_EQ(Describe(events[1]), "MODIFIED web-1");
  EXPECT_EQ(Label(*events[1].object, "app"), "web");
  // Pods are deleted gracefully: first the deletion is recorded, then the pod goes.
  EXPECT_EQ(Describe(events[2]), "MODIFIED web-1");
  EXPECT_FALSE(DeletionTimestamp(*events[2].object).empty());
  EXPECT_EQ(Describe(events[3]), "DELETED web-1");
  EXPECT_EQ(Label(*events[3].object, "app"), "web");  // the last state
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_LT(std::stoll(std::string(ResourceVersion(*events[i - 1].object))),
              std::stoll(std::string(ResourceVersion(*events[i].object))));
  }
  EXPECT_TRUE(NoMoreEvents(**watch));
}

TEST_P(ClientContract, WatchDeliversNewEvents) {
  const Result<ObjectList> before = client().List(resources::kPods, Listing(env_.namespace_));
  ASSERT_TRUE(IsOk(before));
  Result<std::unique_ptr<Watch>> watch =
      client().StartWatch(resources::kPods, Watching(env_.namespace_, before->resource_version));
  ASSERT_TRUE(IsOk(watch));
  EXPECT_TRUE(NoMoreEvents(**watch));
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1"), {})));
  WatchEvent event;
  ASSERT_TRUE(NextEvent(**watch, event));
  EXPECT_EQ(Describe(event), "ADDED web-1");
}

TEST_P(ClientContract, WatchSelectorsSeeObjectsComeAndGo) {
  const Result<ObjectList> before = client().List(resources::kPods, Listing(env_.namespace_));
  ASSERT_TRUE(IsOk(before));
  Result<std::unique_ptr<Watch>> watch = client().StartWatch(
      resources::kPods, Watching(env_.namespace_, before->resource_version, "app=web"));
  ASSERT_TRUE(IsOk(watch));
  const auto relabel = [&](std::string_view app) {
    ASSERT_TRUE(IsOk(client().Patch(resources::kPods, env_.namespace_, "web-1", PatchType::kMerge,
                                    LabelsPatch({{"app", app}}), Subresource::kNone)));
  };
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1", {{"app", "web"}}), {})));
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("db-1", {{"app", "db"}}), {})));
  relabel("db");   // leaves the selection
  relabel("web");  // comes back
  ASSERT_TRUE(IsOk(client().Delete(resources::kPods, env_.namespace_, "db-1", {})));
  ASSERT_TRUE(IsOk(client().Delete(resources::kPods, env_.namespace_, "web-1", {})));

  std::vector<std::string> seen;
  for (int i = 0; i < 5; ++i) {
    WatchEvent event;
    ASSERT_TRUE(NextEvent(**watch, event));
    seen.push_back(Describe(event));
    if (i == 1) {
      EXPECT_EQ(Label(*event.object, "app"), "web");  // the state before it left
    }
  }
  EXPECT_THAT(seen, ElementsAre("ADDED web-1", "DELETED web-1", "ADDED web-1", "MODIFIED web-1",
                                "DELETED web-1"));
  EXPECT_TRUE(NoMoreEvents(**watch));
}

TEST_P(ClientContract, WatchFromAForgottenResourceVersionIsExpired) {
  ASSERT_TRUE(harness_->CompactHistory());
  Result<std::unique_ptr<Watch>> watch =
      client().StartWatch(resources::kEvents, Watching(env_.namespace_, "1"));
  if (!watch.ok()) {
    EXPECT_TRUE(IsError(watch, 410, "Expired"));
    return;
  }
  // Or the error comes as the first event.
  EXPECT_TRUE(IsError((*watch)->Next(kEventWait), 410, "Expired"));
}

TEST_P(ClientContract, BadWatchSelectorIsBadRequest) {
  EXPECT_TRUE(
      IsError(client().StartWatch(resources::kPods, Watching(env_.namespace_, "", "app in (web")),
              400, "BadRequest"));
}

// --- priority admission ----------------------------------------------------------------------

// A PriorityClass for one test (cluster-scoped, so named after the test's namespace).
Object PriorityClassManifest(const std::string& name, int64_t value, std::string_view policy,
                             bool global_default = false) {
  return {{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"},
          {"metadata", {{"name", name}}},         {"value", value},
          {"preemptionPolicy", policy},           {"globalDefault", global_default}};
}

TEST_P(ClientContract, PodsTakeThePriorityOfTheirClass) {
  // A system class, outside kube-system (the Karpenter chart's pods ask for it in their own).
  Object critical = PodManifest("critical");
  critical["spec"]["priorityClassName"] = "system-cluster-critical";
  const Result<Object> created = client().Create(resources::kPods, critical, {});
  ASSERT_TRUE(IsOk(created));
  EXPECT_EQ(created->at("spec").value("priority", 0), 2000000000);
  EXPECT_EQ(created->at("spec").value("preemptionPolicy", ""), "PreemptLowerPriority");
  // Without a class, and no default one (once admission no longer sees another test's): 0.
  const Result<Object> plain =
      CreateOnceAdmitted(PodManifest(""), "plain", [](const Result<Object>& created) {
        return !created.ok() || !created->at("spec").contains("priorityClassName");
      });
  ASSERT_TRUE(IsOk(plain));
  EXPECT_EQ(plain->at("spec").value("priority", -1), 0);
  EXPECT_EQ(plain->at("spec").value("preemptionPolicy", ""), "PreemptLowerPriority");
  // A class of the cluster's own, with its policy.
  const std::string name = env_.namespace_ + "-waits";
  ASSERT_TRUE(IsOk(client().Create(resources::kPriorityClasses,
                                   PriorityClassManifest(name, 1000, "Never"), {})));
  Object waits = PodManifest("");
  waits["spec"]["priorityClassName"] = name;
  // Refused while admission does not see the class yet.
  const Result<Object> admitted = CreateOnceAdmitted(
      std::move(waits), "waits", [](const Result<Object>& created) { return created.ok(); });
  EXPECT_TRUE(IsOk(client().Delete(resources::kPriorityClasses, "", name, {})));
  ASSERT_TRUE(IsOk(admitted));
  EXPECT_EQ(admitted->at("spec").value("priority", 0), 1000);
  EXPECT_EQ(admitted->at("spec").value("preemptionPolicy", ""), "Never");
}

TEST_P(ClientContract, TheDefaultClassGivesItsPriorityToPodsWithoutOne) {
  const std::string name = env_.namespace_ + "-default";
  ASSERT_TRUE(
      IsOk(client().Create(resources::kPriorityClasses,
                           PriorityClassManifest(name, 7, "PreemptLowerPriority", true), {})));
  // Once a pod gets the class, admission sees it, and a second default is refused.
  const Result<Object> pod =
      CreateOnceAdmitted(PodManifest(""), "defaulted", [&](const Result<Object>& created) {
        return !created.ok() || created->at("spec").value("priorityClassName", "") == name;
      });
  const Result<Object> second =
      client().Create(resources::kPriorityClasses,
                      PriorityClassManifest(name + "-2", 8, "PreemptLowerPriority", true), {});
  // Removed before anything is asserted: other tests' pods would take it.
  EXPECT_TRUE(IsOk(client().Delete(resources::kPriorityClasses, "", name, {})));
  if (second.ok()) {
    EXPECT_TRUE(IsOk(client().Delete(resources::kPriorityClasses, "", name + "-2", {})));
  }
  EXPECT_TRUE(IsError(second, 403, "Forbidden"));
  ASSERT_TRUE(IsOk(pod));
  EXPECT_EQ(pod->at("spec").value("priority", 0), 7);
  EXPECT_EQ(pod->at("spec").value("priorityClassName", ""), name);
}

TEST_P(ClientContract, PodsOfAMissingClassOrAnotherPriorityAreForbidden) {
  Object missing = PodManifest("missing");
  missing["spec"]["priorityClassName"] = env_.namespace_ + "-no-such-class";
  const Result<Object> refused = client().Create(resources::kPods, missing, {});
  ASSERT_TRUE(IsError(refused, 403, "Forbidden"));
  EXPECT_THAT(refused.error().message, HasSubstr("no PriorityClass with name"));
  Object other = PodManifest("other");
  other["spec"]["priorityClassName"] = "system-cluster-critical";
  other["spec"]["priority"] = 5;
  EXPECT_TRUE(IsError(client().Create(resources::kPods, other, {}), 403, "Forbidden"));
  // The value the class gives may be repeated, as a pod copied from a cluster carries it.
  other["spec"]["priority"] = 2000000000;
  EXPECT_TRUE(IsOk(client().Create(resources::kPods, other, {})));
}

TEST_P(ClientContract, PriorityClassesAreChecked) {
  EXPECT_TRUE(IsError(
      client().Create(resources::kPriorityClasses,
                      PriorityClassManifest("system-" + env_.namespace_, 1, "PreemptLowerPriority"),
                      {}),
      422, "Invalid"));
  EXPECT_TRUE(IsError(
      client().Create(
          resources::kPriorityClasses,
          PriorityClassManifest(env_.namespace_ + "-huge", 2000000000, "PreemptLowerPriority"), {}),
      422, "Invalid"));
  EXPECT_TRUE(
      IsError(client().Create(resources::kPriorityClasses,
                              PriorityClassManifest(env_.namespace_ + "-odd", 1, "Sometimes"), {}),
              422, "Invalid"));
}

// --- eviction ------------------------------------------------------------------------------

TEST_P(ClientContract, EvictionWithoutABudgetDeletesThePod) {
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1"), {})));
  ASSERT_TRUE(SetPodStatus("web-1", "Running", true));
  EXPECT_TRUE(IsOk(client().Evict(env_.namespace_, "web-1", {})));
  EXPECT_TRUE(IsError(client().Get(resources::kPods, env_.namespace_, "web-1"), 404, "NotFound"));
  const Status missing = client().Evict(env_.namespace_, "web-1", {});
  ASSERT_TRUE(IsError(missing, 404, "NotFound"));
  EXPECT_THAT(missing.error().message, HasSubstr("pods \"web-1\" not found"));
}

TEST_P(ClientContract, EvictionMarksThePodThenDeletesIt) {
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1"), {})));
  const Result<ObjectList> before = client().List(resources::kPods, Listing(env_.namespace_));
  ASSERT_TRUE(IsOk(before));
  Result<std::unique_ptr<Watch>> watch =
      client().StartWatch(resources::kPods, Watching(env_.namespace_, before->resource_version));
  ASSERT_TRUE(IsOk(watch));
  ASSERT_TRUE(IsOk(client().Evict(env_.namespace_, "web-1", {})));
  std::vector<WatchEvent> events(3);
  for (WatchEvent& event : events) ASSERT_TRUE(NextEvent(**watch, event));
  EXPECT_EQ(Describe(events[0]), "MODIFIED web-1");
  const Object conditions = events[0].object->at("status").value("conditions", Object::array());
  EXPECT_TRUE(std::any_of(conditions.begin(), conditions.end(), [](const Object& condition) {
    return condition.value("type", "") == "DisruptionTarget" &&
           condition.value("reason", "") == "EvictionByEvictionAPI";
  })) << conditions.dump();
  EXPECT_EQ(Describe(events[1]), "MODIFIED web-1");
  EXPECT_FALSE(DeletionTimestamp(*events[1].object).empty());
  EXPECT_EQ(Describe(events[2]), "DELETED web-1");
}

TEST_P(ClientContract, EvictionHonoursPreconditions) {
  const Result<Object> created = client().Create(resources::kPods, PodManifest("web-1"), {});
  ASSERT_TRUE(IsOk(created));
  // With a resourceVersion precondition too, the server does not retry the conflict.
  EXPECT_TRUE(IsError(
      client().Evict(env_.namespace_, "web-1",
                     Preconditions(std::string(kWrongUid), std::string(ResourceVersion(*created)))),
      409, "Conflict"));
  EXPECT_TRUE(
      IsError(client().Evict(env_.namespace_, "web-1",
                             Preconditions("", std::string(ResourceVersion(*created)) + "0")),
              409, "Conflict"));
  EXPECT_TRUE(IsOk(client().Get(resources::kPods, env_.namespace_, "web-1")));
}

TEST_P(ClientContract, EvictionThatABudgetForbidsIsTooManyRequests) {
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1", {{"app", "web"}}), {})));
  ASSERT_TRUE(SetPodStatus("web-1", "Running", true));
  ASSERT_TRUE(
      IsOk(client().Create(resources::kPodDisruptionBudgets, BudgetManifest("web", "web", 1), {})));
  ASSERT_TRUE(harness_->WaitForBudget(env_.namespace_, "web", {1, 1, 0}));
  EXPECT_TRUE(IsError(client().Evict(env_.namespace_, "web-1", {}), 429, "TooManyRequests"));
  EXPECT_TRUE(IsOk(client().Get(resources::kPods, env_.namespace_, "web-1")));
}

TEST_P(ClientContract, EvictionThatTheBudgetAllowsDeletesThePod) {
  for (const char* name : {"web-1", "web-2"}) {
    ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest(name, {{"app", "web"}}), {})));
    ASSERT_TRUE(SetPodStatus(name, "Running", true));
  }
  ASSERT_TRUE(
      IsOk(client().Create(resources::kPodDisruptionBudgets, BudgetManifest("web", "web", 1), {})));
  ASSERT_TRUE(harness_->WaitForBudget(env_.namespace_, "web", {2, 1, 1}));
  EXPECT_TRUE(IsOk(client().Evict(env_.namespace_, "web-1", {})));
  EXPECT_TRUE(IsError(client().Get(resources::kPods, env_.namespace_, "web-1"), 404, "NotFound"));

  ASSERT_TRUE(harness_->WaitForBudget(env_.namespace_, "web", {1, 1, 0}));
  EXPECT_TRUE(IsError(client().Evict(env_.namespace_, "web-2", {}), 429, "TooManyRequests"));
}

TEST_P(ClientContract, EvictionOfAnUnreadyPodIsFreeWhileTheBudgetIsMet) {
  for (const char* name : {"web-1", "web-2", "web-3"}) {
    ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest(name, {{"app", "web"}}), {})));
  }
  ASSERT_TRUE(SetPodStatus("web-1", "Running", true));
  ASSERT_TRUE(SetPodStatus("web-2", "Running", true));
  ASSERT_TRUE(SetPodStatus("web-3", "Running", false));
  ASSERT_TRUE(
      IsOk(client().Create(resources::kPodDisruptionBudgets, BudgetManifest("web", "web", 2), {})));
  ASSERT_TRUE(harness_->WaitForBudget(env_.namespace_, "web", {2, 2, 0}));
  EXPECT_TRUE(IsOk(client().Evict(env_.namespace_, "web-3", {})));
  EXPECT_TRUE(IsError(client().Evict(env_.namespace_, "web-1", {}), 429, "TooManyRequests"));
}

TEST_P(ClientContract, EvictionUnderTwoBudgetsIsAServerError) {
  ASSERT_TRUE(IsOk(client().Create(resources::kPods, PodManifest("web-1", {{"app", "web"}}), {})));
  ASSERT_TRUE(SetPodStatus("web-1", "Running", true));
  ASSERT_TRUE(
      IsOk(client().Create(resources::kPodDisruptionBudgets, BudgetManifest("a", "web", 0), {})));
  ASSERT_TRUE(
      IsOk(client().Create(resources::kPodDisruptionBudgets, BudgetManifest("b", "web", 0), {})));
  const Status evicted = client().Evict(env_.namespace_, "web-1", {});
  ASSERT_FALSE(evicted.ok());
  EXPECT_EQ(evicted.error().status, 500);
  EXPECT_TRUE(IsOk(client().Get(resources::kPods, env_.namespace_, "web-1")));
}

}  // namespace karpenter::kube::contract
