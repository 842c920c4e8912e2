#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <utility>

#include "aws/api/ec2_api.h"
#include "moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::Contains;
using ::testing::Not;
using ::testing::Pair;

// Runs `undo` at scope exit, so a failed assertion still leaves moto as it found it.
class Cleanup {
 public:
  explicit Cleanup(std::function<void()> undo) : undo_(std::move(undo)) {}
  ~Cleanup() {
    if (undo_) undo_();
  }
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;
  void Dismiss() { undo_ = nullptr; }

 private:
  std::function<void()> undo_;
};

class Ec2LaunchTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (!HasFatalFailure()) ec2_.emplace(clients_->ec2());
  }

  LaunchTemplateInput TemplateInput(const std::string& name) const {
    LaunchTemplateInput input;
    input.name = name;
    input.image_id = seed_["images"]["al2023_x86_64"]["id"].get<std::string>();
    input.instance_profile = cluster_ + "-node";
    input.security_group_ids = {seed_["security_group"].get<std::string>()};
    input.user_data_base64 = "IyEvYmluL2Jhc2gKZWNobyBoZWxsbwo=";
    input.tags = {{"karpenter.k8s.aws/cluster", cluster_}, {"karpenter.sh/nodepool", "default"}};
    return input;
  }

  std::vector<QueryFilter> NameFilter(const std::string& name) const {
    return {{"launch-template-name", {name}}};
  }

  std::optional<Ec2Api> ec2_;
};

TEST_F(Ec2LaunchTest, CreatesDescribesAndDeletesALaunchTemplate) {
  const std::string name = testing::UniqueName("karpenter-api-test");
  Result<LaunchTemplate> created = ec2_->CreateLaunchTemplate(TemplateInput(name));
  ASSERT_THAT(created, IsOk());
  Cleanup remove([&] { (void)ec2_->DeleteLaunchTemplate(name); });
  EXPECT_TRUE(created->launch_template_id.starts_with("lt-")) << created->launch_template_id;
  EXPECT_EQ(created->name, name);
  EXPECT_EQ(created->latest_version, 1);

  Result<std::vector<LaunchTemplate>> described = ec2_->DescribeLaunchTemplates(NameFilter(name));
  ASSERT_THAT(described, IsOk());
  ASSERT_EQ(described->size(), 1U);
  EXPECT_EQ(described->front().launch_template_id, created->launch_template_id);
  EXPECT_THAT(described->front().tags, Contains(Pair("karpenter.k8s.aws/cluster", cluster_)));

  Result<std::vector<LaunchTemplate>> by_tag =
      ec2_->DescribeLaunchTemplates({{"tag:karpenter.k8s.aws/cluster", {cluster_}}});
  ASSERT_THAT(by_tag, IsOk());
  EXPECT_TRUE(std::any_of(by_tag->begin(), by_tag->end(), [&](const LaunchTemplate& found) {
    return found.launch_template_id == created->launch_template_id;
  }));

  // The same name again is refused with EC2's code.
  Result<LaunchTemplate> again = ec2_->CreateLaunchTemplate(TemplateInput(name));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().reason, "InvalidLaunchTemplateName.AlreadyExistsException");
  EXPECT_NE(again.error().message.find("CreateLaunchTemplate"), std::string::npos);

  ASSERT_THAT(ec2_->DeleteLaunchTemplate(name), IsOk());
  remove.Dismiss();
  Result<std::vector<LaunchTemplate>> after = ec2_->DescribeLaunchTemplates(NameFilter(name));
  ASSERT_THAT(after, IsOk());
  EXPECT_TRUE(after->empty());
}

