// IRSA: the token file exchanged with STS AssumeRoleWithWebIdentity, against a fake STS.

#include "aws/sdk/web_identity_credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aws/sdk/credentials_test_support.h"
#include "support/matchers.h"

namespace karpenter::aws::testing {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kRoleArn = "arn:aws:iam::123456789012:role/karpenter";
const StsEndpoint kSts{"https", "sts.us-west-2.amazonaws.com"};

class WebIdentityCredentialsTest : public CredentialsTest {
 protected:
  WebIdentitySettings Settings(std::string session_name = "") const {
    return {std::string(kRoleArn), dir_.path() + "/token", std::move(session_name)};
  }

  FakeTransport sts_{Always(200, StsCredentialsXml("2026-05-01T13:00:00Z"))};
};

TEST_F(WebIdentityCredentialsTest, ExchangesTheTokenWithAnUnsignedFormPost) {
  dir_.Write("token", std::string(kWebIdentityToken) + "\n");
  WebIdentityCredentialsProvider provider(Settings("my-session"), kSts, sts_, clock_);
  Result<Credentials> credentials = provider.Get();
  ASSERT_THAT(credentials, IsOk());
  ExpectTheSecrets(*credentials, "2026-05-01T13:00:00Z");

  ASSERT_EQ(sts_.requests().size(), 1u);
  const HttpRequest request = sts_.requests()[0];
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.scheme, "https");
  EXPECT_EQ(request.host, "sts.us-west-2.amazonaws.com");
  EXPECT_EQ(request.path, "/");
  EXPECT_EQ(HeaderValue(request.headers, "content-type"),
            "application/x-www-form-urlencoded; charset=utf-8");
  EXPECT_EQ(HeaderValue(request.headers, "authorization"), "");  // unsigned
  EXPECT_EQ(request.body,
            "Action=AssumeRoleWithWebIdentity&Version=2011-06-15"
            "&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fkarpenter"
            "&RoleSessionName=my-session&WebIdentityToken=" +
                std::string(kWebIdentityToken));
}

TEST_F(WebIdentityCredentialsTest, DefaultSessionNameCarriesTheTime) {
  dir_.Write("token", kWebIdentityToken);
  WebIdentityCredentialsProvider provider(Settings(), kSts, sts_, clock_);
  ASSERT_THAT(provider.Get(), IsOk());
  // 2026-05-01T12:00:00Z in Unix seconds.
  EXPECT_THAT(sts_.requests()[0].body, HasSubstr("&RoleSessionName=karpenter-1777636800&"));
}

TEST_F(WebIdentityCredentialsTest, ReadsTheRotatedTokenOnEveryCall) {
  dir_.Write("token", "first-token");
  WebIdentityCredentialsProvider provider(Settings(), kSts, sts_, clock_);
  ASSERT_THAT(provider.Get(), IsOk());
  dir_.Write("token", "second-token");
  ASSERT_THAT(provider.Get(), IsOk());
  ASSERT_EQ(sts_.requests().size(), 2u);
  EXPECT_THAT(sts_.requests()[0].body, HasSubstr("WebIdentityToken=first-token"));
  EXPECT_THAT(sts_.requests()[1].body, HasSubstr("WebIdentityToken=second-token"));
}

TEST_F(WebIdentityCredentialsTest, MissingTokenFileFailsWithoutCallingSts) {
  WebIdentityCredentialsProvider provider(Settings(), kSts, sts_, clock_);
  Result<Credentials> credentials = provider.Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().message, "STS AssumeRoleWithWebIdentity for " +
                                             std::string(kRoleArn) + ": cannot read " +
                                             dir_.path() + "/token: No such file or directory");
  EXPECT_TRUE(sts_.requests().empty());
}

TEST_F(WebIdentityCredentialsTest, StsErrorKeepsStatusAndCode) {
  dir_.Write("token", kWebIdentityToken);
  FakeTransport sts(
      Always(400,
             "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error>"
             "<Type>Sender</Type><Code>InvalidIdentityToken</Code>"
             "<Message>Incorrect token audience</Message></Error>"
             "<RequestId>r-2</RequestId></ErrorResponse>"));
  WebIdentityCredentialsProvider provider(Settings(), kSts, sts, clock_);
  Result<Credentials> credentials = provider.Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().status, 400);
  EXPECT_EQ(credentials.error().reason, "InvalidIdentityToken");
  EXPECT_EQ(credentials.error().message,
            "STS AssumeRoleWithWebIdentity for " + std::string(kRoleArn) +
                ": InvalidIdentityToken: Incorrect token audience (HTTP 400)");
  ExpectNoSecrets(credentials.error().message);
}

TEST_F(WebIdentityCredentialsTest, NonXmlErrorIsItsStatus) {
  dir_.Write("token", kWebIdentityToken);
  FakeTransport sts(Always(503, "<html>Service Unavailable"));
  Result<Credentials> credentials =
      WebIdentityCredentialsProvider(Settings(), kSts, sts, clock_).Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().status, 503);
  EXPECT_THAT(credentials.error().message, ::testing::EndsWith(": HTTP 503"));
}

TEST_F(WebIdentityCredentialsTest, UnreachableStsIsAnError) {
  dir_.Write("token", kWebIdentityToken);
  FakeTransport sts(Unreachable);
  Result<Credentials> credentials =
      WebIdentityCredentialsProvider(Settings(), kSts, sts, clock_).Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().status, 0);
  EXPECT_THAT(credentials.error().message,
              HasSubstr("cannot reach https://sts.us-west-2.amazonaws.com: connection refused"));
  ExpectNoSecrets(credentials.error().message);
}

TEST_F(WebIdentityCredentialsTest, IncompleteCredentialsAreAnError) {
  dir_.Write("token", kWebIdentityToken);
  FakeTransport sts(Always(200, StsCredentialsXml("not a time")));
  Result<Credentials> credentials =
      WebIdentityCredentialsProvider(Settings(), kSts, sts, clock_).Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_THAT(credentials.error().message, HasSubstr("lack a key, secret, token or expiration"));
  ExpectNoSecrets(credentials.error().message);
}

TEST(WebIdentitySettingsTest, FromEnvironment) {
  Result<WebIdentitySettings> none = WebIdentitySettingsFromEnvironment(Environment());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().reason, kNotConfigured);

  Result<WebIdentitySettings> half = WebIdentitySettingsFromEnvironment(
      Environment(Variables{{"AWS_ROLE_ARN", std::string(kRoleArn)}}));
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.error().reason, kNotConfigured);
  EXPECT_EQ(half.error().message, "AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not");

  Result<WebIdentitySettings> other_half = WebIdentitySettingsFromEnvironment(
      Environment(Variables{{"AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token"}}));
  ASSERT_FALSE(other_half.ok());
  EXPECT_EQ(other_half.error().message,
            "AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not");

  Result<WebIdentitySettings> full = WebIdentitySettingsFromEnvironment(
      Environment(Variables{{"AWS_ROLE_ARN", std::string(kRoleArn)},
                            {"AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token"},
                            {"AWS_ROLE_SESSION_NAME", "session"}}));
  ASSERT_THAT(full, IsOk());
  EXPECT_EQ(full->role_arn, kRoleArn);
  EXPECT_EQ(full->token_file, "/var/run/token");
  EXPECT_EQ(full->session_name, "session");
}

}  // namespace
}  // namespace karpenter::aws::testing
