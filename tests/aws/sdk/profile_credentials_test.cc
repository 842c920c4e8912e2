// Credentials from the shared files' profile: static keys, web identity, unsupported roles.

#include "aws/sdk/profile_credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aws/sdk/credentials_test_support.h"
#include "support/matchers.h"

namespace karpenter::aws::testing {
namespace {

using ::testing::HasSubstr;

class ProfileCredentialsTest : public CredentialsTest {
 protected:
  Result<Credentials> Get(Variables extra = {}) {
    extra.emplace("AWS_SHARED_CREDENTIALS_FILE", dir_.path() + "/credentials");
    extra.emplace("AWS_CONFIG_FILE", dir_.path() + "/config");
    return ProfileCredentialsProvider(Environment(std::move(extra)),
                                      {"https", "sts.us-east-1.amazonaws.com"}, sts_, clock_)
        .Get();
  }

  FakeTransport sts_{Always(200, StsCredentialsXml("2026-05-01T13:00:00Z"))};
};

TEST_F(ProfileCredentialsTest, StaticKeysOfTheSelectedProfile) {
  dir_.Write("credentials",
             "[default]\naws_access_key_id = OTHER\naws_secret_access_key = x\n"
             "[ci]\naws_access_key_id = " +
                 std::string(kKeyId) + "\naws_secret_access_key = " + std::string(kSecret) +
                 "\naws_session_token = " + std::string(kSessionToken) + "\n");
  Result<Credentials> credentials = Get({{"AWS_PROFILE", "ci"}});
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, kKeyId);
  EXPECT_EQ(credentials->secret_access_key, kSecret);
  EXPECT_EQ(credentials->session_token, kSessionToken);
  EXPECT_TRUE(sts_.requests().empty());
}

TEST_F(ProfileCredentialsTest, KeysMayComeFromTheConfigFile) {
  dir_.Write("config", "[profile ci]\naws_access_key_id = " + std::string(kKeyId) +
                           "\naws_secret_access_key = " + std::string(kSecret) + "\n");
  Result<Credentials> credentials = Get({{"AWS_PROFILE", "ci"}});
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->access_key_id, kKeyId);
}

TEST_F(ProfileCredentialsTest, WebIdentityProfileCallsSts) {
  const std::string token_file = dir_.Write("token", kWebIdentityToken);
  dir_.Write("config",
             "[default]\nrole_arn = arn:aws:iam::123456789012:role/r\n"
             "web_identity_token_file = " +
                 token_file + "\nrole_session_name = s1\n");
  Result<Credentials> credentials = Get();
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ(credentials->session_token, kSessionToken);
  ASSERT_EQ(sts_.requests().size(), 1u);
  EXPECT_EQ(sts_.requests()[0].host, "sts.us-east-1.amazonaws.com");
  EXPECT_THAT(sts_.requests()[0].body, HasSubstr("&RoleSessionName=s1&"));
}

TEST_F(ProfileCredentialsTest, SourceProfileRolesAreUnsupported) {
  dir_.Write("config",
             "[default]\nrole_arn = arn:aws:iam::123456789012:role/r\n"
             "source_profile = base\n");
  Result<Credentials> credentials = Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_NE(credentials.error().reason, kNotConfigured);
  EXPECT_THAT(credentials.error().message, HasSubstr("is not supported"));
  EXPECT_TRUE(sts_.requests().empty());
}

TEST_F(ProfileCredentialsTest, NothingToUseIsNotConfigured) {
  Result<Credentials> no_files = Get();
  ASSERT_FALSE(no_files.ok());
  EXPECT_EQ(no_files.error().reason, kNotConfigured);

  dir_.Write("config", "[default]\nregion = us-west-2\n");
  Result<Credentials> no_keys = Get();
  ASSERT_FALSE(no_keys.ok());
  EXPECT_EQ(no_keys.error().reason, kNotConfigured);
  EXPECT_EQ(no_keys.error().message, "profile \"default\" has no aws_access_key_id or role_arn");
}

TEST_F(ProfileCredentialsTest, KeyWithoutSecretIsAnErrorThatShowsOnlyTheKeysEnd) {
  dir_.Write("credentials", "[default]\naws_access_key_id = " + std::string(kKeyId) + "\n");
  Result<Credentials> credentials = Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().message,
            "profile \"default\" has aws_access_key_id (****1234) but no aws_secret_access_key");
}

TEST_F(ProfileCredentialsTest, SecretWithoutKeyIsAnError) {
  dir_.Write("credentials", "[default]\naws_secret_access_key = " + std::string(kSecret) + "\n");
  Result<Credentials> credentials = Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().message,
            "profile \"default\" has aws_secret_access_key but no aws_access_key_id");
}

TEST_F(ProfileCredentialsTest, MalformedFileNamesFileAndLine) {
  dir_.Write("credentials",
             "[default]\naws_access_key_id = A\naws_secret_access_key " + std::string(kSecret));
  Result<Credentials> credentials = Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_NE(credentials.error().reason, kNotConfigured);
  EXPECT_EQ(credentials.error().message,
            dir_.path() + "/credentials:3: expected \"[section]\" or \"key = value\"");
  ExpectNoSecrets(credentials.error().message);
}

}  // namespace
}  // namespace karpenter::aws::testing
