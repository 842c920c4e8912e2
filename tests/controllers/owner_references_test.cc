#include "controllers/owner_references.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace karpenter::controllers {
namespace {

using testing::EndsWith;
using testing::HasSubstr;

TEST(OwnerReferencesTest, BlockingReferenceNamesItsOwner) {
  const kube::Object reference = BlockingOwnerReference("NodePool", "default", "uid-1");
  EXPECT_EQ(reference["apiVersion"], "karpenter.sh/v1");
  EXPECT_EQ(reference["kind"], "NodePool");
  EXPECT_EQ(reference["name"], "default");
  EXPECT_EQ(reference["uid"], "uid-1");
  EXPECT_EQ(reference["blockOwnerDeletion"], true);
}

// The API server's words when OwnerReferencesPermissionEnforcement refuses a NodeClaim.
constexpr const char* kRefusal =
    "POST /apis/karpenter.sh/v1/nodeclaims: nodeclaims.karpenter.sh \"default-x\" is forbidden: "
    "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set "
    "finalizers on: , <nil>";

TEST(OwnerReferencesTest, TheRefusalNamesTheGrantItLacks) {
  const Error explained =
      ExplainOwnerReferenceDenial(Error(kRefusal, 403, "Forbidden"), "nodepools");
  EXPECT_THAT(explained.message, HasSubstr(kRefusal));
  EXPECT_THAT(explained.message,
              HasSubstr("lacks the verb update on the resource nodepools/finalizers in API group "
                        "karpenter.sh"));
  EXPECT_EQ(explained.status, 403);
  EXPECT_EQ(explained.reason, "Forbidden");
}

TEST(OwnerReferencesTest, OtherErrorsAreLeftAsTheyAre) {
  const Error rbac("nodeclaims.karpenter.sh is forbidden: User \"x\" cannot create resource", 403,
                   "Forbidden");
  EXPECT_EQ(ExplainOwnerReferenceDenial(rbac, "nodepools").message, rbac.message);
  const Error conflict(kRefusal, 409, "Conflict");
  EXPECT_EQ(ExplainOwnerReferenceDenial(conflict, "nodepools").message, kRefusal);
  EXPECT_THAT(ExplainOwnerReferenceDenial(Error(kRefusal, 403, "Forbidden"), "nodeclaims").message,
              EndsWith("which charts/karpenter grants)"));
}

}  // namespace
}  // namespace karpenter::controllers
