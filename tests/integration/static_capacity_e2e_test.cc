// Static capacity on the test cluster: `karpenter controller --cloud-provider sim` with the
// StaticCapacity gate on, as the chart sets it (settings.featureGates.staticCapacity: true), keeps
// a NodePool of `replicas: 3` at three nodes though one pod needs one of them; `kubectl scale
// nodepool --replicas 1` (the CRD's scale subresource) removes the two empty ones and keeps the
// node whose pod a PDB protects; scaling up again launches; and the API server refuses to turn the
// static NodePool into a dynamic one.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "api/labels.h"
#include "integration/end_to_end.h"
#include "support/run_command.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;
using testing::HasSubstr;

class StaticCapacityE2E : public ControllerEndToEnd {
 protected:
  StaticCapacityE2E() : ControllerEndToEnd({"e2e-static"}) {}

  std::set<std::string> Claims() {
    std::set<std::string> names;
    for (const kube::Object& claim : List(*client_, kube::resources::kNodeClaims)) {
      if (kube::Label(claim, api::kLabelNodePool) == "static") names.emplace(kube::Name(claim));
    }
    return names;
  }

  // `kubectl ARGS` against the test cluster, as its administrator; what it printed.
  static std::string Kubectl(const std::string& args) {
    const std::string bin = support::RunCommand(std::string(KARPENTER_SOURCE_DIR) +
                                                "/scripts/testenv/build 2>/dev/null");
    return support::RunCommand(bin.substr(0, bin.find_last_not_of('\n') + 1) +
                               "/kubectl --kubeconfig " + KARPENTER_TESTENV_KUBECONFIG + " " +
                               args + " 2>&1");
  }
};

TEST_F(StaticCapacityE2E, KeepsItsReplicasAndScalesWithKubectl) {
  EnableGateAsTheChartWould("StaticCapacity");
  if (HasFatalFailure()) return;
  StartController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "static.yaml"));
  ASSERT_TRUE(support::WaitFor(
      [&] { return CountRunning(*client_, "e2e-static") == 1 && SimNodes(*client_).size() == 3; },
      seconds(180)))
      << SimNodes(*client_).size() << " of 3 nodes";
  const std::set<std::string> three = Claims();
  ASSERT_EQ(three.size(), 3U);
  std::string busy;
  for (const kube::Object& pod : List(*client_, kube::resources::kPods, "e2e-static")) {
    busy = NodeName(pod);
  }
  ASSERT_FALSE(busy.empty());

  EXPECT_THAT(Kubectl("scale nodepool static --replicas 1"), HasSubstr("scaled"));
  ASSERT_TRUE(support::WaitFor(
      [&] { return Claims().size() == 1 && SimNodes(*client_).size() == 1; }, seconds(120)))
      << Claims().size() << " NodeClaims left";
  EXPECT_EQ(kube::Name(SimNodes(*client_).front()), busy) << "the node with the pod was kept";
  EXPECT_TRUE(three.contains(*Claims().begin()));
  ASSERT_TRUE(support::WaitFor(
      [&] {
        Result<kube::Object> pool = client_->Get(kube::resources::kNodePools, "", "static");
        return pool.ok() && Part(*pool, "status").value("nodes", -1) == 1;
      },
      seconds(30)));
  EXPECT_EQ(CountRunning(*client_, "e2e-static"), 1U);

  // Static it stays: the CRD refuses to drop replicas.
  Result<kube::Object> dynamic =
      client_->Patch(kube::resources::kNodePools, "", "static", kube::PatchType::kMerge,
                     {{"spec", {{"replicas", nullptr}}}}, kube::Subresource::kNone);
  ASSERT_FALSE(dynamic.ok());
  EXPECT_THAT(dynamic.error().message, HasSubstr("cannot change between static"));

  EXPECT_THAT(Kubectl("scale nodepool static --replicas 2"), HasSubstr("scaled"));
  ASSERT_TRUE(support::WaitFor([&] { return SimNodes(*client_).size() == 2; }, seconds(120)));
  EXPECT_EQ(Claims().size(), 2U);
  EXPECT_TRUE(controller_->Running());
}

}  // namespace
}  // namespace karpenter::integration
