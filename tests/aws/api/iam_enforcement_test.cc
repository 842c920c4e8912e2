// The fault proxy's IAM enforcement bites: under the controller policy `karpenter iam policy`
// prints and under upstream's, the calls the controller makes are allowed, and the ones the
// policies exist to refuse are refused with AWS's codes. The controller's key is held to the policy
// (scripts/testenv/iam_authz.py); the harness's own key sets up and cleans up unchecked.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "aws/api/aws_clients.h"
#include "aws/api/ec2_api.h"
#include "aws/api/iam_api.h"
#include "moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::HasSubstr;

class IamEnforcementTest : public testing::MotoTest,
                           public ::testing::WithParamInterface<std::string> {
 protected:
  IamEnforcementTest() { through_fault_proxy_ = true; }

  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    const Json& key = seed_["controller_credentials"];
    controller_environment_ = Environment({
        {"AWS_ENDPOINT_URL", testing::ReadMotoEndpoint("fault_endpoint")},
        {"AWS_ACCESS_KEY_ID", key["access_key_id"].get<std::string>()},
        {"AWS_SECRET_ACCESS_KEY", key["secret_access_key"].get<std::string>()},
        {"AWS_REGION", seed_["region"].get<std::string>()},
        {"AWS_EC2_METADATA_DISABLED", "true"},
    });
    Result<AwsClients> clients = AwsClients::Create(
        controller_environment_, seed_["region"].get<std::string>(), transport_, clock_);
    ASSERT_THAT(clients, IsOk());
    controller_.emplace(std::move(*clients));
    const Json policy = testing::ControllerPolicyFor(GetParam());
    ASSERT_TRUE(policy.is_object());
    testing::SetControllerPolicy(policy);
  }

  void TearDown() override {
    testing::SetControllerPolicy(nullptr);
    Ec2Api ec2(clients_->ec2());
    if (!launched_.empty()) (void)ec2.TerminateInstances(launched_);
    for (const std::string& name : templates_) (void)ec2.DeleteLaunchTemplate(name);
    IamApi iam(clients_->iam());
    for (const std::string& profile : profiles_) {
      Result<std::optional<InstanceProfile>> found = iam.GetInstanceProfile(profile);
      if (found.ok() && found->has_value()) {
        for (const IamRole& role : (*found)->roles) {
          (void)iam.RemoveRoleFromInstanceProfile(profile, role.name);
        }
      }
      (void)iam.DeleteInstanceProfile(profile);
    }
  }

  // The tags the controller puts on what it launches.
  Ec2Tags OwnershipTags() const {
    return {{"kubernetes.io/cluster/" + cluster_, "owned"},
            {"eks:eks-cluster-name", cluster_},
            {"karpenter.sh/nodepool", "default"},
            {"karpenter.k8s.aws/ec2nodeclass", "default"}};
  }

  // An instance profile of `role`, made by the harness.
  std::string Profile(const std::string& role) {
    const std::string name = testing::UniqueName("enforced");
    IamApi iam(clients_->iam());
    Result<InstanceProfile> created = iam.CreateInstanceProfile(name, "/", {});
    EXPECT_THAT(created, IsOk());
    profiles_.push_back(name);
    EXPECT_THAT(iam.AddRoleToInstanceProfile(name, role), IsOk());
    return name;
  }

  // A launch template the controller creates, with `tags` on it.
  Result<LaunchTemplate> Template(const std::string& profile, const Ec2Tags& tags) {
    LaunchTemplateInput input;
    input.name = testing::UniqueName("enforced");
    input.image_id = seed_["images"]["al2023_x86_64"]["id"].get<std::string>();
    input.instance_profile = profile;
    input.security_group_ids = {seed_["security_group"].get<std::string>()};
    input.tags = tags;
    Result<LaunchTemplate> created = Ec2Api(controller_->ec2()).CreateLaunchTemplate(input);
    if (created.ok()) templates_.push_back(input.name);
    return created;
  }

  FleetInput Fleet(const std::string& launch_template, const Ec2Tags& tags) const {
    const Json& subnet = seed_["subnets"][1];
    FleetInput fleet;
    fleet.launch_templates = {
        {launch_template,
         {{"m5.large", subnet["id"].get<std::string>(), subnet["zone"].get<std::string>(), {}}}}};
    fleet.allocation_strategy = "lowest-price";
    fleet.tags = tags;
    return fleet;
  }

  // Launches one instance as the controller does and remembers it for clean-up.
  Result<FleetResult> Launch(const FleetInput& fleet) {
    Result<FleetResult> result = Ec2Api(controller_->ec2()).CreateFleet(fleet);
    if (result.ok()) {
      for (const FleetInstance& instance : result->instances) {
        launched_.push_back(instance.instance_id);
      }
    }
    return result;
  }

  // Launches one instance as the controller does (the node role's profile, the ownership tags);
  // its id, or empty with a test failure.
  std::string LaunchOwnedInstance() {
    const std::string profile = Profile(seed_["node_role"].get<std::string>());
    Result<LaunchTemplate> launch_template = Template(profile, OwnershipTags());
    EXPECT_THAT(launch_template, IsOk());
    if (!launch_template.ok()) return "";
    Result<FleetResult> launched = Launch(Fleet(launch_template->name, OwnershipTags()));
    EXPECT_THAT(launched, IsOk());
    if (!launched.ok() || launched->instances.size() != 1) {
      ADD_FAILURE() << "no instance launched: " << testing::IamDecisions().dump(2);
      return "";
    }
    return launched->instances.front().instance_id;
  }

  // Launches one instance from a template of `role`'s profile, expecting EC2 to refuse it (in the
  // fleet's errors, as it reports missing capacity); the refusal's message.
  std::string RefusedLaunch(const std::string& role) {
    Result<LaunchTemplate> launch_template = Template(Profile(role), OwnershipTags());
    EXPECT_THAT(launch_template, IsOk());
    if (!launch_template.ok()) return "";
    Result<FleetResult> launched = Launch(Fleet(launch_template->name, OwnershipTags()));
    EXPECT_THAT(launched, IsOk());
    if (!launched.ok()) return "";
    EXPECT_TRUE(launched->instances.empty());
    if (launched->errors.size() != 1) {
      ADD_FAILURE() << launched->errors.size() << " fleet errors, expected one";
      return "";
    }
    EXPECT_EQ(launched->errors.front().code, "UnauthorizedOperation");
    return launched->errors.front().message;
  }

  int Denials() { return testing::IamDecisions().value("denials", -1); }

  Environment controller_environment_;
  std::optional<AwsClients> controller_;
  std::vector<std::string> launched_;
  std::vector<std::string> templates_;
  std::vector<std::string> profiles_;
};

