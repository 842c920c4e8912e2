// Preemption on the test cluster: the real kube-scheduler evicts a low-priority pod for a
// high-priority one and nominates its node (status.nominatedNodeName), leaving the preemptor
// marked Unschedulable until the victim is gone. `karpenter controller --cloud-provider sim`, run
// as the chart runs it, must not launch capacity for that pod, as upstream does not: it binds to
// the node it preempted on. The victim's finalizer holds the preemption open for as long as the
// test looks.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "integration/end_to_end.h"
#include "kube/client.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;

constexpr const char* kNamespace = "e2e-preempt";

class PreemptionE2E : public ControllerEndToEnd {
 protected:
  PreemptionE2E() : ControllerEndToEnd({kNamespace}) {}
  void TearDown() override {
    ControllerEndToEnd::TearDown();
    if (client_) {
      (void)client_->Delete(kube::resources::kPriorityClasses, "", "e2e-preemptor", {});
    }
  }

  kube::Object Pod(const std::string& name) {
    Result<kube::Object> pod = client_->Get(kube::resources::kPods, kNamespace, name);
    return pod.ok() ? *pod : kube::Object::object();
  }
};

TEST_F(PreemptionE2E, NoCapacityIsLaunchedForAPodThatPreempts) {
  StartController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "preemption.yaml"));
  ASSERT_TRUE(support::WaitFor([&] { return Phase(Pod("victim")) == "Running"; }, seconds(120)));
  const std::string node = NodeName(Pod("victim"));
  ASSERT_EQ(List(*client_, kube::resources::kNodeClaims).size(), 1u);

  // The same 3 vCPU at a higher priority: it fits nowhere, so kube-scheduler evicts the victim.
  const kube::Object preemptor = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "preemptor"}, {"namespace", kNamespace}}},
      {"spec",
       {{"priorityClassName", "e2e-preemptor"},
        {"containers",
         kube::Object::array(
             {{{"name", "preemptor"},
               {"image", "registry.k8s.io/pause:3.10"},
               {"resources", {{"requests", {{"cpu", "3"}, {"memory", "1Gi"}}}}}}})}}}};
  ASSERT_OK(support::Apply(*client_, preemptor));
  ASSERT_TRUE(support::WaitFor(
      [&] {
        return kube::StringAt(Pod("preemptor"), {"status", "nominatedNodeName"}) == node &&
               !kube::DeletionTimestamp(Pod("victim")).empty();
      },
      seconds(60)))
      << "kube-scheduler did not preempt the victim on " << node;
  const kube::Object waiting = Pod("preemptor");
  ASSERT_TRUE(NodeName(waiting).empty());
  bool unschedulable = false;
  for (const kube::Object& condition :
       Part(waiting, "status").value("conditions", kube::Object::array())) {
    unschedulable = unschedulable || (condition.value("type", "") == "PodScheduled" &&
                                      condition.value("reason", "") == "Unschedulable");
  }
  ASSERT_TRUE(unschedulable) << "the preemptor is not marked Unschedulable: " << waiting.dump();

  // The preemption stays open (the victim's finalizer) for longer than the controller's longest
  // batch window (10 s): a controller that took the pod for one to provision for launches by then.
  std::this_thread::sleep_for(seconds(15));
  EXPECT_EQ(List(*client_, kube::resources::kNodeClaims).size(), 1u)
      << "capacity was launched for a pod that preempts";
  EXPECT_TRUE(NodeName(Pod("preemptor")).empty());

  // Released, the victim goes and the preemptor binds to the node it preempted on.
  ASSERT_THAT(client_->Patch(kube::resources::kPods, kNamespace, "victim", kube::PatchType::kMerge,
                             {{"metadata", {{"finalizers", nullptr}}}}, kube::Subresource::kNone),
              IsOk());
  ASSERT_TRUE(support::WaitFor([&] { return Phase(Pod("preemptor")) == "Running"; }, seconds(60)));
  EXPECT_EQ(NodeName(Pod("preemptor")), node);
  EXPECT_EQ(List(*client_, kube::resources::kNodeClaims).size(), 1u);
  EXPECT_TRUE(controller_->Running());
}

}  // namespace
}  // namespace karpenter::integration
