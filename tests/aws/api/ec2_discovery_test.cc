#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "aws/api/ec2_api.h"
#include "moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Pair;

class Ec2DiscoveryTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (!HasFatalFailure()) ec2_.emplace(clients_->ec2());
  }
  std::vector<QueryFilter> Discovery() const {
    return {{"tag:karpenter.sh/discovery", {cluster_}}};
  }
  std::optional<Ec2Api> ec2_;
};

TEST_F(Ec2DiscoveryTest, FindsTheTaggedSubnetsByDiscoveryTagAndNotTheUntaggedOne) {
  Result<std::vector<Subnet>> subnets = ec2_->DescribeSubnets(Discovery());
  ASSERT_THAT(subnets, IsOk());
  ASSERT_EQ(subnets->size(), 3U);
  std::sort(subnets->begin(), subnets->end(),
            [](const Subnet& a, const Subnet& b) { return a.zone < b.zone; });
  for (size_t i = 0; i < 3; ++i) {
    const Json& seeded = seed_["subnets"][i];
    SCOPED_TRACE(seeded.dump());
    const Subnet& subnet = (*subnets)[i];
    EXPECT_EQ(subnet.subnet_id, seeded["id"].get<std::string>());
    EXPECT_EQ(subnet.zone, seeded["zone"].get<std::string>());
    // Instances other tests launched (and moto keeps addresses of) take a few addresses.
    EXPECT_LE(subnet.available_ip_address_count, seeded["available_ips"].get<int64_t>());
    EXPECT_GT(subnet.available_ip_address_count, seeded["available_ips"].get<int64_t>() - 100);
    EXPECT_EQ(subnet.vpc_id, seed_["vpc"].get<std::string>());
    EXPECT_TRUE(subnet.zone_id.starts_with("usw2-az")) << subnet.zone_id;
    EXPECT_THAT(subnet.tags, Contains(Pair("karpenter.sh/discovery", cluster_)));
    EXPECT_NE(subnet.subnet_id, seed_["untagged_subnet"].get<std::string>());
  }
}

TEST_F(Ec2DiscoveryTest, FindsTheSecurityGroupByTag) {
  Result<std::vector<SecurityGroup>> groups = ec2_->DescribeSecurityGroups(Discovery());
  ASSERT_THAT(groups, IsOk());
  ASSERT_EQ(groups->size(), 1U);
  EXPECT_EQ(groups->front().group_id, seed_["security_group"].get<std::string>());
  EXPECT_EQ(groups->front().group_name, cluster_ + "-node");
  EXPECT_EQ(groups->front().vpc_id, seed_["vpc"].get<std::string>());
  EXPECT_THAT(groups->front().tags, Contains(Pair("karpenter.sh/discovery", cluster_)));
}

TEST_F(Ec2DiscoveryTest, DescribesImagesById) {
  const Json& seeded = seed_["images"]["al2023_arm64"];
  ImageQuery query;
  query.image_ids = {seeded["id"].get<std::string>()};
  Result<std::vector<Image>> images = ec2_->DescribeImages(query);
  ASSERT_THAT(images, IsOk());
  ASSERT_EQ(images->size(), 1U);
  EXPECT_EQ(images->front().image_id, seeded["id"].get<std::string>());
  EXPECT_EQ(images->front().name, seeded["name"].get<std::string>());
  EXPECT_EQ(images->front().architecture, "arm64");
  EXPECT_EQ(images->front().state, "available");
  EXPECT_TRUE(images->front().creation_date.starts_with("2024-11-21T"))
      << images->front().creation_date;
}

TEST_F(Ec2DiscoveryTest, DescribesImagesByOwnerAndNameFilter) {
  ImageQuery query;
  query.owners = {"602401143452"};  // EKS's account
  query.filters = {{"name", {"amazon-eks-node-al2023-*-1.31-*"}}, {"architecture", {"x86_64"}}};
  Result<std::vector<Image>> images = ec2_->DescribeImages(query);
  ASSERT_THAT(images, IsOk());
  std::vector<std::string> ids;
  for (const Image& image : *images) ids.push_back(image.image_id);
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> expected = {
      seed_["images"]["al2023_x86_64"]["id"], seed_["images"]["al2023_x86_64_nvidia"]["id"],
      seed_["images"]["al2023_x86_64_previous"]["id"], seed_["images"]["al2023_x86_64_next"]["id"]};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ids, expected);
}

