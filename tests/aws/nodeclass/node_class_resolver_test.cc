#include "aws/nodeclass/node_class_resolver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "api/condition.h"
#include "api/encode.h"
#include "aws/api/moto_fixture.h"
#include "aws/nodeclass/seeded_resolver.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

const TimePoint kStart = std::chrono::sys_days{std::chrono::year{2026} / 12 / 1};

// An AMI's requirements as text, e.g. "karpenter.k8s.aws/instance-gpu-count Exists;
// kubernetes.io/arch In amd64", sorted by key.
std::string Describe(std::vector<api::NodeSelectorRequirement> requirements) {
  std::sort(requirements.begin(), requirements.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  std::string text;
  for (const api::NodeSelectorRequirement& requirement : requirements) {
    if (!text.empty()) text += "; ";
    text += requirement.key + " " + std::string(api::ToString(requirement.op));
    for (const std::string& value : requirement.values) text += " " + value;
  }
  return text;
}

constexpr char kStandardAmd64[] =
    "karpenter.k8s.aws/instance-accelerator-count DoesNotExist; "
    "karpenter.k8s.aws/instance-gpu-count DoesNotExist; kubernetes.io/arch In amd64";
constexpr char kStandardArm64[] =
    "karpenter.k8s.aws/instance-accelerator-count DoesNotExist; "
    "karpenter.k8s.aws/instance-gpu-count DoesNotExist; kubernetes.io/arch In arm64";
constexpr char kNvidiaAmd64[] =
    "karpenter.k8s.aws/instance-gpu-count Exists; kubernetes.io/arch In amd64";
constexpr char kNeuronAmd64[] =
    "karpenter.k8s.aws/instance-accelerator-count Exists; kubernetes.io/arch In amd64";

class NodeClassResolverTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    ec2_.emplace(clients_->ec2());
    ssm_.emplace(clients_->ssm());
    iam_.emplace(clients_->iam());
    resolver_.emplace(*ec2_, *ssm_, *iam_, testing::SeededResolverOptions(seed_, cluster_), clock_);
  }

  // Discovers everything by the cluster's discovery tag, with AL2023 and the node role.
  api::EC2NodeClass NodeClass() const {
    api::EC2NodeClass node_class;
    node_class.metadata.name = testing::UniqueName("nodeclass");
    node_class.metadata.generation = 1;
    node_class.spec.subnet_selector_terms = {Tagged()};
    node_class.spec.security_group_selector_terms = {Tagged()};
    node_class.spec.ami_selector_terms = {Alias("al2023@latest")};
    node_class.spec.role = seed_["node_role"].get<std::string>();
    return node_class;
  }
  api::SelectorTerm Tagged() const {
    return api::SelectorTerm{.tags = {{"karpenter.sh/discovery", cluster_}}, .id = "", .name = ""};
  }
  static api::SelectorTerm Id(std::string id) {
    return api::SelectorTerm{.tags = {}, .id = std::move(id), .name = ""};
  }
  static api::AmiSelectorTerm Alias(std::string alias) {
    api::AmiSelectorTerm term;
    term.alias = std::move(alias);
    return term;
  }
  std::string Image(const std::string& key) const {
    return seed_["images"][key]["id"].get<std::string>();
  }
  std::string CustomImage(const std::string& key) const {
    return seed_["custom_images"][key]["id"].get<std::string>();
  }
  // AMI id → requirement sets, as text.
  static std::multimap<std::string, std::string> ById(const std::vector<api::AmiStatus>& amis) {
    std::multimap<std::string, std::string> out;
    for (const api::AmiStatus& ami : amis) out.emplace(ami.id, Describe(ami.requirements));
    return out;
  }
  std::vector<std::string> SeededSubnetIds() const {
    std::vector<std::string> ids;
    for (const auto& subnet : seed_["subnets"]) ids.push_back(subnet["id"].get<std::string>());
    return ids;
  }
  static std::vector<std::string> Ids(const std::vector<api::SubnetStatus>& subnets) {
    std::vector<std::string> ids;
    ids.reserve(subnets.size());
    for (const api::SubnetStatus& subnet : subnets) ids.push_back(subnet.id);
    return ids;
  }
  // Free addresses of each subnet, as EC2 reports them now.
  std::map<std::string, int64_t> FreeAddresses() {
    std::map<std::string, int64_t> free;
    Result<std::vector<Subnet>> subnets = ec2_->DescribeSubnets({});
    EXPECT_THAT(subnets, IsOk());
    if (subnets.ok()) {
      for (const Subnet& subnet : *subnets) {
        free[subnet.subnet_id] = subnet.available_ip_address_count;
      }
    }
    return free;
  }
  void ExpectMostFreeAddressesFirst(const std::vector<api::SubnetStatus>& subnets) {
    const std::map<std::string, int64_t> free = FreeAddresses();
    for (size_t i = 1; i < subnets.size(); ++i) {
      EXPECT_GE(free.at(subnets[i - 1].id), free.at(subnets[i].id))
          << subnets[i - 1].id << " before " << subnets[i].id;
    }
  }
  static const api::Condition& ConditionOf(const api::EC2NodeClass::Status& status,
                                           std::string_view type) {
    static const api::Condition kMissing{};
    const api::Condition* condition = api::FindCondition(status.conditions, type);
    EXPECT_NE(condition, nullptr) << type;
    return condition == nullptr ? kMissing : *condition;
  }
  // Deletes the profile Resolve may have created for `node_class`.
  void CleanUp(const api::EC2NodeClass& node_class) {
    Status finalized = resolver_->Finalize(node_class);
    EXPECT_THAT(finalized, IsOk());
  }

  VirtualClock clock_{kStart};
  std::optional<Ec2Api> ec2_;
  std::optional<SsmApi> ssm_;
  std::optional<IamApi> iam_;
  std::optional<NodeClassResolver> resolver_;
};

