// Keys from the environment, and what messages may show of credentials.

#include "aws/sdk/environment_credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aws/sdk/credentials_test_support.h"
#include "support/matchers.h"

namespace karpenter::aws::testing {
namespace {

using ::testing::HasSubstr;

Result<Credentials> FromEnvironment(Variables variables) {
  return EnvironmentCredentialsProvider(Environment(std::move(variables))).Get();
}

TEST(RedactedCredentialsTest, ShowsOnlyTheKeyIdsLastFourCharactersAndTheExpiry) {
  EXPECT_EQ(RedactedKeyId("AKIAIOSFODNN7EXAMPLE"), "****MPLE");
  EXPECT_EQ(RedactedKeyId("SHORTKEY"), "****");  // would show half of it
  EXPECT_EQ(Redacted({std::string(kKeyId), std::string(kSecret), "", std::nullopt}),
            "access key ****1234");
  const std::string temporary =
      Redacted({std::string(kKeyId), std::string(kSecret), std::string(kSessionToken),
                ParseTime("2026-05-01T12:00:00Z")});
  EXPECT_EQ(temporary, "access key ****1234 (expires 2026-05-01T12:00:00Z)");
  ExpectNoSecrets(temporary);
}

TEST(EnvironmentCredentialsTest, ReadsKeysAndSessionToken) {
  Result<Credentials> credentials =
      FromEnvironment(Variables{{"AWS_ACCESS_KEY_ID", std::string(kKeyId)},
                                {"AWS_SECRET_ACCESS_KEY", std::string(kSecret)},
                                {"AWS_SESSION_TOKEN", std::string(kSessionToken)}});
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, kKeyId);
  EXPECT_EQ(credentials->secret_access_key, kSecret);
  EXPECT_EQ(credentials->session_token, kSessionToken);
  EXPECT_FALSE(credentials->expiration.has_value());
}

TEST(EnvironmentCredentialsTest, NothingSetIsNotConfigured) {
  Result<Credentials> credentials = FromEnvironment(Variables{{"AWS_REGION", "us-west-2"}});
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().reason, kNotConfigured);
  EXPECT_EQ(credentials.error().message, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set");
}

TEST(EnvironmentCredentialsTest, KeyWithoutSecretNamesTheMissingVariable) {
  Result<Credentials> credentials =
      FromEnvironment(Variables{{"AWS_ACCESS_KEY_ID", std::string(kKeyId)}});
  ASSERT_FALSE(credentials.ok());
  EXPECT_NE(credentials.error().reason, kNotConfigured);
  EXPECT_EQ(credentials.error().message,
            "AWS_ACCESS_KEY_ID (****1234) is set but AWS_SECRET_ACCESS_KEY is not");
}

TEST(EnvironmentCredentialsTest, SecretWithoutKeyNamesTheMissingVariableButNotTheSecret) {
  Result<Credentials> credentials =
      FromEnvironment(Variables{{"AWS_SECRET_ACCESS_KEY", std::string(kSecret)}});
  ASSERT_FALSE(credentials.ok());
  EXPECT_THAT(credentials.error().message, HasSubstr("AWS_ACCESS_KEY_ID is not"));
  ExpectNoSecrets(credentials.error().message);
}

TEST(EnvironmentTest, IsTrueIgnoresCase) {
  const Environment environment(
      Variables{{"A", "TRUE"}, {"B", "True"}, {"C", "1"}, {"D", "false"}});
  EXPECT_TRUE(environment.IsTrue("A"));
  EXPECT_TRUE(environment.IsTrue("B"));
  EXPECT_FALSE(environment.IsTrue("C"));
  EXPECT_FALSE(environment.IsTrue("D"));
  EXPECT_FALSE(environment.IsTrue("E"));
}

}  // namespace
}  // namespace karpenter::aws::testing