TEST_F(Ec2DiscoveryTest, AnUnknownImageIsAnErrorWithTheAwsCodeNamingTheOperation) {
  // A well-formed id: AWS answers "ami-doesnotexist" with InvalidAMIID.Malformed, moto with
  // InvalidAMIID.NotFound; both answer this one with NotFound.
  ImageQuery query;
  query.image_ids = {"ami-0123456789abcdef0"};
  Result<std::vector<Image>> images = ec2_->DescribeImages(query);
  ASSERT_FALSE(images.ok());
  EXPECT_EQ(images.error().reason, "InvalidAMIID.NotFound");
  EXPECT_EQ(images.error().status, 400);
  EXPECT_NE(images.error().message.find("DescribeImages"), std::string::npos)
      << images.error().message;
}

TEST_F(Ec2DiscoveryTest, DescribesInstanceTypesForTheCatalog) {
  Result<std::vector<InstanceTypeInfo>> types =
      ec2_->DescribeInstanceTypes({"m5.large", "g4dn.xlarge", "m5.metal"});
  ASSERT_THAT(types, IsOk());
  ASSERT_EQ(types->size(), 3U);
  std::map<std::string, InstanceTypeInfo> by_name;
  for (const InstanceTypeInfo& type : *types) by_name[type.name] = type;

  const InstanceTypeInfo& m5 = by_name["m5.large"];
  EXPECT_EQ(m5.vcpus, 2);
  EXPECT_EQ(m5.memory_mib, 8192);
  EXPECT_THAT(m5.architectures, ElementsAre("x86_64"));
  EXPECT_THAT(m5.usage_classes, Contains("spot"));
  EXPECT_EQ(m5.max_enis, 3);
  EXPECT_EQ(m5.ipv4_per_eni, 10);
  EXPECT_EQ(m5.gpu_count, 0);
  EXPECT_EQ(m5.hypervisor, "nitro");
  EXPECT_FALSE(m5.bare_metal);

  const InstanceTypeInfo& g4 = by_name["g4dn.xlarge"];
  EXPECT_EQ(g4.gpu_count, 1);
  EXPECT_EQ(g4.gpu_name, "T4");
  EXPECT_EQ(g4.gpu_manufacturer, "NVIDIA");
  EXPECT_EQ(g4.gpu_memory_mib, 16384);
  EXPECT_EQ(g4.local_storage_gb, 125);

  EXPECT_TRUE(by_name["m5.metal"].bare_metal);
  EXPECT_EQ(by_name["m5.metal"].vcpus, 96);
}

TEST_F(Ec2DiscoveryTest, DescribesAllInstanceTypesWithoutNames) {
  Result<std::vector<InstanceTypeInfo>> types = ec2_->DescribeInstanceTypes();
  ASSERT_THAT(types, IsOk());
  EXPECT_GT(types->size(), 500U);
  EXPECT_TRUE(std::any_of(types->begin(), types->end(),
                          [](const InstanceTypeInfo& type) { return type.name == "m5.large"; }));
}

TEST_F(Ec2DiscoveryTest, AnUnknownInstanceTypeIsAnError) {
  Result<std::vector<InstanceTypeInfo>> types = ec2_->DescribeInstanceTypes({"m5.nonesuch"});
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.error().reason, "InvalidInstanceType");
  EXPECT_NE(types.error().message.find("DescribeInstanceTypes"), std::string::npos);
}

TEST_F(Ec2DiscoveryTest, ListsOfferingsPerZone) {
  Result<std::vector<InstanceTypeOffering>> offerings =
      ec2_->DescribeInstanceTypeOfferings({{"instance-type", {"m5.large"}}});
  ASSERT_THAT(offerings, IsOk());
  std::vector<std::string> zones;
  for (const InstanceTypeOffering& offering : *offerings) {
    EXPECT_EQ(offering.instance_type, "m5.large");
    zones.push_back(offering.zone);
  }
  for (const Json& subnet : seed_["subnets"]) {
    EXPECT_THAT(zones, Contains(subnet["zone"].get<std::string>()));
  }

  Result<std::vector<InstanceTypeOffering>> all = ec2_->DescribeInstanceTypeOfferings();
  ASSERT_THAT(all, IsOk());
  EXPECT_GT(all->size(), offerings->size());
}

}  // namespace
}  // namespace karpenter::aws
