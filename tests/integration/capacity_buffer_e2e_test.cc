// CapacityBuffers on the test cluster: `karpenter controller --cloud-provider sim` with the
// CapacityBuffer gate on, as the chart sets it (settings.featureGates.capacityBuffer: true), and
// the chart's RBAC. A buffer of two copies of a PodTemplate's pod launches two nodes with no pod on
// them; the Deployment's first pod then runs at once on one of them (kube-scheduler binds
// it, no node boots for it), and the buffer's room is launched again. The buffer's status says
// what happened.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "api/labels.h"
#include "controllers/capacity_buffers.h"
#include "integration/end_to_end.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;

class CapacityBufferE2E : public ControllerEndToEnd {
 protected:
  CapacityBufferE2E() : ControllerEndToEnd({"e2e-buffers"}) {}

  kube::Object BufferStatus(const std::string& name = "warm-web") {
    Result<kube::Object> buffer =
        client_->Get(kube::resources::kCapacityBuffers, "e2e-buffers", name);
    return buffer.ok() ? Part(*buffer, "status") : kube::Object::object();
  }

  std::string Reason(std::string_view type, const std::string& name = "warm-web") {
    const kube::Object status = BufferStatus(name);
    for (const kube::Object& condition : Part(status, "conditions")) {
      if (condition.value("type", "") == type) return condition.value("reason", "");
    }
    return "";
  }

  std::set<std::string> NodeNames() {
    std::set<std::string> names;
    for (const kube::Object& node : SimNodes(*client_)) names.emplace(kube::Name(node));
    return names;
  }
};

TEST_F(CapacityBufferE2E, RoomIsReadyBeforeThePodAndLaunchedAgainAfter) {
  EnableGateAsTheChartWould("CapacityBuffer");
  if (HasFatalFailure()) return;
  StartController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "buffers.yaml"));
  ASSERT_TRUE(support::WaitFor(
      [&] {
        return SimNodes(*client_).size() == 2 &&
               Reason(controllers::kConditionProvisioning) == "FitsExistingCapacity";
      },
      seconds(120)))
      << SimNodes(*client_).size() << " nodes; Provisioning "
      << Reason(controllers::kConditionProvisioning);
  EXPECT_EQ(BufferStatus().value("replicas", -1), 2);
  EXPECT_EQ(Part(BufferStatus(), "podTemplateRef").value("name", ""), "web");
  EXPECT_EQ(CountRunning(*client_, "e2e-buffers"), 0U);
  const std::set<std::string> warm = NodeNames();
  // The buffers of no room on each workload kind resolved (the controller read each workload).
  for (const std::string name : {"web-none", "cache-none", "batch-none"}) {
    ASSERT_TRUE(support::WaitFor(
        [&] { return Reason(controllers::kConditionProvisioning, name) == "BufferEmpty"; },
        seconds(60)))
        << name;
    EXPECT_EQ(Reason(controllers::kConditionReadyForProvisioning, name), "Resolved") << name;
    EXPECT_EQ(BufferStatus(name).value("replicas", -1), 0) << name;
  }

  // The buffer's workload scales up: its pod runs at once on buffer room.
  ASSERT_THAT(
      client_->Patch(kube::resources::kDeployments, "e2e-buffers", "web", kube::PatchType::kMerge,
                     {{"spec", {{"replicas", 1}}}}, kube::Subresource::kNone),
      IsOk());
  ASSERT_TRUE(
      support::WaitFor([&] { return CountRunning(*client_, "e2e-buffers") == 1; }, seconds(60)));
  for (const kube::Object& pod : List(*client_, kube::resources::kPods, "e2e-buffers")) {
    EXPECT_TRUE(warm.contains(NodeName(pod))) << NodeName(pod) << " is not a node the buffer kept";
  }
  // The room the pod took is launched again.
  ASSERT_TRUE(support::WaitFor([&] { return SimNodes(*client_).size() == 3; }, seconds(120)));
  EXPECT_TRUE(controller_->Running());
}

}  // namespace
}  // namespace karpenter::integration
