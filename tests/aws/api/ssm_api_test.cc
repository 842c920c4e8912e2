#include "aws/api/ssm_api.h"

#include <gtest/gtest.h>

#include "moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

constexpr char kAl2023X86[] =
    "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id";
constexpr char kAl2023Arm[] =
    "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id";

class SsmApiTest : public testing::MotoTest {
 protected:
  void SetUp() override {
    MotoTest::SetUp();
    if (!HasFatalFailure()) ssm_.emplace(clients_->ssm());
  }
  std::optional<SsmApi> ssm_;
};

TEST_F(SsmApiTest, ResolvesTheAmiAliasParameterToTheSeededImage) {
  Result<std::string> value = ssm_->GetParameter(kAl2023X86);
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, seed_["images"]["al2023_x86_64"]["id"].get<std::string>());
}

TEST_F(SsmApiTest, AMissingParameterIsAnErrorWithTheAwsCodeNamingTheOperation) {
  Result<std::string> value = ssm_->GetParameter("/karpenter/test/does-not-exist");
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.error().reason, "ParameterNotFound");
  EXPECT_EQ(value.error().status, 400);
  EXPECT_NE(value.error().message.find("GetParameter"), std::string::npos) << value.error().message;
}

TEST_F(SsmApiTest, GetParametersReportsFoundAndInvalidNames) {
  const std::string missing = "/karpenter/test/" + testing::UniqueName("missing");
  Result<SsmParameters> parameters = ssm_->GetParameters({kAl2023X86, missing, kAl2023Arm});
  ASSERT_THAT(parameters, IsOk());
  EXPECT_EQ(parameters->values.size(), 2U);
  EXPECT_EQ(parameters->values[kAl2023X86], seed_["images"]["al2023_x86_64"]["id"]);
  EXPECT_EQ(parameters->values[kAl2023Arm], seed_["images"]["al2023_arm64"]["id"]);
  EXPECT_EQ(parameters->invalid, std::vector<std::string>{missing});
}

TEST_F(SsmApiTest, GetParametersSplitsMoreNamesThanOneCallTakes) {
  // 12 names: over SSM's 10 per call, so a single call would be refused.
  std::vector<std::string> names;
  for (const auto& [name, image] : seed_["ssm_parameters"].items()) names.push_back(name);
  while (names.size() < 12) names.push_back("/karpenter/test/" + testing::UniqueName("filler"));
  Result<SsmParameters> parameters = ssm_->GetParameters(names);
  ASSERT_THAT(parameters, IsOk());
  EXPECT_EQ(parameters->values.size(), seed_["ssm_parameters"].size());
  EXPECT_EQ(parameters->values.size() + parameters->invalid.size(), names.size());
}

}  // namespace
}  // namespace karpenter::aws
