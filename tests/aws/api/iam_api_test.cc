#include "aws/api/iam_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "moto_fixture.h"

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

TEST_F(IamApiTest, AMissingProfileIsNulloptNotAnError) {
  Result<std::optional<InstanceProfile>> profile =
      iam_->GetInstanceProfile(testing::UniqueName("missing"));
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_FALSE(profile->has_value());
}

TEST_F(IamApiTest, CreatesATaggedProfileAndReadsItBackWithItsRole) {
  const std::string name = testing::UniqueName("profile");
  Result<InstanceProfile> created = iam_->CreateInstanceProfile(
      name, "/karpenter/", {{"kubernetes.io/cluster/" + cluster_, "owned"}, {"team", "nodes"}});
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(created->name, name);
  EXPECT_EQ(created->path, "/karpenter/");
  EXPECT_FALSE(created->id.empty());
  EXPECT_NE(created->arn.find(":instance-profile/karpenter/" + name), std::string::npos)
      << created->arn;
  EXPECT_THAT(created->roles, IsEmpty());

  Status added = iam_->AddRoleToInstanceProfile(name, NodeRole());
  ASSERT_TRUE(added.ok()) << added.error().message;
  Status tagged = iam_->TagInstanceProfile(name, {{"team", "platform"}, {"extra", "1"}});
  ASSERT_TRUE(tagged.ok()) << tagged.error().message;

  Result<std::optional<InstanceProfile>> read = iam_->GetInstanceProfile(name);
  ASSERT_TRUE(read.ok()) << read.error().message;
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
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  Status deleted = iam_->DeleteInstanceProfile(name);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  Result<std::optional<InstanceProfile>> gone = iam_->GetInstanceProfile(name);
  ASSERT_TRUE(gone.ok()) << gone.error().message;
  EXPECT_FALSE(gone->has_value());
}

TEST_F(IamApiTest, CreatingAnExistingProfileIsAnErrorWithIamsCode) {
  const std::string name = testing::UniqueName("twice");
  ASSERT_TRUE(iam_->CreateInstanceProfile(name, "", {}).ok());
  Result<InstanceProfile> again = iam_->CreateInstanceProfile(name, "", {});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().reason, "EntityAlreadyExists");
  EXPECT_NE(again.error().message.find("CreateInstanceProfile"), std::string::npos)
      << again.error().message;
  EXPECT_TRUE(iam_->DeleteInstanceProfile(name).ok());
}

TEST_F(IamApiTest, DeletingAMissingProfileIsNoSuchEntity) {
  Status deleted = iam_->DeleteInstanceProfile(testing::UniqueName("never"));
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(deleted.error().reason, "NoSuchEntity");
  EXPECT_EQ(deleted.error().status, 404);
}

}  // namespace
}  // namespace karpenter::aws
