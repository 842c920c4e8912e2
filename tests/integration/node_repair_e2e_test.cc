// Node repair on the test cluster: `karpenter controller --cloud-provider sim` with the NodeRepair
// gate on, as the chart sets it (settings.featureGates.nodeRepair: true), replaces a node whose
// ContainerRuntimeReady condition (one of EC2's repair policies, which the simulated EC2 shares)
// has been False for an hour — without draining, so a PodDisruptionBudget that allows no eviction
// does not hold it — and its pod runs again on a new node.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "api/labels.h"
#include "common/clock.h"
#include "integration/end_to_end.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;
using testing::AllOf;
using testing::ElementsAre;
using testing::HasSubstr;

class NodeRepairE2E : public ControllerEndToEnd {
 protected:
  NodeRepairE2E() : ControllerEndToEnd({"e2e-repair"}) {}

  // Adds ContainerRuntimeReady=False, changed an hour ago, to the Node's conditions unless it is
  // there. kwok's heartbeat keeps the conditions it finds, but one it wrote from an older read may
  // drop it, so the test puts it back until the node is gone.
  void KeepUnhealthy(const std::string& name) {
    Result<kube::Object> node = client_->Get(kube::resources::kNodes, "", name);
    if (!node.ok()) return;
    kube::Object conditions = kube::Object::array();
    for (const kube::Object& condition :
         Part(*node, "status").value("conditions", kube::Object::array())) {
      if (condition.value("type", "") == "ContainerRuntimeReady") return;
      conditions.push_back(condition);
    }
    const std::string an_hour_ago = FormatTime(RealClock().Now() - std::chrono::hours(1));
    conditions.push_back({{"type", "ContainerRuntimeReady"},
                          {"status", "False"},
                          {"reason", "ContainerRuntimeIsDown"},
                          {"message", "set by the e2e test"},
                          {"lastHeartbeatTime", an_hour_ago},
                          {"lastTransitionTime", an_hour_ago}});
    (void)client_->Patch(kube::resources::kNodes, "", name, kube::PatchType::kMerge,
                         {{"status", {{"conditions", std::move(conditions)}}}},
                         kube::Subresource::kStatus);
  }
};

TEST_F(NodeRepairE2E, ANodeUnhealthyPastItsTolerationIsReplacedWithoutADrain) {
  EnableGateAsTheChartWould("NodeRepair");
  if (HasFatalFailure()) return;
  StartController(/*chart_metrics_port=*/true);
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "repair.yaml"));
  ASSERT_TRUE(support::WaitFor(
      [&] { return CountRunning(*client_, "e2e-repair") == 2 && SimNodes(*client_).size() == 2; },
      seconds(180)))
      << CountRunning(*client_, "e2e-repair") << " of 2 pods Running";
  const std::vector<kube::Object> nodes = SimNodes(*client_);
  const std::string sick(kube::Name(nodes.front()));
  const std::string sick_uid(kube::Uid(nodes.front()));
  const std::string healthy(kube::Name(nodes.back()));

  std::string claim;
  for (const kube::Object& object : List(*client_, kube::resources::kNodeClaims)) {
    if (Part(object, "status").value("nodeName", "") == sick) claim = kube::Name(object);
  }
  ASSERT_FALSE(claim.empty()) << "no NodeClaim for " << sick;

  const bool replaced = support::WaitFor(
      [&] {
        KeepUnhealthy(sick);
        if (client_->Get(kube::resources::kNodeClaims, "", claim).ok()) return false;
        if (client_->Get(kube::resources::kNodes, "", sick).ok()) return false;
        if (CountRunning(*client_, "e2e-repair") != 2) return false;
        for (const kube::Object& pod : List(*client_, kube::resources::kPods, "e2e-repair")) {
          if (NodeName(pod) == sick) return false;
        }
        return true;
      },
      seconds(180));
  ASSERT_TRUE(replaced) << "the unhealthy node " << sick << " was not replaced";
  EXPECT_THAT(EventMessages(*client_, "default", sick, "NodeRepair", sick_uid),
              ElementsAre(AllOf(HasSubstr("ContainerRuntimeReady has been False for"),
                                HasSubstr("past its toleration of 30m"))));
  EXPECT_TRUE(client_->Get(kube::resources::kNodes, "", healthy).ok())
      << "the healthy node was left alone";
  EXPECT_EQ(SimNodes(*client_).size(), 2U);

  const std::vector<support::Sample> scrape = ScrapeChartPort();
  EXPECT_EQ(support::Sum(scrape, "karpenter_nodeclaims_unhealthy_disrupted_total",
                         {{"condition", "container_runtime_ready"}, {"nodepool", "default"}}),
            1);
  EXPECT_EQ(support::Sum(scrape, "karpenter_nodeclaims_disrupted_total",
                         {{"reason", "unhealthy"}, {"nodepool", "default"}}),
            1);
  EXPECT_TRUE(controller_->Running());
}

}  // namespace
}  // namespace karpenter::integration
