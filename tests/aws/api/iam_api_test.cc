#include "aws/api/iam_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::Contains;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::SizeIs;

class IamApiTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (!HasFatalFailure()) iam_.emplace(clients_->iam());
  }
  std::string NodeRole() const { return seed_["node_role"].get<std::string>(); }
  std::optional<IamApi> iam_;
};

TEST_F(IamApiTest, GetsTheSeededNodeRoleAndNulloptForAMissingOne) {
  Result<std::optional<IamRole>> role = iam_->GetRole(seed_["node_role"].get<std::string>());
  ASSERT_THAT(role, IsOk());
  ASSERT_TRUE(role->has_value());
  EXPECT_EQ((*role)->name, seed_["node_role"].get<std::string>());
  EXPECT_EQ((*role)->arn, seed_["node_role_arn"].get<std::string>());
  EXPECT_FALSE((*role)->role_id.empty());
  Result<std::optional<IamRole>> missing = iam_->GetRole(testing::UniqueName("missing"));
  ASSERT_THAT(missing, IsOk());
  EXPECT_FALSE(missing->has_value());
}

TEST_F(IamApiTest, AMissingProfileIsNulloptNotAnError) {
  Result<std::optional<InstanceProfile>> profile =
      iam_->GetInstanceProfile(testing::UniqueName("missing"));
  ASSERT_THAT(profile, IsOk());
  EXPECT_FALSE(profile->has_value());
}

TEST_F(IamApiTest, CreatesATaggedProfileAndReadsItBackWithItsRole) {
  const std::string name = testing::UniqueName("profile");
  Result<InstanceProfile> created = iam_->CreateInstanceProfile(
      name, "/karpenter/", {{"kubernetes.io/cluster/" + cluster_, "owned"}, {"team", "nodes"}});
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->name, name);
  EXPECT_EQ(created->path, "/karpenter/");
  EXPECT_FALSE(created->id.empty());
  EXPECT_NE(created->arn.find(":instance-profile/karpenter/" + name), std::string::npos)
      << created->arn;
  EXPECT_THAT(created->roles, IsEmpty());

  Status added = iam_->AddRoleToInstanceProfile(name, NodeRole());
  ASSERT_THAT(added, IsOk());
  Status tagged = iam_->TagInstanceProfile(name, {{"team", "platform"}, {"extra", "1"}});
  ASSERT_THAT(tagged, IsOk());

  Result<std::optional<InstanceProfile>> read = iam_->GetInstanceProfile(name);
  ASSERT_THAT(read, IsOk());
  ASSERT_TRUE(read->has_value());
  const InstanceProfile& profile = **read;
  EXPECT_EQ(profile.id, created->id);
  ASSERT_THAT(profile.roles, SizeIs(1));
  EXPECT_EQ(profile.roles[0].name, NodeRole());
  EXPECT_EQ(profile.roles[0].arn, seed_["node_role_arn"].get<std::string>());
  EXPECT_THAT(profile.tags, Contains(Pair("kubernetes.io/cluster/" + cluster_, "owned")));
  EXPECT_THAT(profile.tags, Contains(Pair("team", "platform")));
  EXPECT_THAT(profile.tags, Contains(Pair("extra", "1")));

  // A profile holding a role cannot be deleted; without it, it can.
  Status refused = iam_->DeleteInstanceProfile(name);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().reason, "DeleteConflict");
  Status removed = iam_->RemoveRoleFromInstanceProfile(name, NodeRole());
  ASSERT_THAT(removed, IsOk());
  Status deleted = iam_->DeleteInstanceProfile(name);
  ASSERT_THAT(deleted, IsOk());
  Result<std::optional<InstanceProfile>> gone = iam_->GetInstanceProfile(name);
  ASSERT_THAT(gone, IsOk());
  EXPECT_FALSE(gone->has_value());
}

TEST_F(IamApiTest, CreatingAnExistingProfileIsAnErrorWithIamsCode) {
  const std::string name = testing::UniqueName("twice");
  ASSERT_THAT(iam_->CreateInstanceProfile(name, "", {}), IsOk());
  Result<InstanceProfile> again = iam_->CreateInstanceProfile(name, "", {});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().reason, "EntityAlreadyExists");
  EXPECT_NE(again.error().message.find("CreateInstanceProfile"), std::string::npos)
      << again.error().message;
  EXPECT_THAT(iam_->DeleteInstanceProfile(name), IsOk());
}

TEST_F(IamApiTest, DeletingAMissingProfileIsNoSuchEntity) {
  Status deleted = iam_->DeleteInstanceProfile(testing::UniqueName("never"));
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(deleted.error().reason, "NoSuchEntity");
  EXPECT_EQ(deleted.error().status, 404);
}

}  // namespace
}  // namespace karpenter::aws