TEST_P(IamEnforcementTest, TheControllersLaunchTagAndTerminateAreAllowed) {
  const std::string id = LaunchOwnedInstance();
  ASSERT_FALSE(id.empty());
  Ec2Api ec2(controller_->ec2());
  EXPECT_THAT(ec2.CreateTags({id}, {{"karpenter.sh/nodeclaim", "default-abcde"},
                                    {"Name", "ip-10-0-16-5.us-west-2.compute.internal"}}),
              IsOk());
  EXPECT_THAT(ec2.TerminateInstances({id}), IsOk());
  EXPECT_THAT(ec2.DeleteLaunchTemplate(templates_.back()), IsOk());
  EXPECT_EQ(Denials(), 0) << testing::IamDecisions().dump(2);
  const Json allowed = testing::IamDecisions()["allowed"];
  for (const char* action :
       {"ec2:CreateLaunchTemplate", "ec2:CreateFleet", "ec2:RunInstances", "ec2:CreateTags",
        "iam:PassRole", "ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"}) {
    EXPECT_GT(allowed.value(action, 0), 0) << action << " was never checked";
  }
}

TEST_P(IamEnforcementTest, TerminatingAnInstanceWithoutTheOwnershipTagsIsRefused) {
  Result<std::vector<InstanceStateChange>> terminated =
      Ec2Api(controller_->ec2())
          .TerminateInstances({seed_["unmanaged_instance"].get<std::string>()});
  ASSERT_FALSE(terminated.ok());
  EXPECT_EQ(terminated.error().reason, "UnauthorizedOperation");
  EXPECT_THAT(terminated.error().message, HasSubstr("ec2:TerminateInstances"));
  Result<std::vector<Instance>> unmanaged =
      Ec2Api(clients_->ec2()).DescribeInstances({seed_["unmanaged_instance"].get<std::string>()});
  ASSERT_THAT(unmanaged, IsOk());
  ASSERT_EQ(unmanaged->size(), 1U);
  EXPECT_EQ(unmanaged->front().state, "running");
  EXPECT_EQ(Denials(), 1);
}

