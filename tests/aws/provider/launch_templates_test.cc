// Launch templates against moto: named by their content, created once, deleted with their class.

#include "aws/provider/launch_templates.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "aws/api/moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

class LaunchTemplatesTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    ec2_.emplace(clients_->ec2());
    cluster_name_ = testing::UniqueName("cluster");
    templates_.emplace(*ec2_, cluster_name_, clock_);
    node_class_ = testing::UniqueName("nodeclass");
  }

  void TearDown() override {
    if (templates_) (void)templates_->DeleteForNodeClass(node_class_);
  }

  LaunchTemplateInput Input(const std::string& image) const {
    LaunchTemplateInput input;
    input.image_id = image;
    input.instance_profile = "profile";
    input.security_group_ids = {seed_["security_group"].get<std::string>()};
    input.user_data_base64 = "IyEvYmluL2Jhc2gK";
    return input;
  }

  size_t Count() {
    Result<std::vector<LaunchTemplate>> found =
        ec2_->DescribeLaunchTemplates({{"tag:karpenter.k8s.aws/ec2nodeclass", {node_class_}}});
    EXPECT_THAT(found, IsOk());
    return found.ok() ? found->size() : 0;
  }

  std::optional<Ec2Api> ec2_;
  std::string cluster_name_;
  std::optional<LaunchTemplates> templates_;
  std::string node_class_;
};

TEST_F(LaunchTemplatesTest, TheNameFollowsTheContent) {
  const LaunchTemplateInput a = Input("ami-1");
  LaunchTemplateInput renamed = a;
  renamed.name = "ignored";
  EXPECT_EQ(LaunchTemplateName(a), LaunchTemplateName(renamed));
  EXPECT_TRUE(LaunchTemplateName(a).starts_with("karpenter.k8s.aws/"));
  LaunchTemplateInput other_image = a;
  other_image.image_id = "ami-2";
  LaunchTemplateInput other_data = a;
  other_data.user_data_base64 = "IyEvYmluL3NoCg==";
  LaunchTemplateInput other_hops = a;
  other_hops.metadata.http_put_response_hop_limit = 2;
  for (const LaunchTemplateInput& changed : {other_image, other_data, other_hops}) {
    EXPECT_NE(LaunchTemplateName(changed), LaunchTemplateName(a));
  }
  // The order security groups are listed in does not matter.
  LaunchTemplateInput two = a;
  two.security_group_ids = {"sg-1", "sg-2"};
  LaunchTemplateInput swapped = a;
  swapped.security_group_ids = {"sg-2", "sg-1"};
  EXPECT_EQ(LaunchTemplateName(two), LaunchTemplateName(swapped));
}

TEST_F(LaunchTemplatesTest, CreatedOnceTaggedAndDeletedWithTheNodeClass) {
  const std::string image = seed_["images"]["al2023_x86_64"]["id"].get<std::string>();
  Result<std::string> first = templates_->Ensure(Input(image), node_class_);
  ASSERT_THAT(first, IsOk());
  Result<std::string> second = templates_->Ensure(Input(image), node_class_);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(Count(), 1U);

  // Another replica (or this one after a restart) finds the template EC2 already has.
  LaunchTemplates restarted(*ec2_, cluster_name_, clock_);
  Result<std::string> found = restarted.Ensure(Input(image), node_class_);
  ASSERT_THAT(found, IsOk());
  EXPECT_EQ(*found, *first);

  Result<std::string> arm = templates_->Ensure(
      Input(seed_["images"]["al2023_arm64"]["id"].get<std::string>()), node_class_);
  ASSERT_THAT(arm, IsOk());
  EXPECT_NE(*arm, *first);
  EXPECT_EQ(Count(), 2U);

  Result<std::vector<LaunchTemplate>> described =
      ec2_->DescribeLaunchTemplates({{"launch-template-name", {*first}}});
  ASSERT_THAT(described, IsOk());
  ASSERT_EQ(described->size(), 1U);
  EXPECT_EQ(described->front().tags.at("karpenter.k8s.aws/cluster"), cluster_name_);

  // Another node class's templates are not touched.
  const std::string other_class = testing::UniqueName("nodeclass");
  ASSERT_THAT(templates_->Ensure(Input(image), other_class), IsOk());
  Result<int> deleted = templates_->DeleteForNodeClass(node_class_);
  ASSERT_THAT(deleted, IsOk());
  EXPECT_EQ(*deleted, 2);
  EXPECT_EQ(Count(), 0U);
  Result<int> others = templates_->DeleteForNodeClass(other_class);
  ASSERT_THAT(others, IsOk());
  EXPECT_EQ(*others, 1);

  // Forgotten templates are created again on the next use.
  Result<std::string> recreated = templates_->Ensure(Input(image), node_class_);
  ASSERT_THAT(recreated, IsOk());
  EXPECT_EQ(Count(), 1U);
}

TEST_F(LaunchTemplatesTest, TemplatesNoLaunchUsedForAWhileAreDeleted) {
  VirtualClock clock(std::chrono::system_clock::now());
  LaunchTemplates templates(*ec2_, cluster_name_, clock);
  const std::string image = seed_["images"]["al2023_x86_64"]["id"].get<std::string>();
  const std::string arm_image = seed_["images"]["al2023_arm64"]["id"].get<std::string>();
  Result<std::string> old_one = templates.Ensure(Input(image), node_class_);
  ASSERT_THAT(old_one, IsOk());
  clock.Advance(std::chrono::minutes(10));
  Result<std::string> recent = templates.Ensure(Input(arm_image), node_class_);
  ASSERT_THAT(recent, IsOk());

  Result<int> deleted = templates.DeleteUnused(node_class_, std::chrono::minutes(5));
  ASSERT_THAT(deleted, IsOk());
  EXPECT_EQ(*deleted, 1);
  Result<std::vector<LaunchTemplate>> left =
      ec2_->DescribeLaunchTemplates({{"tag:karpenter.k8s.aws/ec2nodeclass", {node_class_}}});
  ASSERT_THAT(left, IsOk());
  ASSERT_EQ(left->size(), 1U);
  EXPECT_EQ(left->front().name, *recent);

  // A restarted controller counts the templates it finds from its start, not as unused.
  LaunchTemplates restarted(*ec2_, cluster_name_, clock);
  deleted = restarted.DeleteUnused(node_class_, std::chrono::minutes(5));
  ASSERT_THAT(deleted, IsOk());
  EXPECT_EQ(*deleted, 0);
  clock.Advance(std::chrono::minutes(6));
  deleted = restarted.DeleteUnused(node_class_, std::chrono::minutes(5));
  ASSERT_THAT(deleted, IsOk());
  EXPECT_EQ(*deleted, 1);
  EXPECT_EQ(Count(), 0U);

  // The deleted template is made again when a launch needs it.
  Result<std::string> again = templates.Ensure(Input(image), node_class_);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*again, *old_one);
  EXPECT_EQ(Count(), 1U);
}

}  // namespace
}  // namespace karpenter::aws
