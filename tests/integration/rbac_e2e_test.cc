// The controller with one grant of the chart's RBAC missing: scripts/testenv/identity's
// "identity-denied" lacks `update nodepools/finalizers`, which the API server requires of a
// NodeClaim created with a blockOwnerDeletion reference to its NodePool
// (OwnerReferencesPermissionEnforcement, on in the test cluster). The controller says which verb on
// which resource was denied, creates nothing, and keeps running. (The audit of the full identity,
// tests/scripts/rbac_audit_test, cannot see this grant used: it is an authorization check inside a
// request, not a request.)

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "integration/end_to_end.h"

namespace karpenter::integration {
namespace {

using std::chrono::seconds;

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

class RbacE2E : public ControllerEndToEnd {
 protected:
  RbacE2E() : ControllerEndToEnd({"e2e"}) {}
};

TEST_F(RbacE2E, AMissingGrantIsReportedAndTheControllerKeepsRunning) {
  Result<support::ChartIdentity> denied =
      support::ReadChartIdentity(KARPENTER_TESTENV_DIR, "identity-denied");
  ASSERT_THAT(denied, IsOk());
  identity_ = std::move(*denied);
  StartController();
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "provisioning.yaml"));

  // The API server's refusal does not name the grant; the controller's error does.
  const std::string denial =
      "lacks the verb update on the resource nodepools/finalizers in API group karpenter.sh";
  ASSERT_TRUE(support::WaitFor([&] { return Count(controller_->Log(), denial) >= 2; }, seconds(90)))
      << "the controller did not report the denied grant twice; its log:\n"
      << controller_->Log();
  const std::string log = controller_->Log();
  EXPECT_NE(log.find(R"("message":"creating nodeclaim failed")"), std::string::npos) << log;
  // Still running, and still trying: nothing was created meanwhile.
  EXPECT_TRUE(controller_->Running());
  EXPECT_THAT(List(*client_, kube::resources::kNodeClaims), testing::IsEmpty());
  EXPECT_THAT(SimNodes(*client_), testing::IsEmpty());
  EXPECT_EQ(controller_->Stop(), 0) << "a graceful stop after the denials";
}

}  // namespace
}  // namespace karpenter::integration