TEST_P(IamEnforcementTest, TaggingAfterLaunchIsForTheInstanceAndItsNamesOnly) {
  const std::string id = LaunchOwnedInstance();
  ASSERT_FALSE(id.empty());
  Ec2Api ec2(controller_->ec2());
  // A volume, after launch: only creation may tag one.
  Status volume = ec2.CreateTags({"vol-0123456789abcdef0"}, {{"Name", "node"}});
  ASSERT_FALSE(volume.ok());
  EXPECT_EQ(volume.error().reason, "UnauthorizedOperation");
  EXPECT_THAT(volume.error().message, HasSubstr("volume/vol-0123456789abcdef0"));
  // The instance, with a key other than karpenter.sh/nodeclaim and Name.
  Status other_key = ec2.CreateTags({id}, {{"team", "a"}});
  ASSERT_FALSE(other_key.ok());
  EXPECT_EQ(other_key.error().reason, "UnauthorizedOperation");
  EXPECT_EQ(Denials(), 2);
}

TEST_P(IamEnforcementTest, ALaunchWithoutTheRequestTagsIsRefused) {
  // A launch template without the ownership tags is refused outright ...
  Result<LaunchTemplate> untagged = Template("", {{"team", "a"}});
  ASSERT_FALSE(untagged.ok());
  EXPECT_EQ(untagged.error().reason, "UnauthorizedOperation");
  EXPECT_THAT(untagged.error().message, HasSubstr("ec2:CreateLaunchTemplate"));
  // ... and so is a fleet that would launch untagged instances from a tagged template.
  const std::string profile = Profile(seed_["node_role"].get<std::string>());
  Result<LaunchTemplate> launch_template = Template(profile, OwnershipTags());
  ASSERT_THAT(launch_template, IsOk());
  Result<FleetResult> launched = Launch(Fleet(launch_template->name, {{"team", "a"}}));
  ASSERT_FALSE(launched.ok());
  EXPECT_EQ(launched.error().reason, "UnauthorizedOperation");
  EXPECT_THAT(launched.error().message, HasSubstr("ec2:CreateFleet"));
  EXPECT_EQ(Denials(), 2);
}

TEST_P(IamEnforcementTest, PassingAnotherRoleIsRefusedForEachLaunch) {
  const std::string other = seed_["other_node_role"].get<std::string>();
  const std::string refusal = RefusedLaunch(other);
  EXPECT_THAT(refusal, HasSubstr("iam:PassRole"));
  EXPECT_THAT(refusal, HasSubstr(other));
  EXPECT_EQ(Denials(), 1);
}

// The security groups EC2 authorizes a launch against are those of the template's primary network
// interface, where the controller puts them: a policy that keeps launches out of a group refuses
// a launch into it (and so the proxy checks them there, as EC2 does).
TEST_P(IamEnforcementTest, TheNetworkInterfacesSecurityGroupsAreAuthorized) {
  Json policy = testing::ControllerPolicyFor(GetParam());
  const std::string region = seed_["region"].get<std::string>();
  const std::string group = seed_["security_group"].get<std::string>();
  policy["Statement"].push_back(
      {{"Sid", "KeepLaunchesOutOfTheGroup"},
       {"Effect", "Deny"},
       {"Action", "ec2:RunInstances"},
       {"Resource", "arn:aws:ec2:" + region + ":" + seed_["account"].get<std::string>() +
                        ":security-group/" + group}});
  testing::SetControllerPolicy(policy);
  EXPECT_THAT(RefusedLaunch(seed_["node_role"].get<std::string>()),
              HasSubstr("security-group/" + group));
  EXPECT_EQ(Denials(), 1);
}