TEST_F(NodeClassResolverTest, DiscoversTheTaggedSubnetsMostFreeAddressesFirst) {
  Result<std::vector<api::SubnetStatus>> subnets = resolver_->ResolveSubnets(NodeClass());
  ASSERT_THAT(subnets, IsOk());
  // The seeded subnets are /20, /22 and /24 in zones a, b, c: a has the most free addresses.
  ASSERT_THAT(*subnets, SizeIs(3));
  EXPECT_EQ(Ids(*subnets), SeededSubnetIds());
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*subnets)[i].zone, seed_["subnets"][i]["zone"].get<std::string>());
    EXPECT_TRUE((*subnets)[i].zone_id.starts_with("usw2-az")) << (*subnets)[i].zone_id;
  }
  ExpectMostFreeAddressesFirst(*subnets);
}

TEST_F(NodeClassResolverTest, SelectsASubnetById) {
  api::EC2NodeClass node_class = NodeClass();
  node_class.spec.subnet_selector_terms = {Id(seed_["untagged_subnet"].get<std::string>())};
  Result<std::vector<api::SubnetStatus>> subnets = resolver_->ResolveSubnets(node_class);
  ASSERT_THAT(subnets, IsOk());
  EXPECT_THAT(Ids(*subnets), ElementsAre(seed_["untagged_subnet"].get<std::string>()));
}

TEST_F(NodeClassResolverTest, AStarTagValueMatchesAnyValueOfTheKey) {
  api::EC2NodeClass node_class = NodeClass();
  node_class.spec.subnet_selector_terms = {
      api::SelectorTerm{.tags = {{"karpenter.sh/discovery", "*"}}, .id = "", .name = ""}};
  Result<std::vector<api::SubnetStatus>> tagged = resolver_->ResolveSubnets(node_class);
  ASSERT_THAT(tagged, IsOk());
  for (const std::string& id : SeededSubnetIds()) EXPECT_THAT(Ids(*tagged), Contains(id));
  EXPECT_THAT(Ids(*tagged), ::testing::Not(Contains(seed_["untagged_subnet"].get<std::string>())));

  // Every seeded subnet has a Name, the untagged one included.
  node_class.spec.subnet_selector_terms = {
      api::SelectorTerm{.tags = {{"Name", "*"}}, .id = "", .name = ""}};
  Result<std::vector<api::SubnetStatus>> named = resolver_->ResolveSubnets(node_class);
  ASSERT_THAT(named, IsOk());
  EXPECT_THAT(Ids(*named), Contains(seed_["untagged_subnet"].get<std::string>()));
  EXPECT_GE(named->size(), 4U);
  ExpectMostFreeAddressesFirst(*named);
}

TEST_F(NodeClassResolverTest, TermsAreOredAndEachSubnetListedOnce) {
  api::EC2NodeClass node_class = NodeClass();
  const std::string untagged = seed_["untagged_subnet"].get<std::string>();
  node_class.spec.subnet_selector_terms = {Id(untagged), Tagged(), Id(SeededSubnetIds()[1])};
  Result<std::vector<api::SubnetStatus>> subnets = resolver_->ResolveSubnets(node_class);
  ASSERT_THAT(subnets, IsOk());
  std::vector<std::string> expected = SeededSubnetIds();
  expected.push_back(untagged);
  EXPECT_THAT(Ids(*subnets), ::testing::UnorderedElementsAreArray(expected));
  ExpectMostFreeAddressesFirst(*subnets);
  EXPECT_EQ(subnets->front().id, SeededSubnetIds()[0]);  // the /20
}

