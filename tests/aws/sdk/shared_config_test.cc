// The shared credentials and config files: their INI dialect, where they are, which profile is
// read, how the two files merge.

#include "aws/sdk/shared_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/credentials_test_support.h"
#include "support/matchers.h"
#include "support/param_name.h"

namespace karpenter::aws {
namespace {

using testing::ExpectNoSecrets;
using testing::TempDir;

TEST(SharedConfigProfileTest, ParsesSectionsPropertiesCommentsAndSubProperties) {
  Result<Profiles> profiles = ParseSharedFile(
      "# a comment\n"
      "[default]\r\n"
      "region = us-west-2   # inline comment\n"
      "; another comment\n"
      "\n"
      "[profile dev]  ; trailing comment\n"
      "region=eu-west-1\n"
      "s3 =\n"
      "  max_concurrent_requests = 10\n"
      "  addressing_style = path\n"
      "[sso-session corp]\n"
      "sso_region = us-east-1\n"
      "  nested = skipped\n"
      "[services local]\n",
      "config", SharedFileKind::kConfig);
  ASSERT_THAT(profiles, IsOk());
  ASSERT_EQ(profiles->size(), 2u);  // the sso-session and services sections are not profiles
  EXPECT_EQ(profiles->at("default").at("region"), "us-west-2");
  EXPECT_EQ(profiles->at("dev").at("region"), "eu-west-1");
  EXPECT_EQ(profiles->at("dev").at("s3"), "max_concurrent_requests = 10\naddressing_style = path");
}

TEST(SharedConfigProfileTest, CredentialsFileSectionsAreBareNames) {
  Result<Profiles> profiles = ParseSharedFile("[profile dev]\naws_access_key_id = A#B\n",
                                              "credentials", SharedFileKind::kCredentials);
  ASSERT_THAT(profiles, IsOk());
  // A '#' inside a value is not a comment.
  EXPECT_EQ(profiles->at("profile dev").at("aws_access_key_id"), "A#B");
}

TEST(SharedConfigProfileTest, ConfigFileNeedsTheProfilePrefixExceptForDefault) {
  Result<Profiles> profiles = ParseSharedFile("[dev]\nregion = x\n[profile  spaced ]\nregion = y\n",
                                              "config", SharedFileKind::kConfig);
  ASSERT_THAT(profiles, IsOk());
  EXPECT_EQ(profiles->count("dev"), 0u);
  EXPECT_EQ(profiles->at("spaced").at("region"), "y");
}

struct BadLine {
  const char* text;
  const char* error;
};

class SharedConfigBadLineTest : public ::testing::TestWithParam<BadLine> {};

TEST_P(SharedConfigBadLineTest, NamesFileAndLineButNotTheText) {
  Result<Profiles> profiles =
      ParseSharedFile(GetParam().text, "/home/u/.aws/credentials", SharedFileKind::kConfig);
  ASSERT_FALSE(profiles.ok());
  EXPECT_EQ(profiles.error().message, GetParam().error);
  ExpectNoSecrets(profiles.error().message);
}

INSTANTIATE_TEST_SUITE_P(
    Lines, SharedConfigBadLineTest,
    ::testing::Values(
        BadLine{"[default]\naws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYsecretKEY\n",
                "/home/u/.aws/credentials:2: expected \"[section]\" or \"key = value\""},
        BadLine{"region = us-west-2\n",
                "/home/u/.aws/credentials:1: a property before the first section"},
        BadLine{"# c\n[default\n", "/home/u/.aws/credentials:2: a section header without ']'"},
        BadLine{"[default] x\n", "/home/u/.aws/credentials:1: text after a section header"},
        BadLine{"[ ]\n", "/home/u/.aws/credentials:1: a section without a name"},
        BadLine{"[profile ]\n", "/home/u/.aws/credentials:1: a profile without a name"},
        BadLine{"[default]\n= value\n", "/home/u/.aws/credentials:2: a property without a name"},
        BadLine{"  indented = 1\n",
                "/home/u/.aws/credentials:1: an indented line outside a section"},
        BadLine{"[default]\n  indented = 1\n",
                "/home/u/.aws/credentials:2: an indented line that continues no property"}),
    ::karpenter::ReadableParamName());

class SharedConfigFilesTest : public ::testing::Test {
 protected:
  Environment Env(testing::Variables extra = {}) const {
    extra.emplace("AWS_SHARED_CREDENTIALS_FILE", dir_.path() + "/credentials");
    extra.emplace("AWS_CONFIG_FILE", dir_.path() + "/config");
    return Environment(std::move(extra));
  }