TEST_F(Ec2LaunchTest, FleetLaunchesATaggedInstanceThatDescribeSeesAndTerminateEnds) {
  const std::string name = testing::UniqueName("karpenter-api-test");
  const std::string nodepool = testing::UniqueName("pool");
  Result<LaunchTemplate> created = ec2_->CreateLaunchTemplate(TemplateInput(name));
  ASSERT_THAT(created, IsOk());
  Cleanup remove([&] { (void)ec2_->DeleteLaunchTemplate(name); });

  const Json& subnet = seed_["subnets"][1];
  FleetInput fleet;
  fleet.launch_templates = {
      {name,
       {{"m5.large", subnet["id"].get<std::string>(), subnet["zone"].get<std::string>(), {}}}}};
  fleet.target_capacity = 1;
  fleet.capacity_type = CapacityType::kOnDemand;
  fleet.allocation_strategy = "lowest-price";
  fleet.tags = {{"karpenter.sh/nodepool", nodepool},
                {"kubernetes.io/cluster/" + cluster_, "owned"}};
  Result<FleetResult> launched = ec2_->CreateFleet(fleet);
  ASSERT_THAT(launched, IsOk());
  ASSERT_EQ(launched->instances.size(), 1U);
  const std::string id = launched->instances.front().instance_id;
  Cleanup terminate([&] { (void)ec2_->TerminateInstances({id}); });
  EXPECT_TRUE(launched->errors.empty());
  EXPECT_TRUE(id.starts_with("i-")) << id;
  EXPECT_EQ(launched->instances.front().instance_type, "m5.large");
  EXPECT_EQ(launched->instances.front().lifecycle, "on-demand");
  EXPECT_EQ(launched->instances.front().subnet_id, subnet["id"].get<std::string>());
  EXPECT_EQ(launched->instances.front().zone, subnet["zone"].get<std::string>());

  Result<std::vector<Instance>> described = ec2_->DescribeInstances({id});
  ASSERT_THAT(described, IsOk());
  ASSERT_EQ(described->size(), 1U);
  const Instance& instance = described->front();
  EXPECT_EQ(instance.instance_type, "m5.large");
  EXPECT_EQ(instance.subnet_id, subnet["id"].get<std::string>());
  EXPECT_EQ(instance.zone, subnet["zone"].get<std::string>());
  EXPECT_EQ(instance.image_id, seed_["images"]["al2023_x86_64"]["id"].get<std::string>());
  EXPECT_THAT(instance.state, ::testing::AnyOf("pending", "running"));
  EXPECT_EQ(instance.lifecycle, "on-demand");
  EXPECT_TRUE(instance.launch_time.has_value());
  EXPECT_FALSE(instance.private_dns_name.empty());
  EXPECT_THAT(instance.tags, Contains(Pair("karpenter.sh/nodepool", nodepool)));
  EXPECT_THAT(instance.tags, Contains(Pair("kubernetes.io/cluster/" + cluster_, "owned")));

  // The instance boots with the launch template's user data.
  Result<std::string> user_data = ec2_->DescribeInstanceUserData(id);
  ASSERT_THAT(user_data, IsOk());
  EXPECT_EQ(*user_data, TemplateInput(name).user_data_base64);

  // Karpenter lists its instances by tag.
  Result<std::vector<Instance>> by_tag = ec2_->DescribeInstances(
      {},
      {{"tag:karpenter.sh/nodepool", {nodepool}}, {"instance-state-name", {"pending", "running"}}});
  ASSERT_THAT(by_tag, IsOk());
  ASSERT_EQ(by_tag->size(), 1U);
  EXPECT_EQ(by_tag->front().instance_id, id);

  ASSERT_THAT(ec2_->CreateTags({id}, {{"Name", nodepool + "-node"}}), IsOk());
  Result<std::vector<Instance>> tagged = ec2_->DescribeInstances({id});
  ASSERT_THAT(tagged, IsOk());
  ASSERT_EQ(tagged->size(), 1U);
  EXPECT_THAT(tagged->front().tags, Contains(Pair("Name", nodepool + "-node")));

  Result<std::vector<InstanceStateChange>> changes = ec2_->TerminateInstances({id});
  ASSERT_THAT(changes, IsOk());
  terminate.Dismiss();
  ASSERT_EQ(changes->size(), 1U);
  EXPECT_EQ(changes->front().instance_id, id);
  EXPECT_THAT(changes->front().previous_state, ::testing::AnyOf("pending", "running"));
  EXPECT_THAT(changes->front().current_state, ::testing::AnyOf("shutting-down", "terminated"));

  Result<std::vector<Instance>> after = ec2_->DescribeInstances({id});
  ASSERT_THAT(after, IsOk());
  ASSERT_EQ(after->size(), 1U);
  EXPECT_THAT(after->front().state, ::testing::AnyOf("shutting-down", "terminated"));
}

TEST_F(Ec2LaunchTest, AFleetOfAMissingLaunchTemplateIsAnError) {
  FleetInput fleet;
  fleet.launch_templates = {{testing::UniqueName("no-such-template"),
                             {{"m5.large", seed_["subnets"][0]["id"].get<std::string>(), "", {}}}}};
  Result<FleetResult> launched = ec2_->CreateFleet(fleet);
  ASSERT_FALSE(launched.ok());
  EXPECT_FALSE(launched.error().reason.empty());
  EXPECT_NE(launched.error().message.find("CreateFleet"), std::string::npos)
      << launched.error().message;
}

TEST_F(Ec2LaunchTest, TerminatingAnUnknownInstanceIsAnErrorWithTheAwsCode) {
  Result<std::vector<InstanceStateChange>> changes =
      ec2_->TerminateInstances({"i-0123456789abcdef0"});
  ASSERT_FALSE(changes.ok());
  EXPECT_EQ(changes.error().reason, "InvalidInstanceID.NotFound");
  EXPECT_NE(changes.error().message.find("TerminateInstances"), std::string::npos);
}

// Runs last in this file (gtest keeps declaration order): what the tests above did must not
// have touched the instance Karpenter does not own.
TEST_F(Ec2LaunchTest, TheUnmanagedInstanceIsUntouched) {
  const std::string id = seed_["unmanaged_instance"].get<std::string>();
  Result<std::vector<Instance>> described = ec2_->DescribeInstances({id});
  ASSERT_THAT(described, IsOk());
  ASSERT_EQ(described->size(), 1U);
  EXPECT_EQ(described->front().state, "running");
  EXPECT_EQ(described->front().subnet_id, seed_["untagged_subnet"].get<std::string>());
  EXPECT_THAT(described->front().tags, Contains(Pair("Name", "bastion")));
  EXPECT_THAT(described->front().tags, Not(Contains(Pair("karpenter.sh/nodepool", ::testing::_))));
}

}  // namespace
}  // namespace karpenter::aws