TEST_F(NodeClassResolverTest, FindsSecurityGroupsByTagIdAndName) {
  api::EC2NodeClass node_class = NodeClass();
  Result<std::vector<api::SecurityGroupStatus>> tagged =
      resolver_->ResolveSecurityGroups(node_class);
  ASSERT_THAT(tagged, IsOk());
  ASSERT_THAT(*tagged, SizeIs(1));
  EXPECT_EQ(tagged->front().id, seed_["security_group"].get<std::string>());
  EXPECT_EQ(tagged->front().name, cluster_ + "-node");

  node_class.spec.security_group_selector_terms = {
      Id(seed_["untagged_security_group"].get<std::string>()),
      api::SelectorTerm{.tags = {}, .id = "", .name = cluster_ + "-node"}};
  Result<std::vector<api::SecurityGroupStatus>> both = resolver_->ResolveSecurityGroups(node_class);
  ASSERT_THAT(both, IsOk());
  std::map<std::string, std::string> names;
  for (const api::SecurityGroupStatus& group : *both) names[group.id] = group.name;
  EXPECT_THAT(names,
              UnorderedElementsAre(
                  Pair(seed_["security_group"].get<std::string>(), cluster_ + "-node"),
                  Pair(seed_["untagged_security_group"].get<std::string>(), cluster_ + "-other")));
}

TEST_F(NodeClassResolverTest, Al2023LatestResolvesEachArchitectureAndVariant) {
  Result<std::vector<api::AmiStatus>> amis = resolver_->ResolveAmis(NodeClass());
  ASSERT_THAT(amis, IsOk());
  // moto has no arm64 NVIDIA or Neuron AMI: those parameters are missing and skipped.
  EXPECT_THAT(ById(*amis), UnorderedElementsAre(Pair(Image("al2023_x86_64"), kStandardAmd64),
                                                Pair(Image("al2023_arm64"), kStandardArm64),
                                                Pair(Image("al2023_x86_64_nvidia"), kNvidiaAmd64)));
  for (const api::AmiStatus& ami : *amis) {
    EXPECT_TRUE(ami.name.starts_with("amazon-eks-node-al2023-")) << ami.name;
  }
}

TEST_F(NodeClassResolverTest, APinnedAl2023VersionResolvesThatRelease) {
  api::EC2NodeClass node_class = NodeClass();
  node_class.spec.ami_selector_terms = {Alias("al2023@v20241121")};  // the seeded release
  Result<std::vector<api::AmiStatus>> amis = resolver_->ResolveAmis(node_class);
  ASSERT_THAT(amis, IsOk());
  EXPECT_THAT(ById(*amis), UnorderedElementsAre(Pair(Image("al2023_x86_64"), kStandardAmd64),
                                                Pair(Image("al2023_arm64"), kStandardArm64),
                                                Pair(Image("al2023_x86_64_nvidia"), kNvidiaAmd64)));
}

TEST_F(NodeClassResolverTest, AnUnpublishedAliasVersionIsAMIsReadyFalseSayingWhy) {
  api::EC2NodeClass node_class = NodeClass();
  node_class.spec.ami_selector_terms = {Alias("al2023@v19990101")};
  node_class.status.amis = {api::AmiStatus{.id = "ami-stale", .name = "old", .requirements = {}}};
  const api::EC2NodeClass::Status status = resolver_->Resolve(node_class);
  const api::Condition& amis_ready = ConditionOf(status, api::kConditionAmisReady);
  EXPECT_EQ(amis_ready.status, "False");
  EXPECT_EQ(amis_ready.reason, "AMINotFound");
  EXPECT_THAT(amis_ready.message, HasSubstr(node_class.metadata.name));
  EXPECT_THAT(amis_ready.message, HasSubstr("al2023@v19990101"));
  EXPECT_THAT(amis_ready.message, HasSubstr("Kubernetes 1.31"));
  EXPECT_THAT(status.amis, IsEmpty());
  const api::Condition& ready = ConditionOf(status, api::kConditionReady);
  EXPECT_EQ(ready.status, "False");
  EXPECT_THAT(ready.message, HasSubstr("AMIsReady=False"));
  EXPECT_THAT(ready.message, ::testing::Not(HasSubstr("SubnetsReady")));
  CleanUp(node_class);
}

