// NodeOverlays on the test cluster: `karpenter controller --cloud-provider sim` with the
// NodeOverlay gate on, as the chart sets it (settings.featureGates.nodeOverlay: true), and the
// chart's RBAC. A discount overlay makes the m family the choice where list prices pick c, a rival
// of the same weight is reported as a Conflict and applies nowhere, and a capacity overlay lets
// kube-scheduler place a pod that asks for a device the m nodes get (the simulated machine reports
// it as its device plugin would). Without the gate the same manifests launch c nodes, and the pod
// asking for the device stays pending.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/condition.h"
#include "api/labels.h"
#include "integration/end_to_end.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;
using testing::HasSubstr;

class NodeOverlayE2E : public ControllerEndToEnd {
 protected:
  NodeOverlayE2E() : ControllerEndToEnd({"e2e-overlays"}) {}

  // The condition `type` of the NodeOverlay `name`; null when absent.
  kube::Object OverlayCondition(const std::string& name, std::string_view type) {
    Result<kube::Object> overlay = client_->Get(kube::resources::kNodeOverlays, "", name);
    if (!overlay.ok()) return nullptr;
    for (const kube::Object& condition : Part(Part(*overlay, "status"), "conditions").is_array()
                                             ? Part(Part(*overlay, "status"), "conditions")
                                             : kube::Object::array()) {
      if (condition.value("type", "") == type) return condition;
    }
    return nullptr;
  }

  std::vector<std::string> Categories() {
    std::vector<std::string> categories;
    for (const kube::Object& node : SimNodes(*client_)) {
      categories.emplace_back(kube::Label(node, api::kLabelInstanceCategory));
    }
    return categories;
  }
};

TEST_F(NodeOverlayE2E, OverlaysChooseTypesAndAddCapacityWithTheirGate) {
  EnableGateAsTheChartWould("NodeOverlay");
  if (HasFatalFailure()) return;
  StartController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "overlays.yaml"));
  ASSERT_TRUE(
      support::WaitFor([&] { return CountRunning(*client_, "e2e-overlays") == 3; }, seconds(180)))
      << CountRunning(*client_, "e2e-overlays") << " of 3 pods running";
  EXPECT_THAT(Categories(), testing::Each("m"));

  for (const char* applied : {"m-half-price", "fuse-devices"}) {
    ASSERT_TRUE(support::WaitFor(
        [&] {
          return OverlayCondition(applied, api::kConditionReady).value("status", "") == "True";
        },
        seconds(30)))
        << applied;
  }
  const kube::Object conflict = OverlayCondition("a-rival", api::kConditionValidationSucceeded);
  EXPECT_EQ(conflict.value("status", ""), "False");
  EXPECT_EQ(conflict.value("reason", ""), "Conflict");
  EXPECT_THAT(conflict.value("message", ""), HasSubstr("m-half-price"));
  // The device the overlay added is on the Node the pod that asked for it runs on.
  for (const kube::Object& pod : List(*client_, kube::resources::kPods, "e2e-overlays")) {
    if (kube::Label(pod, "app") != "fuse") continue;
    Result<kube::Object> node = client_->Get(kube::resources::kNodes, "", NodeName(pod));
    ASSERT_THAT(node, IsOk());
    EXPECT_EQ(Part(Part(*node, "status"), "allocatable").value("smarter-devices/fuse", ""), "4");
  }
  EXPECT_TRUE(controller_->Running());
}

TEST_F(NodeOverlayE2E, WithoutTheGateOverlaysChangeNothing) {
  StartController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "overlays.yaml"));
  ASSERT_TRUE(
      support::WaitFor([&] { return CountRunning(*client_, "e2e-overlays") == 2; }, seconds(180)));
  EXPECT_THAT(Categories(), testing::Each("c"));
  // Nothing reports the device: Karpenter says it cannot place the pod that asks for it, and
  // launches nothing for it.
  std::string fuse_pod;
  for (const kube::Object& pod : List(*client_, kube::resources::kPods, "e2e-overlays")) {
    if (kube::Label(pod, "app") == "fuse") fuse_pod = kube::Name(pod);
  }
  ASSERT_FALSE(fuse_pod.empty());
  ASSERT_TRUE(support::WaitFor(
      [&] {
        return !EventMessages(*client_, "e2e-overlays", fuse_pod, "FailedScheduling").empty();
      },
      seconds(60)));
  EXPECT_THAT(EventMessages(*client_, "e2e-overlays", fuse_pod, "FailedScheduling").front(),
              HasSubstr("smarter-devices/fuse"));
  EXPECT_EQ(CountRunning(*client_, "e2e-overlays"), 2U);
  EXPECT_TRUE(OverlayCondition("m-half-price", api::kConditionReady).is_null());
}

}  // namespace
}  // namespace karpenter::integration
