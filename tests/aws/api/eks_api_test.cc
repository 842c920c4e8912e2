// DescribeCluster, ListNodegroups, DescribeNodegroup and ListAccessEntries against the clusters and
// node groups moto's seed creates, and the errors of a cluster or node group that does not exist or
// a name EKS could never have given.

#include "aws/api/eks_api.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/base64.h"
#include "moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

class EksApiTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    eks_.emplace(clients_->eks());
  }

  std::optional<EksApi> eks_;
};

TEST_F(EksApiTest, DescribesTheSeededCluster) {
  Result<EksCluster> cluster = eks_->DescribeCluster(cluster_);
  ASSERT_THAT(cluster, IsOk());
  EXPECT_EQ(cluster->name, cluster_);
  EXPECT_EQ(cluster->arn, seed_["cluster_arn"].get<std::string>());
  EXPECT_EQ(cluster->version, seed_["kubernetes_version"].get<std::string>());
  EXPECT_TRUE(cluster->endpoint.starts_with("https://")) << cluster->endpoint;
  EXPECT_FALSE(cluster->certificate_authority.empty());
  EXPECT_THAT(DecodeBase64(cluster->certificate_authority), IsOk());
  EXPECT_EQ(cluster->service_ipv4_cidr, seed_["service_cidr"].get<std::string>());
  EXPECT_EQ(cluster->security_group_ids,
            std::vector<std::string>{seed_["security_group"].get<std::string>()});
  EXPECT_TRUE(cluster->oidc_issuer.starts_with("https://oidc.eks.")) << cluster->oidc_issuer;
  // moto's clusters do not say, as clusters from before access entries do not.
  EXPECT_EQ(cluster->authentication_mode, "CONFIG_MAP");
}

TEST_F(EksApiTest, ListsAndDescribesTheSeededNodeGroups) {
  Result<std::vector<std::string>> names = eks_->ListNodegroups(cluster_);
  ASSERT_THAT(names, IsOk());
  std::vector<std::string> seeded;
  for (const auto& [name, config] : seed_["node_groups"].items()) seeded.push_back(name);
  std::vector<std::string> listed = *names;
  std::sort(listed.begin(), listed.end());
  std::sort(seeded.begin(), seeded.end());
  EXPECT_EQ(listed, seeded);
  for (const std::string& name : seeded) {
    const Json& config = seed_["node_groups"][name];
    Result<EksNodegroup> group = eks_->DescribeNodegroup(cluster_, name);
    ASSERT_THAT(group, IsOk()) << name;
    EXPECT_EQ(group->name, name);
    EXPECT_EQ(group->status, "ACTIVE");
    EXPECT_TRUE(group->node_role.starts_with("arn:aws:iam::")) << group->node_role;
    EXPECT_EQ(group->instance_types, config["instanceTypes"].get<std::vector<std::string>>());
    EXPECT_EQ(group->capacity_type, config["capacityType"].get<std::string>());
    EXPECT_EQ(group->ami_type, config["amiType"].get<std::string>());
    EXPECT_EQ(group->labels, (config["labels"].get<std::map<std::string, std::string>>()));
    const Json taints = config.value("taints", Json::array());
    ASSERT_EQ(group->taints.size(), taints.size()) << name;
    for (size_t i = 0; i < taints.size(); ++i) {
      EXPECT_EQ(group->taints[i].key, taints[i]["key"].get<std::string>());
      EXPECT_EQ(group->taints[i].value, taints[i]["value"].get<std::string>());
      EXPECT_EQ(group->taints[i].effect, taints[i]["effect"].get<std::string>());
    }
    EXPECT_EQ(group->min_size, config["scalingConfig"]["minSize"].get<int64_t>());
    EXPECT_EQ(group->max_size, config["scalingConfig"]["maxSize"].get<int64_t>());
    EXPECT_EQ(group->desired_size, config["scalingConfig"]["desiredSize"].get<int64_t>());
    EXPECT_EQ(group->subnets, config["subnets"].get<std::vector<std::string>>());
  }
}

TEST_F(EksApiTest, ReadsTheAuthenticationModeAndAccessEntriesOfAnApiCluster) {
  const std::string api_cluster = seed_["api_cluster"].get<std::string>();
  Result<EksCluster> cluster = eks_->DescribeCluster(api_cluster);
  ASSERT_THAT(cluster, IsOk());
  EXPECT_EQ(cluster->authentication_mode, "API");
  Result<std::vector<std::string>> entries = eks_->ListAccessEntries(api_cluster);
  ASSERT_THAT(entries, IsOk());
  EXPECT_EQ(*entries,
            std::vector<std::string>{"arn:aws:iam::" + seed_["account"].get<std::string>() +
                                     ":role/KarpenterNodeRole-" + api_cluster});
  Result<std::vector<std::string>> none = eks_->ListAccessEntries(cluster_);
  ASSERT_THAT(none, IsOk());
  EXPECT_TRUE(none->empty());
}

TEST_F(EksApiTest, UnknownNodeGroupIsResourceNotFound) {
  Result<EksNodegroup> group = eks_->DescribeNodegroup(cluster_, "no-such-group");
  ASSERT_FALSE(group.ok());
  EXPECT_EQ(group.error().reason, "ResourceNotFoundException") << group.error().message;
  Result<std::vector<std::string>> names = eks_->ListNodegroups("no-such-cluster");
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(names.error().reason, "ResourceNotFoundException") << names.error().message;
}

TEST_F(EksApiTest, UnknownClusterIsResourceNotFound) {
  Result<EksCluster> cluster = eks_->DescribeCluster("no-such-cluster");
  ASSERT_FALSE(cluster.ok());
  EXPECT_EQ(cluster.error().reason, "ResourceNotFoundException") << cluster.error().message;
  EXPECT_EQ(cluster.error().status, 404);
}

TEST_F(EksApiTest, NameEksCouldNotHaveGivenIsRefusedUnsent) {
  for (const std::string name : {"", "a/b", "../clusters", "name with spaces"}) {
    Result<EksCluster> cluster = eks_->DescribeCluster(name);
    ASSERT_FALSE(cluster.ok()) << name;
    EXPECT_NE(cluster.error().message.find("not an EKS cluster name"), std::string::npos)
        << cluster.error().message;
    Result<EksNodegroup> group = eks_->DescribeNodegroup(cluster_, name);
    ASSERT_FALSE(group.ok()) << name;
    EXPECT_NE(group.error().message.find("not an EKS node group name"), std::string::npos)
        << group.error().message;
  }
}

}  // namespace
}  // namespace karpenter::aws