TEST_F(NodeClassResolverTest, BottlerocketAndAl2AliasesCarryTheirVariants) {
  api::EC2NodeClass node_class = NodeClass();
  node_class.spec.ami_selector_terms = {Alias("bottlerocket@latest")};
  Result<std::vector<api::AmiStatus>> bottlerocket = resolver_->ResolveAmis(node_class);
  ASSERT_THAT(bottlerocket, IsOk());
  // Bottlerocket's standard x86_64 image also serves Neuron instances.
  EXPECT_THAT(ById(*bottlerocket),
              UnorderedElementsAre(Pair(Image("bottlerocket_x86_64"), kStandardAmd64),
                                   Pair(Image("bottlerocket_x86_64"), kNeuronAmd64),
                                   Pair(Image("bottlerocket_arm64"), kStandardArm64),
                                   Pair(Image("bottlerocket_x86_64_nvidia"), kNvidiaAmd64)));

  node_class.spec.ami_selector_terms = {Alias("al2@latest")};
  Result<std::vector<api::AmiStatus>> al2 = resolver_->ResolveAmis(node_class);
  ASSERT_THAT(al2, IsOk());
  EXPECT_THAT(ById(*al2), UnorderedElementsAre(Pair(Image("al2_x86_64"), kStandardAmd64),
                                               Pair(Image("al2_arm64"), kStandardArm64),
                                               Pair(Image("al2_x86_64_gpu"), kNvidiaAmd64),
                                               Pair(Image("al2_x86_64_gpu"), kNeuronAmd64)));
  node_class.spec.ami_selector_terms = {Alias("al2@v20241121")};
  Result<std::vector<api::AmiStatus>> pinned = resolver_->ResolveAmis(node_class);
  ASSERT_THAT(pinned, IsOk());
  EXPECT_EQ(ById(*pinned), ById(*al2));
}

TEST_F(NodeClassResolverTest, TaggedImagesGiveTheNewestPerArchitectureNewestFirst) {
  api::EC2NodeClass node_class = NodeClass();
  api::AmiSelectorTerm term;
  term.tags = {{"karpenter.sh/discovery", cluster_}};
  node_class.spec.ami_selector_terms = {term};
  Result<std::vector<api::AmiStatus>> amis = resolver_->ResolveAmis(node_class);
  ASSERT_THAT(amis, IsOk());
  ASSERT_THAT(*amis, SizeIs(2));
  // 2024-11-01 (x86_64) before 2024-10-15 (arm64); the 2024-10-01 x86_64 image loses.
  EXPECT_EQ((*amis)[0].id, CustomImage("custom_x86_64_new"));
  EXPECT_EQ(Describe((*amis)[0].requirements), "kubernetes.io/arch In amd64");
  EXPECT_EQ((*amis)[1].id, CustomImage("custom_arm64"));
  EXPECT_EQ(Describe((*amis)[1].requirements), "kubernetes.io/arch In arm64");
  EXPECT_EQ((*amis)[1].name, seed_["custom_images"]["custom_arm64"]["name"].get<std::string>());
}

// The seed deprecates the newer retiring x86_64 image and the only arm64 one (moto_server.py).
TEST_F(NodeClassResolverTest, DeprecatedImagesAreChosenOnlyWhenNothingElseMatches) {
  api::EC2NodeClass node_class = NodeClass();
  api::AmiSelectorTerm term;
  term.tags = {{"karpenter.sh/retiring", cluster_}};
  node_class.spec.ami_selector_terms = {term};
  Result<std::vector<api::AmiStatus>> amis = resolver_->ResolveAmis(node_class);
  ASSERT_THAT(amis, IsOk());
  ASSERT_THAT(*amis, SizeIs(2));
  // The older x86_64 image wins over the newer deprecated one; the deprecated arm64 image is the
  // only arm64 one, so it stays, marked, and after the others.
  EXPECT_EQ((*amis)[0].id, CustomImage("retiring_x86_64_old"));
  EXPECT_FALSE((*amis)[0].deprecated);
  EXPECT_EQ((*amis)[1].id, CustomImage("retiring_arm64"));
  EXPECT_TRUE((*amis)[1].deprecated);
  EXPECT_EQ(Describe((*amis)[1].requirements), "kubernetes.io/arch In arm64");
  // The status says so.
  node_class.status = resolver_->Resolve(node_class);
  const Json encoded = api::Encode(node_class.status);
  ASSERT_EQ(encoded["amis"].size(), 2U);
  EXPECT_FALSE(encoded["amis"][0].contains("deprecated"));
  EXPECT_EQ(encoded["amis"][1]["deprecated"], true);
  CleanUp(node_class);
}

