// The NodeClaim lifecycle's launches on the in-memory API server and the simulated cloud: the
// NodeClaims due together reach the cloud in one CreateAll call (here its default, Create for
// each), and each gets its own instance or its own failure; with workers, their writes overlap.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/sim/sim_cloud_provider.h"
#include "common/mutex.h"
#include "controllers/nodeclaim_lifecycle.h"
#include "controllers/scenario_world.h"
#include "kube/forwarding_client.h"
#include "support/matchers.h"

namespace karpenter::controllers {
namespace {

using scenario::ClaimProviderId;
using scenario::kStart;
using scenario::Object;
using ::testing::AnyOf;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;
namespace resources = kube::resources;

// Passes everything to the simulated cloud and records the NodeClaims of each CreateAll call.
class RecordingCloud final : public cloud::CloudProvider {
 public:
  explicit RecordingCloud(cloud::CloudProvider& cloud) : cloud_(cloud) {}

  Result<cloud::Instance> Create(const api::NodeClaim& node_claim) override {
    return cloud_.Create(node_claim);
  }
  std::vector<Result<cloud::Instance>> CreateAll(
      std::span<const api::NodeClaim* const> node_claims) override {
    std::vector<std::string>& call = create_all_calls.emplace_back();
    for (const api::NodeClaim* node_claim : node_claims) call.push_back(node_claim->metadata.name);
    return CloudProvider::CreateAll(node_claims);
  }
  Status Delete(std::string_view provider_id) override { return cloud_.Delete(provider_id); }
  Result<cloud::Instance> Get(std::string_view provider_id) override {
    return cloud_.Get(provider_id);
  }
  Result<std::vector<cloud::Instance>> List() override { return cloud_.List(); }
  Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> GetInstanceTypes(
      const api::NodePool& node_pool) override {
    return cloud_.GetInstanceTypes(node_pool);
  }
  std::string_view Name() const override { return cloud_.Name(); }

  std::vector<std::vector<std::string>> create_all_calls;

 private:
  cloud::CloudProvider& cloud_;
};

// Holds each patch until `expected` are in flight together (or a while has passed), once; keeps
// the most that ever were.
class OverlapProbe final : public kube::ForwardingClient {
 public:
  OverlapProbe(kube::Client& next, size_t expected)
      : kube::ForwardingClient(next), expected_(expected) {}

  Result<Object> Patch(const kube::Resource& resource, std::string_view namespace_,
                       std::string_view name, kube::PatchType type, const Object& patch,
                       kube::Subresource subresource) override {
    {
      MutexLock lock(mutex_);
      ++in_flight_;
      most_ = std::max(most_, in_flight_);
      if (in_flight_ >= expected_) met_ = true;
      changed_.NotifyAll();
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!met_ && changed_.WaitUntil(lock, deadline)) {
      }
    }
    Result<Object> patched =
        kube::ForwardingClient::Patch(resource, namespace_, name, type, patch, subresource);
    MutexLock lock(mutex_);
    --in_flight_;
    return patched;
  }

  size_t most() {
    MutexLock lock(mutex_);
    return most_;
  }

 private:
  const size_t expected_;
  Mutex mutex_;
  CondVar changed_;
  size_t in_flight_ GUARDED_BY(mutex_) = 0;
  size_t most_ GUARDED_BY(mutex_) = 0;
  bool met_ GUARDED_BY(mutex_) = false;
};

class NodeClaimLaunchTest : public ::testing::Test {
 protected:
  NodeClaimLaunchTest()
      : client_(clock_),
        sim_(scenario::Catalog(), clock_, "us-east-1"),
        cloud_(sim_),
        cluster_(client_),
        events_(client_, clock_, "karpenter", {.synchronous = true}),  // a virtual clock
        metrics_(registry_),
        lifecycle_(cluster_, client_, cloud_, events_, metrics_, clock_, Logger(),
                   LifecycleOptions{}, health_) {}

