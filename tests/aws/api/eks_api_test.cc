// DescribeCluster against the cluster moto's seed creates, and the errors of a cluster that does
// not exist or a name EKS could never have given.

#include "aws/api/eks_api.h"

#include <gtest/gtest.h>

#include <string>

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
  }
}

}  // namespace
}  // namespace karpenter::aws