TEST_F(NodeClassResolverTest, SelectsImagesByNameOwnerIdAndSsmParameter) {
  api::EC2NodeClass node_class = NodeClass();
  api::AmiSelectorTerm by_name;
  by_name.name = "karpenter-custom-node-x86_64-*";  // no owner: this account's or Amazon's
  node_class.spec.ami_selector_terms = {by_name};
  Result<std::vector<api::AmiStatus>> named = resolver_->ResolveAmis(node_class);
  ASSERT_THAT(named, IsOk());
  EXPECT_THAT(ById(*named),
              ElementsAre(Pair(CustomImage("custom_x86_64_new"), "kubernetes.io/arch In amd64")));

  by_name.owner = "999999999999";  // nobody's images match
  node_class.spec.ami_selector_terms = {by_name};
  Result<std::vector<api::AmiStatus>> foreign = resolver_->ResolveAmis(node_class);
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().reason, "NotFound");
  EXPECT_THAT(foreign.error().message, HasSubstr("owner 999999999999"));

  // An id pins an old image; an ssmParameter names another; a missing parameter is skipped.
  api::AmiSelectorTerm by_id;
  by_id.id = CustomImage("custom_x86_64_old");
  api::AmiSelectorTerm by_parameter;
  by_parameter.ssm_parameter = "/aws/service/bottlerocket/aws-k8s-" +
                               seed_["kubernetes_version"].get<std::string>() +
                               "/arm64/latest/image_id";
  api::AmiSelectorTerm missing;
  missing.ssm_parameter = "/karpenter/test/" + testing::UniqueName("missing");
  node_class.spec.ami_selector_terms = {by_id, by_parameter, missing};
  Result<std::vector<api::AmiStatus>> pinned = resolver_->ResolveAmis(node_class);
  ASSERT_THAT(pinned, IsOk());
  EXPECT_THAT(
      ById(*pinned),
      UnorderedElementsAre(Pair(CustomImage("custom_x86_64_old"), "kubernetes.io/arch In amd64"),
                           Pair(Image("bottlerocket_arm64"), "kubernetes.io/arch In arm64")));
}

// The cluster's Kubernetes version is asked at every resolution: after a control-plane upgrade the
// alias resolves to the new version's images (here a version nothing is published for, which the
// error names).
TEST_F(NodeClassResolverTest, AliasesFollowTheClustersKubernetesVersion) {
  std::string version = seed_["kubernetes_version"].get<std::string>();
  NodeClassResolver resolver(
      *ec2_, *ssm_, *iam_,
      NodeClassResolver::Options{.cluster_name = cluster_,
                                 .region = seed_["region"].get<std::string>(),
                                 .kubernetes_version = [&version] { return version; }},
      clock_);
  const api::EC2NodeClass node_class = NodeClass();
  ASSERT_FALSE(node_class.spec.ami_selector_terms.front().alias.empty());
  Result<std::vector<api::AmiStatus>> before = resolver.ResolveAmis(node_class);
  ASSERT_THAT(before, IsOk());
  EXPECT_FALSE(before->empty());
  version = "1.99";
  Result<std::vector<api::AmiStatus>> upgraded = resolver.ResolveAmis(node_class);
  ASSERT_FALSE(upgraded.ok());
  EXPECT_THAT(upgraded.error().message, HasSubstr("no AMI is published for Kubernetes 1.99"));
}

TEST_F(NodeClassResolverTest, ARoleGetsAnInstanceProfileCreatedOnceAndDeletedOnFinalize) {
  const api::EC2NodeClass node_class = NodeClass();
  const std::string name = resolver_->InstanceProfileName(node_class);
  EXPECT_TRUE(name.starts_with(cluster_ + "_")) << name;

  Result<std::string> resolved = resolver_->ResolveInstanceProfile(node_class);
  ASSERT_THAT(resolved, IsOk());
  EXPECT_EQ(*resolved, name);
  Result<std::optional<InstanceProfile>> created = iam_->GetInstanceProfile(name);
  ASSERT_THAT(created, IsOk());
  ASSERT_TRUE(created->has_value());
  ASSERT_THAT((*created)->roles, SizeIs(1));
  EXPECT_EQ((*created)->roles[0].name, seed_["node_role"].get<std::string>());
  EXPECT_THAT((*created)->tags, Contains(Pair("kubernetes.io/cluster/" + cluster_, "owned")));
  EXPECT_THAT((*created)->tags,
              Contains(Pair("karpenter.k8s.aws/ec2nodeclass", node_class.metadata.name)));

  // Again: the same profile, not a new one.
  Result<std::string> again = resolver_->ResolveInstanceProfile(node_class);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*again, name);
  Result<std::optional<InstanceProfile>> reused = iam_->GetInstanceProfile(name);
  ASSERT_TRUE(reused.ok() && reused->has_value());
  EXPECT_EQ((*reused)->id, (*created)->id);
  EXPECT_THAT((*reused)->roles, SizeIs(1));

  ASSERT_THAT(resolver_->Finalize(node_class), IsOk());
  Result<std::optional<InstanceProfile>> gone = iam_->GetInstanceProfile(name);
  ASSERT_THAT(gone, IsOk());
  EXPECT_FALSE(gone->has_value());
  Status twice = resolver_->Finalize(node_class);
  EXPECT_THAT(twice, IsOk());
}

