#include "aws/api/ssm_api.h"

#include <gtest/gtest.h>

#include "moto_fixture.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

constexpr char kAl2023X86[] =
    "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id";

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
  EXPECT_EQ(value.error().reason, kParameterNotFound);
  EXPECT_EQ(value.error().status, 400);
  EXPECT_NE(value.error().message.find("GetParameter"), std::string::npos) << value.error().message;
}

}  // namespace
}  // namespace karpenter::aws
