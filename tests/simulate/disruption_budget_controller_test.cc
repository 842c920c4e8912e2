#include "simulate/disruption_budget_controller.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/clock.h"
#include "controllers/cluster_cache.h"
#include "kube/disruption_budget.h"
#include "kube/memory/memory_client.h"
#include "support/matchers.h"

namespace karpenter::simulate {
namespace {

using kube::Object;
namespace resources = kube::resources;

class DisruptionBudgetControllerTest : public testing::Test {
 protected:
  void AddPod(const std::string& name, const std::string& app, bool ready) {
    const Object pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"namespace", "shop"}, {"labels", {{"app", app}}}}},
        {"spec", {{"nodeName", "node-1"}, {"containers", Object::array({{{"name", "c"}}})}}}};
    ASSERT_THAT(store_.Create(resources::kPods, pod, {}), IsOk());
    if (ready) SetReady(name, true);
  }

  void SetReady(const std::string& name, bool ready) {
    const Object status = {
        {"status",
         {{"phase", "Running"},
          {"conditions",
           Object::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}}}};
    ASSERT_THAT(store_.Patch(resources::kPods, "shop", name, kube::PatchType::kMerge, status,
                             kube::Subresource::kStatus),
                IsOk());
  }

  void SetSelector(const std::string& app) {
    ASSERT_THAT(
        store_.Patch(resources::kPodDisruptionBudgets, "shop", "budget", kube::PatchType::kMerge,
                     {{"spec", {{"selector", {{"matchLabels", {{"app", app}}}}}}}},
                     kube::Subresource::kNone),
        IsOk());
  }

  // The informers see what changed; the controller writes; returns how many statuses it wrote.
  size_t RunOnce() {
    for (kube::Informer* informer : cluster_.all()) {
      EXPECT_THAT(informer->Pump(std::chrono::milliseconds(0)), IsOk());
    }
    Result<size_t> written = controller_.Run();
    EXPECT_THAT(written, IsOk());
    for (kube::Informer* informer : cluster_.all()) {
      EXPECT_THAT(informer->Pump(std::chrono::milliseconds(0)), IsOk());
    }
    return written.ok() ? *written : 0;
  }

  // The status written, and what counting every pod of the namespace afresh says it must be.
  void ExpectCurrent(int64_t expected_pods, int64_t healthy, int64_t allowed) {
    Result<Object> budget = store_.Get(resources::kPodDisruptionBudgets, "shop", "budget");
    ASSERT_THAT(budget, IsOk());
    kube::ListOptions in_shop;
    in_shop.namespace_ = "shop";
    Result<kube::ObjectList> pods = store_.List(resources::kPods, in_shop);
    ASSERT_THAT(pods, IsOk());
    Result<kube::DisruptionBudgetStatus> recount =
        kube::ComputeDisruptionBudget(*budget, pods->items);
    ASSERT_THAT(recount, IsOk());
    const Object& status = (*budget)["status"];
    EXPECT_EQ(status["expectedPods"], recount->expected_pods);
    EXPECT_EQ(status["currentHealthy"], recount->current_healthy);
    EXPECT_EQ(status["disruptionsAllowed"], recount->disruptions_allowed);
    EXPECT_EQ(status["observedGeneration"], kube::Generation(*budget));
    EXPECT_EQ(status["expectedPods"], expected_pods);
    EXPECT_EQ(status["currentHealthy"], healthy);
    EXPECT_EQ(status["disruptionsAllowed"], allowed);
  }

  VirtualClock clock_{TimePoint{}};
  kube::memory::MemoryClient store_{clock_};
  controllers::ClusterCache cluster_{store_};
  DisruptionBudgetController controller_{store_, cluster_};
};

// Counts kept from pod events agree with a recount after every kind of change: pods becoming
// Ready, the selector changing, pods deleted, pods added after the budget.
TEST_F(DisruptionBudgetControllerTest, StatusFollowsPodsAndSelectorAsARecountWould) {
  const Object shop = {
      {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "shop"}}}};
  ASSERT_THAT(store_.Create(resources::kNamespaces, shop, {}), IsOk());
  AddPod("web-1", "web", true);
  AddPod("web-2", "web", true);
  AddPod("web-3", "web", true);
  AddPod("web-4", "web", false);
  AddPod("db-1", "db", true);
  const Object budget = {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", "budget"}, {"namespace", "shop"}}},
      {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
  ASSERT_THAT(store_.Create(resources::kPodDisruptionBudgets, budget, {}), IsOk());
  for (kube::Informer* informer : cluster_.all()) ASSERT_THAT(informer->Sync(), IsOk());

  EXPECT_EQ(RunOnce(), 1U);
  ExpectCurrent(4, 3, 0);    // one of four is not Ready: that is the one allowed
  EXPECT_EQ(RunOnce(), 0U);  // nothing changed: nothing written

  SetReady("web-4", true);
  EXPECT_EQ(RunOnce(), 1U);
  ExpectCurrent(4, 4, 1);

  AddPod("web-5", "web", true);
  EXPECT_EQ(RunOnce(), 1U);
  ExpectCurrent(5, 5, 1);

  SetSelector("db");
  EXPECT_EQ(RunOnce(), 1U);
  ExpectCurrent(1, 1, 1);

  ASSERT_THAT(store_.Delete(resources::kPods, "shop", "db-1", {}), IsOk());
  EXPECT_EQ(RunOnce(), 1U);
  ExpectCurrent(0, 0, 0);  // a budget that selects nothing allows nothing

  SetSelector("web");
  ASSERT_THAT(store_.Delete(resources::kPods, "shop", "web-1", {}), IsOk());
  EXPECT_EQ(RunOnce(), 1U);
  ExpectCurrent(4, 4, 1);
}

}  // namespace
}  // namespace karpenter::simulate