TEST_F(NodeClassResolverTest, ChangingTheRoleSwapsItInTheSameProfile) {
  api::EC2NodeClass node_class = NodeClass();
  Result<std::string> first = resolver_->ResolveInstanceProfile(node_class);
  ASSERT_THAT(first, IsOk());
  node_class.spec.role = seed_["other_node_role"].get<std::string>();
  Result<std::string> second = resolver_->ResolveInstanceProfile(node_class);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(*second, *first);
  Result<std::optional<InstanceProfile>> profile = iam_->GetInstanceProfile(*second);
  ASSERT_TRUE(profile.ok() && profile->has_value());
  ASSERT_THAT((*profile)->roles, SizeIs(1));
  EXPECT_EQ((*profile)->roles[0].name, node_class.spec.role);
  CleanUp(node_class);
}

TEST_F(NodeClassResolverTest, ProfilesOfDifferentNodeClassesDiffer) {
  const api::EC2NodeClass a = NodeClass();
  const api::EC2NodeClass b = NodeClass();
  EXPECT_NE(resolver_->InstanceProfileName(a), resolver_->InstanceProfileName(b));
  EXPECT_EQ(resolver_->InstanceProfileName(a), resolver_->InstanceProfileName(a));
}

TEST_F(NodeClassResolverTest, ARoleGivenAsAnArnIsAttachedByName) {
  api::EC2NodeClass node_class = NodeClass();
  node_class.spec.role = seed_["node_role_arn"].get<std::string>();
  Result<std::string> resolved = resolver_->ResolveInstanceProfile(node_class);
  ASSERT_THAT(resolved, IsOk());
  Result<std::optional<InstanceProfile>> profile = iam_->GetInstanceProfile(*resolved);
  ASSERT_TRUE(profile.ok() && profile->has_value());
  ASSERT_THAT((*profile)->roles, SizeIs(1));
  EXPECT_EQ((*profile)->roles[0].name, seed_["node_role"].get<std::string>());
  CleanUp(node_class);
}

TEST_F(NodeClassResolverTest, AnUnknownRoleIsInstanceProfileReadyFalse) {
  api::EC2NodeClass node_class = NodeClass();
  node_class.spec.role = testing::UniqueName("NoSuchRole");
  const api::EC2NodeClass::Status status = resolver_->Resolve(node_class);
  const api::Condition& condition = ConditionOf(status, api::kConditionInstanceProfileReady);
  EXPECT_EQ(condition.status, "False");
  EXPECT_THAT(condition.message, HasSubstr(node_class.spec.role));
  EXPECT_THAT(condition.message, HasSubstr("NoSuchEntity"));
  EXPECT_EQ(ConditionOf(status, api::kConditionReady).status, "False");
  CleanUp(node_class);
}

TEST_F(NodeClassResolverTest, AGivenInstanceProfileIsUsedAsIsWhenItExists) {
  const std::string name = testing::UniqueName("given");
  ASSERT_THAT(iam_->CreateInstanceProfile(name, "", {}), IsOk());
  api::EC2NodeClass node_class = NodeClass();
  node_class.spec.role.clear();
  node_class.spec.instance_profile = name;
  const api::EC2NodeClass::Status status = resolver_->Resolve(node_class);
  EXPECT_EQ(status.instance_profile, name);
  EXPECT_EQ(ConditionOf(status, api::kConditionInstanceProfileReady).status, "True");
  // Finalize leaves a profile it did not create.
  ASSERT_THAT(resolver_->Finalize(node_class), IsOk());
  Result<std::optional<InstanceProfile>> kept = iam_->GetInstanceProfile(name);
  ASSERT_THAT(kept, IsOk());
  EXPECT_TRUE(kept->has_value());

  node_class.spec.instance_profile = testing::UniqueName("absent");
  node_class.status = status;
  const api::EC2NodeClass::Status missing = resolver_->Resolve(node_class);
  const api::Condition& condition = ConditionOf(missing, api::kConditionInstanceProfileReady);
  EXPECT_EQ(condition.status, "False");
  EXPECT_EQ(condition.reason, "InstanceProfileNotFound");
  EXPECT_THAT(condition.message, HasSubstr(node_class.spec.instance_profile));
  EXPECT_EQ(missing.instance_profile, "");
  EXPECT_THAT(iam_->DeleteInstanceProfile(name), IsOk());
}