  // A NodeClaim of the NodePool "default" for one of the small type.
  void CreateNodeClaim(const std::string& name) {
    const Object claim = {
        {"apiVersion", "karpenter.sh/v1"},
        {"kind", "NodeClaim"},
        {"metadata",
         {{"name", name},
          {"labels", {{"karpenter.sh/nodepool", "default"}}},
          {"finalizers", {"karpenter.sh/termination"}}}},
        {"spec",
         {{"requirements", {scenario::Requirement(api::kLabelInstanceType, {"small"})}},
          {"resources", {{"requests", {{"cpu", "1"}}}}},
          {"nodeClassRef",
           {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}};
    const Result<Object> created = client_.Create(resources::kNodeClaims, claim, {});
    ASSERT_THAT(created, IsOk());
  }

  // The informers catch up with the API server.
  void Sync() {
    for (kube::Informer* informer : cluster_.all()) {
      const Status synced = informer->Sync();
      ASSERT_THAT(synced, IsOk());
    }
  }

  std::vector<NodeClaimLifecycle::Requeue> Reconcile(const std::vector<std::string>& names) {
    return lifecycle_.Reconcile(names);
  }

  Object Get(std::string_view name) {
    Result<Object> object = client_.Get(resources::kNodeClaims, "", name);
    return object.ok() ? std::move(*object) : Object();
  }

  std::vector<std::string> EventReasons(std::string_view name) {
    std::vector<std::string> reasons;
    Result<kube::ObjectList> events = client_.List(resources::kEvents, kube::ListOptions{});
    EXPECT_THAT(events, IsOk());
    for (const kube::SharedObject& shared : events->items) {
      const Object& event = *shared;
      if (event["involvedObject"].value("name", "") == name) {
        reasons.push_back(event.value("reason", ""));
      }
    }
    return reasons;
  }

  VirtualClock clock_{kStart};
  kube::memory::MemoryClient client_;
  cloud::SimCloudProvider sim_;
  RecordingCloud cloud_;
  ClusterCache cluster_;
  kube::EventRecorder events_;
  prometheus::Registry registry_;
  Metrics metrics_;
  RegistrationHealth health_;
  NodeClaimLifecycle lifecycle_;
};

TEST_F(NodeClaimLaunchTest, NodeClaimsDueTogetherAreLaunchedInOneCall) {
  for (const char* name : {"a", "b", "c", "deleting"}) CreateNodeClaim(name);
  ASSERT_THAT(client_.Delete(resources::kNodeClaims, "", "deleting", {}), IsOk());
  Sync();

  const std::vector<NodeClaimLifecycle::Requeue> requeues =
      Reconcile({"a", "gone", "b", "deleting", "c"});
  ASSERT_THAT(requeues, SizeIs(5));
  for (const NodeClaimLifecycle::Requeue& requeue : requeues) {
    ASSERT_THAT(requeue, IsOk());
  }
  // One call for the three to launch; neither the missing one nor the one being deleted.
  EXPECT_THAT(cloud_.create_all_calls, ElementsAre(ElementsAre("a", "b", "c")));
  EXPECT_THAT(*sim_.List(), SizeIs(3));
  EXPECT_TRUE(Get("deleting").is_null()) << "finalized without a launch";

  // Each records its own instance (a status write that conflicted with the labels written just
  // before it asks to be looked at again, and the cloud answers with the same instances).
  const auto recorded = [&] {
    return !ClaimProviderId(Get("a")).empty() && !ClaimProviderId(Get("b")).empty() &&
           !ClaimProviderId(Get("c")).empty();
  };
  for (int round = 0; round < 3 && !recorded(); ++round) {
    Sync();
    for (const NodeClaimLifecycle::Requeue& requeue : Reconcile({"a", "b", "c"})) {
      ASSERT_THAT(requeue, IsOk());
    }
  }
  std::vector<std::string> provider_ids;
  for (const char* name : {"a", "b", "c"}) {
    const Object claim = Get(name);
    provider_ids.push_back(ClaimProviderId(claim));
    EXPECT_EQ(ConditionStatus(claim, "Launched"), "True") << name;
    EXPECT_EQ(kube::Label(claim, api::kLabelInstanceType), "small") << name;
  }
  Result<std::vector<cloud::Instance>> instances = sim_.List();
  ASSERT_THAT(instances, IsOk());
  std::vector<std::string> launched;
  for (const cloud::Instance& instance : *instances) launched.push_back(instance.provider_id);
  EXPECT_THAT(launched, UnorderedElementsAre(provider_ids[0], provider_ids[1], provider_ids[2]));
  EXPECT_THAT(cloud_.create_all_calls, Each(AnyOf(ElementsAre("a", "b", "c"), IsEmpty())));

  // Launched, they are not launched again.
  Sync();
  for (const NodeClaimLifecycle::Requeue& requeue : Reconcile({"a", "b", "c"})) {
    ASSERT_THAT(requeue, IsOk());
  }
  EXPECT_THAT(cloud_.create_all_calls.back(), IsEmpty());
  EXPECT_THAT(*sim_.List(), SizeIs(3));
}

TEST_F(NodeClaimLaunchTest, EachNodeClaimOfACallWithoutCapacityIsDeletedWithAnEvent) {
  for (const char* zone : {"us-east-1a", "us-east-1b"}) {
    sim_.SetOfferingAvailable("small", zone, "on-demand", false);
  }
  for (const char* name : {"a", "b"}) CreateNodeClaim(name);
  Sync();

  for (const NodeClaimLifecycle::Requeue& requeue : Reconcile({"a", "b"})) {
    ASSERT_THAT(requeue, IsOk());
    EXPECT_FALSE(requeue->has_value());
  }
  EXPECT_THAT(cloud_.create_all_calls, ElementsAre(ElementsAre("a", "b")));
  for (const char* name : {"a", "b"}) {
    // Deleted (its finalizer holds it until the lifecycle finalizes it), with the reason why.
    EXPECT_FALSE(kube::DeletionTimestamp(Get(name)).empty()) << name;
    EXPECT_THAT(EventReasons(name), ElementsAre("InsufficientCapacityError")) << name;
  }
  EXPECT_THAT(*sim_.List(), IsEmpty());
}

TEST_F(NodeClaimLaunchTest, WorkersRecordLaunchesAtOnceAndDeletionsStillFinish) {
  constexpr size_t kWorkers = 4;
  std::vector<std::string> names;
  for (int i = 0; i < 8; ++i) {
    names.push_back("claim-" + std::to_string(i));
    CreateNodeClaim(names.back());
  }
  CreateNodeClaim("deleting");
  ASSERT_THAT(client_.Delete(resources::kNodeClaims, "", "deleting", {}), IsOk());
  names.emplace_back("deleting");
  Sync();
  OverlapProbe probe(client_, kWorkers);
  NodeClaimLifecycle lifecycle(cluster_, probe, cloud_, events_, metrics_, clock_, Logger(),
                               LifecycleOptions{.workers = kWorkers}, health_);

  for (const NodeClaimLifecycle::Requeue& requeue : lifecycle.Reconcile(names)) {
    ASSERT_THAT(requeue, IsOk());
  }
  // As many writes at once as there are workers, never more.
  EXPECT_EQ(probe.most(), kWorkers);
  EXPECT_THAT(cloud_.create_all_calls, SizeIs(1));
  EXPECT_THAT(cloud_.create_all_calls.front(), SizeIs(8));
  EXPECT_TRUE(Get("deleting").is_null()) << "finalized beside the others";
  for (const std::string& name : names) {
    if (name == "deleting") continue;
    EXPECT_EQ(ConditionStatus(Get(name), "Launched"), "True") << name;
    EXPECT_FALSE(ClaimProviderId(Get(name)).empty()) << name;
  }
  EXPECT_THAT(*sim_.List(), SizeIs(8));
}

}  // namespace
}  // namespace karpenter::controllers