  TempDir dir_;
};

TEST(SharedConfigPathsTest, VariablesOrHome) {
  const Environment home(testing::Variables{{"HOME", "/home/u"}});
  EXPECT_EQ(SharedCredentialsPath(home), "/home/u/.aws/credentials");
  EXPECT_EQ(SharedConfigPath(home), "/home/u/.aws/config");
  const Environment set(testing::Variables{{"HOME", "/home/u"},
                                           {"AWS_SHARED_CREDENTIALS_FILE", "/etc/c"},
                                           {"AWS_CONFIG_FILE", "/etc/f"}});
  EXPECT_EQ(SharedCredentialsPath(set), "/etc/c");
  EXPECT_EQ(SharedConfigPath(set), "/etc/f");
  EXPECT_EQ(SharedCredentialsPath(Environment()), "");
  EXPECT_EQ(ProfileName(Environment()), "default");
  EXPECT_EQ(ProfileName(Environment(testing::Variables{{"AWS_PROFILE", "dev"}})), "dev");
}

TEST_F(SharedConfigFilesTest, CredentialsFileWinsAndRegionComesFromConfig) {
  dir_.Write("config",
             "[profile dev]\nregion = eu-central-1\naws_access_key_id = FROMCONFIG\n"
             "[default]\nregion = us-east-2\n");
  dir_.Write("credentials", "[dev]\naws_access_key_id = FROMCREDENTIALS\n");
  Result<Profile> profile = LoadProfile(Env({{"AWS_PROFILE", "dev"}}));
  ASSERT_THAT(profile, IsOk());
  EXPECT_EQ(profile->name, "dev");
  EXPECT_EQ(profile->Get("aws_access_key_id"), "FROMCREDENTIALS");
  EXPECT_EQ(profile->Get("region"), "eu-central-1");
  EXPECT_EQ(profile->Get("absent"), "");

  Result<std::string> region = ProfileRegion(Env());
  ASSERT_THAT(region, IsOk());
  EXPECT_EQ(*region, "us-east-2");
}

TEST_F(SharedConfigFilesTest, MissingFilesAndProfilesAreNotConfigured) {
  Result<Profile> none = LoadProfile(Env());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().reason, kNotConfigured);
  EXPECT_EQ(none.error().message, "no profile \"default\" in " + dir_.path() + "/credentials or " +
                                      dir_.path() + "/config");
  Result<std::string> region = ProfileRegion(Env());
  ASSERT_THAT(region, IsOk());
  EXPECT_EQ(*region, "");

  Result<Profile> homeless = LoadProfile(Environment());
  ASSERT_FALSE(homeless.ok());
  EXPECT_EQ(homeless.error().reason, kNotConfigured);
  EXPECT_EQ(homeless.error().message, "HOME is not set");
}

TEST_F(SharedConfigFilesTest, ParseErrorsFailTheRegionToo) {
  dir_.Write("config", "[default]\nregion us-west-2\n");
  Result<std::string> region = ProfileRegion(Env());
  ASSERT_FALSE(region.ok());
  EXPECT_EQ(region.error().message,
            dir_.path() + "/config:2: expected \"[section]\" or \"key = value\"");
}

TEST_F(SharedConfigFilesTest, UnreadableFileIsAnError) {
  std::filesystem::create_directory(dir_.path() + "/credentials");  // a directory, not a file
  Result<Profile> profile = LoadProfile(Env());
  ASSERT_FALSE(profile.ok());
  EXPECT_NE(profile.error().reason, kNotConfigured);
  EXPECT_THAT(profile.error().message, ::testing::HasSubstr(dir_.path() + "/credentials"));
}

}  // namespace
}  // namespace karpenter::aws