TEST_F(NodeClassResolverTest, ResolveFillsTheStatusAndReadyKeepsItsTimeWhileUnchanged) {
  api::EC2NodeClass node_class = NodeClass();
  node_class.status = resolver_->Resolve(node_class);
  const api::EC2NodeClass::Status& status = node_class.status;
  EXPECT_THAT(Ids(status.subnets),
              ElementsAre(SeededSubnetIds()[0], SeededSubnetIds()[1], SeededSubnetIds()[2]));
  ASSERT_THAT(status.security_groups, SizeIs(1));
  EXPECT_THAT(status.amis, SizeIs(3));
  EXPECT_EQ(status.instance_profile, resolver_->InstanceProfileName(node_class));
  for (const std::string_view type :
       {api::kConditionSubnetsReady, api::kConditionSecurityGroupsReady, api::kConditionAmisReady,
        api::kConditionInstanceProfileReady, api::kConditionReady}) {
    const api::Condition& condition = ConditionOf(status, type);
    EXPECT_EQ(condition.status, "True") << type << ": " << condition.message;
    EXPECT_EQ(condition.last_transition_time, "2026-12-01T00:00:00Z") << type;
    EXPECT_EQ(condition.observed_generation, 1) << type;
  }

  // Later, nothing changed: the times stay. Then the subnets match nothing: only SubnetsReady
  // and Ready move.
  clock_.Advance(std::chrono::minutes(10));
  node_class.status = resolver_->Resolve(node_class);
  EXPECT_EQ(ConditionOf(node_class.status, api::kConditionReady).last_transition_time,
            "2026-12-01T00:00:00Z");
  clock_.Advance(std::chrono::minutes(10));
  node_class.metadata.generation = 2;
  node_class.spec.subnet_selector_terms = {
      api::SelectorTerm{.tags = {{"karpenter.sh/discovery", "nobody"}}, .id = "", .name = ""}};
  node_class.status = resolver_->Resolve(node_class);
  const api::Condition& subnets = ConditionOf(node_class.status, api::kConditionSubnetsReady);
  EXPECT_EQ(subnets.status, "False");
  EXPECT_EQ(subnets.reason, "SubnetsNotFound");
  EXPECT_THAT(subnets.message, HasSubstr("karpenter.sh/discovery: nobody"));
  EXPECT_EQ(subnets.last_transition_time, "2026-12-01T00:20:00Z");
  EXPECT_THAT(node_class.status.subnets, IsEmpty());
  const api::Condition& ready = ConditionOf(node_class.status, api::kConditionReady);
  EXPECT_EQ(ready.status, "False");
  EXPECT_EQ(ready.message, "SubnetsReady=False");
  EXPECT_EQ(ready.last_transition_time, "2026-12-01T00:20:00Z");
  const api::Condition& amis = ConditionOf(node_class.status, api::kConditionAmisReady);
  EXPECT_EQ(amis.status, "True");
  EXPECT_EQ(amis.last_transition_time, "2026-12-01T00:00:00Z");
  EXPECT_EQ(amis.observed_generation, 2);
  EXPECT_THAT(node_class.status.amis, SizeIs(3));
  CleanUp(node_class);
}

// Each term is its own query, as upstream: by id, or by tags narrowed by owner and match
// criteria; reservations that ended (cancelled, or past their end date by the controller's clock)
// are left out; a term naming a reservation that does not exist selects nothing.
TEST_F(NodeClassResolverTest, CapacityReservationTermsSelectByIdTagsOwnerAndMatchCriteria) {
  const std::string tag = testing::UniqueName("reserved");
  const std::string zone = seed_["subnets"][0]["zone"].get<std::string>();
  const std::string account = seed_["account"].get<std::string>();
  ServiceClient& ec2 = clients_->ec2();
  const std::string targeted = testing::CreateCapacityReservation(ec2, "m5.large", zone, 1, tag);
  const std::string open =
      testing::CreateCapacityReservation(ec2, "c5.large", zone, 2, tag, {.match_criteria = "open"});
  // EC2 (moto) keeps it active for three hours of real time; the controller's clock decides.
  const std::string end = FormatTime(
      std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now()) +
      std::chrono::hours(3));
  const std::string ending =
      testing::CreateCapacityReservation(ec2, "m5.xlarge", zone, 1, tag, {.end_date = end});
  const std::string cancelled = testing::CreateCapacityReservation(ec2, "m5.large", zone, 1, tag);
  testing::CancelCapacityReservation(ec2, cancelled);

  const auto selected = [&](std::vector<api::CapacityReservationSelectorTerm> terms) {
    api::EC2NodeClass node_class = NodeClass();
    node_class.spec.capacity_reservation_selector_terms = std::move(terms);
    Result<NodeClassResolver::SelectedReservations> found =
        resolver_->ResolveCapacityReservations(node_class);
    EXPECT_THAT(found, IsOk());
    std::map<std::string, api::CapacityReservationStatus> by_id;
    if (found.ok()) {
      EXPECT_THAT(found->capacity_blocks, IsEmpty());
      for (api::CapacityReservationStatus& status : found->reservations) {
        std::string id = status.id;
        by_id.emplace(std::move(id), std::move(status));
      }
    }
    return by_id;
  };
  const api::CapacityReservationSelectorTerm by_tag{.tags = {{"test", tag}}};
  std::map<std::string, api::CapacityReservationStatus> all = selected({by_tag});
  ASSERT_THAT(all, SizeIs(3));
  EXPECT_FALSE(all.contains(cancelled));
  EXPECT_EQ(all[targeted].instance_type, "m5.large");
  EXPECT_EQ(all[targeted].zone, zone);
  EXPECT_EQ(all[targeted].owner_id, account);
  EXPECT_EQ(all[targeted].instance_match_criteria, "targeted");
  EXPECT_EQ(all[targeted].end_time, "");
  EXPECT_EQ(all[open].instance_match_criteria, "open");
  EXPECT_EQ(all[ending].end_time, end);

  EXPECT_THAT(selected({{.id = targeted}}), ElementsAre(Pair(targeted, ::testing::_)));
  api::CapacityReservationSelectorTerm open_only = by_tag;
  open_only.instance_match_criteria = "open";
  EXPECT_THAT(selected({open_only}), ElementsAre(Pair(open, ::testing::_)));
  api::CapacityReservationSelectorTerm mine = by_tag;
  mine.owner_id = account;
  EXPECT_THAT(selected({mine}), SizeIs(3));
  api::CapacityReservationSelectorTerm theirs = by_tag;
  theirs.owner_id = "210987654321";
  EXPECT_THAT(selected({theirs}), IsEmpty());
  EXPECT_THAT(selected({{.id = "cr-0123456789abcdef0"}, {.id = open}}),
              ElementsAre(Pair(open, ::testing::_)));
  EXPECT_THAT(selected({{.id = cancelled}}), IsEmpty());

  // Past its end date, by the controller's clock, a reservation is no longer selected.
  clock_.Set(*ParseTime(end) + std::chrono::seconds(1));
  all = selected({by_tag});
  EXPECT_THAT(all, SizeIs(2));
  EXPECT_FALSE(all.contains(ending));
}

