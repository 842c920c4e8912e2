#include "aws/nodeclass/ami_alias.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::vector<std::string> Names(const std::vector<AliasParameter>& parameters) {
  std::vector<std::string> names;
  names.reserve(parameters.size());
  for (const AliasParameter& parameter : parameters) names.push_back(parameter.name);
  return names;
}

const AliasParameter* Find(const std::vector<AliasParameter>& parameters, const std::string& name) {
  for (const AliasParameter& parameter : parameters) {
    if (parameter.name == name) return &parameter;
  }
  return nullptr;
}

TEST(ParseAmiAlias, SplitsFamilyAndVersion) {
  Result<AmiAlias> alias = ParseAmiAlias("bottlerocket@v1.26.0");
  ASSERT_THAT(alias, IsOk());
  EXPECT_EQ(alias->family, "bottlerocket");
  EXPECT_EQ(alias->version, "v1.26.0");
}

TEST(ParseAmiAlias, RejectsAnAliasWithoutFamilyOrVersion) {
  for (const char* text : {"al2023", "@latest", "al2023@", ""}) {
    Result<AmiAlias> alias = ParseAmiAlias(text);
    ASSERT_FALSE(alias.ok()) << text;
    EXPECT_NE(alias.error().message.find(std::string("\"") + text + "\""), std::string::npos)
        << alias.error().message;
  }
}

TEST(AliasParameters, Al2023LatestCoversEveryArchitectureAndVariant) {
  const std::string prefix = "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/";
  EXPECT_THAT(Names(AliasParameters({"al2023", "latest"}, "1.31")),
              ElementsAre(prefix + "x86_64/standard/recommended/image_id",
                          prefix + "arm64/standard/recommended/image_id",
                          prefix + "x86_64/nvidia/recommended/image_id",
                          prefix + "arm64/nvidia/recommended/image_id",
                          prefix + "x86_64/neuron/recommended/image_id"));
}

TEST(AliasParameters, Al2023PinnedNamesTheReleaseImage) {
  const std::vector<AliasParameter> parameters = AliasParameters({"al2023", "v20240807"}, "1.30");
  const AliasParameter* arm = Find(parameters,
                                   "/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/arm64/"
                                   "nvidia/amazon-eks-node-al2023-arm64-nvidia-1.30-v20240807/"
                                   "image_id");
  ASSERT_NE(arm, nullptr) << ::testing::PrintToString(Names(parameters));
  EXPECT_EQ(arm->architecture, "arm64");
  ASSERT_THAT(arm->variants, SizeIs(1));
  ASSERT_THAT(arm->variants[0], SizeIs(1));
  EXPECT_EQ(arm->variants[0][0].key, "karpenter.k8s.aws/instance-gpu-count");
  EXPECT_EQ(arm->variants[0][0].op, api::NodeSelectorOperator::kExists);
}

TEST(AliasParameters, StandardVariantsExcludeGpusAndAccelerators) {
  const std::vector<AliasParameter> parameters = AliasParameters({"al2023", "latest"}, "1.31");
  const AliasParameter& standard = parameters.front();
  ASSERT_THAT(standard.variants, SizeIs(1));
  ASSERT_THAT(standard.variants[0], SizeIs(2));
  for (const api::NodeSelectorRequirement& requirement : standard.variants[0]) {
    EXPECT_EQ(requirement.op, api::NodeSelectorOperator::kDoesNotExist) << requirement.key;
  }
  const AliasParameter& neuron = parameters.back();
  ASSERT_THAT(neuron.variants, SizeIs(1));
  ASSERT_THAT(neuron.variants[0], SizeIs(1));
  EXPECT_EQ(neuron.variants[0][0].key, "karpenter.k8s.aws/instance-accelerator-count");
  EXPECT_EQ(neuron.variants[0][0].op, api::NodeSelectorOperator::kExists);
}

TEST(AliasParameters, Al2PathsAndTheGpuImageServingNvidiaAndNeuron) {
  const std::string prefix = "/aws/service/eks/optimized-ami/1.29/";
  EXPECT_THAT(Names(AliasParameters({"al2", "latest"}, "1.29")),
              ElementsAre(prefix + "amazon-linux-2/recommended/image_id",
                          prefix + "amazon-linux-2-arm64/recommended/image_id",
                          prefix + "amazon-linux-2-gpu/recommended/image_id"));
  const std::vector<AliasParameter> pinned = AliasParameters({"al2", "v20240807"}, "1.29");
  EXPECT_THAT(Names(pinned),
              ElementsAre(prefix + "amazon-linux-2/amazon-eks-node-1.29-v20240807/image_id",
                          prefix + "amazon-linux-2-arm64/amazon-eks-arm64-node-1.29-v20240807/"
                                   "image_id",
                          prefix + "amazon-linux-2-gpu/amazon-eks-gpu-node-1.29-v20240807/"
                                   "image_id"));
  EXPECT_THAT(pinned.back().variants, SizeIs(2));
}

TEST(AliasParameters, BottlerocketDropsTheVOfPinnedReleases) {
  EXPECT_THAT(Names(AliasParameters({"bottlerocket", "v1.26.0"}, "1.31")),
              ElementsAre("/aws/service/bottlerocket/aws-k8s-1.31/x86_64/1.26.0/image_id",
                          "/aws/service/bottlerocket/aws-k8s-1.31/arm64/1.26.0/image_id",
                          "/aws/service/bottlerocket/aws-k8s-1.31-nvidia/x86_64/1.26.0/image_id",
                          "/aws/service/bottlerocket/aws-k8s-1.31-nvidia/arm64/1.26.0/image_id"));
  EXPECT_EQ(AliasParameters({"bottlerocket", "latest"}, "1.31").front().name,
            "/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id");
}

TEST(AliasParameters, WindowsKnowsOnlyLatestAndRequiresItsOsAndBuild) {
  const std::vector<AliasParameter> parameters = AliasParameters({"windows2022", "latest"}, "1.31");
  ASSERT_THAT(parameters, SizeIs(1));
  EXPECT_EQ(parameters[0].name,
            "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.31/"
            "image_id");
  EXPECT_EQ(parameters[0].architecture, "x86_64");
  ASSERT_THAT(parameters[0].variants, SizeIs(1));
  ASSERT_THAT(parameters[0].variants[0], SizeIs(2));
  EXPECT_EQ(parameters[0].variants[0][0].key, "kubernetes.io/os");
  EXPECT_THAT(parameters[0].variants[0][0].values, ElementsAre("windows"));
  EXPECT_EQ(parameters[0].variants[0][1].key, "node.kubernetes.io/windows-build");
  EXPECT_THAT(parameters[0].variants[0][1].values, ElementsAre("10.0.20348"));
  EXPECT_THAT(AliasParameters({"windows2022", "v2024"}, "1.31"), IsEmpty());
  EXPECT_THAT(AliasParameters({"ubuntu", "latest"}, "1.31"), IsEmpty());
}

TEST(ArchitectureRequirement, MapsEc2ArchitecturesToKubernetesOnes) {
  EXPECT_THAT(ArchitectureRequirement("x86_64").values, ElementsAre("amd64"));
  EXPECT_THAT(ArchitectureRequirement("arm64").values, ElementsAre("arm64"));
  EXPECT_EQ(ArchitectureRequirement("arm64").key, "kubernetes.io/arch");
  EXPECT_EQ(ArchitectureRequirement("arm64").op, api::NodeSelectorOperator::kIn);
}

}  // namespace
}  // namespace karpenter::aws