// The DryRun checks behind ValidationSucceeded get EC2's verdict alone: DryRunOperation when the
// launch would be allowed (nothing launched), UnauthorizedOperation when it would not.
TEST_P(IamEnforcementTest, DryRunLaunchesGetTheVerdictWithoutLaunching) {
  const auto running_instances = [&]() -> size_t {
    Result<std::vector<Instance>> running =
        Ec2Api(clients_->ec2())
            .DescribeInstances({}, {{"instance-state-name", {"pending", "running"}}});
    return running.ok() ? running->size() : 0;
  };
  const size_t before = running_instances();
  const std::string profile = Profile(seed_["node_role"].get<std::string>());
  Result<LaunchTemplate> launch_template = Template(profile, OwnershipTags());
  ASSERT_THAT(launch_template, IsOk());
  Ec2Api ec2(controller_->ec2());
  EXPECT_THAT(ec2.DryRunCreateFleet(Fleet(launch_template->name, OwnershipTags())), IsOk());
  LaunchTemplateInput launch;
  launch.image_id = seed_["images"]["al2023_x86_64"]["id"].get<std::string>();
  launch.instance_profile = profile;
  launch.security_group_ids = {seed_["security_group"].get<std::string>()};
  launch.tags = OwnershipTags();
  const std::string subnet = seed_["subnets"][1]["id"].get<std::string>();
  EXPECT_THAT(ec2.DryRunRunInstances(launch, "m5.large", subnet), IsOk());
  launch.name = testing::UniqueName("dry-run");
  EXPECT_THAT(ec2.DryRunCreateLaunchTemplate(launch), IsOk());
  EXPECT_EQ(Denials(), 0) << testing::IamDecisions().dump(2);
  EXPECT_GT(testing::IamDecisions()["allowed"].value("ec2:RunInstances", 0), 0);
  EXPECT_GT(testing::IamDecisions()["allowed"].value("ec2:CreateLaunchTemplate", 0), 0);
  Result<std::vector<LaunchTemplate>> created =
      ec2.DescribeLaunchTemplates({{"launch-template-name", {launch.name}}});
  ASSERT_THAT(created, IsOk());
  EXPECT_TRUE(created->empty()) << "a DryRun created a launch template";

  // Untagged, or passing another role, they are refused, and say so.
  LaunchTemplateInput untagged = launch;
  untagged.tags = {{"team", "a"}};
  Status refused = ec2.DryRunRunInstances(untagged, "m5.large", subnet);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().reason, "UnauthorizedOperation");
  Status refused_template = ec2.DryRunCreateLaunchTemplate(untagged);
  ASSERT_FALSE(refused_template.ok());
  EXPECT_EQ(refused_template.error().reason, "UnauthorizedOperation");
  EXPECT_THAT(refused_template.error().message, HasSubstr("ec2:CreateLaunchTemplate"));
  const std::string other = Profile(seed_["other_node_role"].get<std::string>());
  Result<LaunchTemplate> other_template = Template(other, OwnershipTags());
  ASSERT_THAT(other_template, IsOk());
  Status fleet = ec2.DryRunCreateFleet(Fleet(other_template->name, OwnershipTags()));
  ASSERT_FALSE(fleet.ok());
  EXPECT_EQ(fleet.error().reason, "UnauthorizedOperation");
  EXPECT_THAT(fleet.error().message, HasSubstr("iam:PassRole"));
  EXPECT_EQ(Denials(), 3);
  EXPECT_EQ(running_instances(), before) << "a DryRun launched an instance";
}

TEST_P(IamEnforcementTest, TheInstanceProfileLifecycleIsAllowedOnTheClustersOwnProfiles) {
  const std::string region = seed_["region"].get<std::string>();
  const IamTags tags = {{"kubernetes.io/cluster/" + cluster_, "owned"},
                        {"eks:eks-cluster-name", cluster_},
                        {"topology.kubernetes.io/region", region},
                        {"karpenter.k8s.aws/ec2nodeclass", "default"}};
  IamApi iam(controller_->iam());
  const std::string name = testing::UniqueName("enforced");
  Result<InstanceProfile> created = iam.CreateInstanceProfile(name, "/karpenter/", tags);
  ASSERT_THAT(created, IsOk());
  profiles_.push_back(name);
  const std::string role = seed_["node_role"].get<std::string>();
  EXPECT_THAT(iam.AddRoleToInstanceProfile(name, role), IsOk());
  EXPECT_THAT(iam.TagInstanceProfile(name, tags), IsOk());
  EXPECT_THAT(iam.GetInstanceProfile(name), IsOk());
  EXPECT_THAT(iam.RemoveRoleFromInstanceProfile(name, role), IsOk());
  EXPECT_THAT(iam.DeleteInstanceProfile(name), IsOk());
  EXPECT_EQ(Denials(), 0) << testing::IamDecisions().dump(2);

  // A profile without the cluster's tags can be neither created nor changed.
  Result<InstanceProfile> untagged =
      iam.CreateInstanceProfile(testing::UniqueName("enforced"), "/", {{"team", "a"}});
  ASSERT_FALSE(untagged.ok());
  EXPECT_EQ(untagged.error().reason, "AccessDenied");
  const std::string foreign = Profile(role);  // the harness's, untagged
  Status removed = iam.RemoveRoleFromInstanceProfile(foreign, role);
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.error().reason, "AccessDenied");
  EXPECT_THAT(removed.error().message, HasSubstr("iam:RemoveRoleFromInstanceProfile"));
  EXPECT_EQ(Denials(), 2);
}

INSTANTIATE_TEST_SUITE_P(Policies, IamEnforcementTest, ::testing::Values("generated", "upstream"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace karpenter::aws
