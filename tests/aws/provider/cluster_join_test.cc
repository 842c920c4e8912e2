// How nodes join the cluster when the settings leave it out: EKS DescribeCluster of the seeded
// cluster fills the endpoint, CA bundle and service CIDR; what the settings give is kept; a cluster
// EKS does not know falls back to the controller's own API server only when one is given.

#include <gtest/gtest.h>

#include <string>

#include "aws/api/moto_fixture.h"
#include "aws/provider/aws_provider.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

class ClusterJoinTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (HasFatalFailure()) return;
    eks_.emplace(clients_->eks());
    Result<EksCluster> cluster = eks_->DescribeCluster(cluster_);
    ASSERT_THAT(cluster, IsOk());
    seeded_ = *cluster;
  }

  AwsProviderOptions Options(const std::string& cluster) const {
    AwsProviderOptions options;
    options.cluster_name = cluster;
    return options;
  }

  std::optional<EksApi> eks_;
  EksCluster seeded_;
};

TEST_F(ClusterJoinTest, WhatTheSettingsLeaveOutComesFromEks) {
  AwsProviderOptions options = Options(cluster_);
  ASSERT_THAT(ResolveClusterJoin(*eks_, options), IsOk());
  EXPECT_EQ(options.cluster_endpoint, seeded_.endpoint);
  EXPECT_EQ(options.certificate_authority, seeded_.certificate_authority);
  EXPECT_EQ(options.service_cidr, seed_["service_cidr"].get<std::string>());
}

TEST_F(ClusterJoinTest, WhatTheSettingsGiveIsKept) {
  AwsProviderOptions options = Options(cluster_);
  options.cluster_endpoint = "https://given.example";
  options.certificate_authority = "Z2l2ZW4=";
  ASSERT_THAT(ResolveClusterJoin(*eks_, options), IsOk());
  EXPECT_EQ(options.cluster_endpoint, "https://given.example");
  EXPECT_EQ(options.certificate_authority, "Z2l2ZW4=");
  EXPECT_EQ(options.service_cidr, seed_["service_cidr"].get<std::string>()) << "still from EKS";
}

TEST_F(ClusterJoinTest, UnknownClusterWithoutAnEndpointIsAnErrorThatSaysWhatToSet) {
  AwsProviderOptions options = Options("not-in-eks");
  Status joined = ResolveClusterJoin(*eks_, options);
  ASSERT_FALSE(joined.ok());
  EXPECT_NE(joined.error().message.find("--cluster-endpoint"), std::string::npos)
      << joined.error().message;
  EXPECT_NE(joined.error().message.find("not-in-eks"), std::string::npos) << joined.error().message;
}

TEST_F(ClusterJoinTest, UnknownClusterFallsBackToTheControllersApiServerWhenGiven) {
  AwsProviderOptions options = Options("not-in-eks");
  options.fallback_endpoint = "https://127.0.0.1:6443";
  ASSERT_THAT(ResolveClusterJoin(*eks_, options), IsOk());
  EXPECT_EQ(options.cluster_endpoint, "https://127.0.0.1:6443");
  EXPECT_EQ(options.service_cidr, "");
}

}  // namespace
}  // namespace karpenter::aws