// Capacity blocks are not supported: selecting one is refused with a reason, not ignored.
TEST_F(NodeClassResolverTest, ACapacityBlockMakesCapacityReservationsReadyFalseSayingWhy) {
  const std::string tag = testing::UniqueName("block");
  const std::string zone = seed_["subnets"][0]["zone"].get<std::string>();
  ServiceClient& ec2 = clients_->ec2();
  const std::string reservation = testing::CreateCapacityReservation(ec2, "m5.large", zone, 1, tag);
  const std::string block = testing::CreateCapacityReservation(
      ec2, "p5.48xlarge", zone, 1, tag, {.reservation_type = "capacity-block"});
  api::EC2NodeClass node_class = NodeClass();
  node_class.spec.capacity_reservation_selector_terms = {{.tags = {{"test", tag}}}};
  node_class.status = resolver_->Resolve(node_class);
  const api::Condition& reservations =
      ConditionOf(node_class.status, api::kConditionCapacityReservationsReady);
  EXPECT_EQ(reservations.status, "False");
  EXPECT_EQ(reservations.reason, "CapacityBlocksUnsupported");
  EXPECT_THAT(reservations.message, HasSubstr(block));
  EXPECT_THAT(reservations.message, HasSubstr("spec.capacityReservationSelectorTerms"));
  EXPECT_THAT(reservations.message, Not(HasSubstr(reservation)));
  ASSERT_THAT(node_class.status.capacity_reservations, SizeIs(1));
  EXPECT_EQ(node_class.status.capacity_reservations[0].id, reservation);
  const api::Condition& ready = ConditionOf(node_class.status, api::kConditionReady);
  EXPECT_EQ(ready.status, "False");
  EXPECT_THAT(ready.message, HasSubstr("CapacityReservationsReady=False"));

  // Selecting the default reservation alone, the class is Ready.
  node_class.metadata.generation = 2;
  node_class.spec.capacity_reservation_selector_terms = {{.id = reservation}};
  node_class.status = resolver_->Resolve(node_class);
  EXPECT_EQ(ConditionOf(node_class.status, api::kConditionCapacityReservationsReady).status,
            "True");
  EXPECT_EQ(ConditionOf(node_class.status, api::kConditionReady).status, "True");
  CleanUp(node_class);
}

TEST_F(NodeClassResolverTest, ConditionsOfOtherTypesAreCarriedOver) {
  api::EC2NodeClass node_class = NodeClass();
  node_class.status.conditions.push_back(
      api::Condition{.type = "ValidationSucceeded",
                     .status = "True",
                     .reason = "ValidationSucceeded",
                     .message = "",
                     .last_transition_time = "2020-01-01T00:00:00Z",
                     .observed_generation = 1});
  const api::EC2NodeClass::Status status = resolver_->Resolve(node_class);
  const api::Condition& validation = ConditionOf(status, "ValidationSucceeded");
  EXPECT_EQ(validation.last_transition_time, "2020-01-01T00:00:00Z");
  // The four parts', CapacityReservationsReady (the gate is on by default), Ready and this one.
  EXPECT_THAT(status.conditions, SizeIs(7));
  CleanUp(node_class);
}

}  // namespace
}  // namespace karpenter::aws
