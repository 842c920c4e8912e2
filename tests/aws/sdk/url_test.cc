// URLs from configuration, split into an HttpRequest's parts.

#include "aws/sdk/url.h"

#include <gtest/gtest.h>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

TEST(UrlTest, SplitsSchemeHostPathAndQuery) {
  Result<Url> url = ParseUrl("HTTPS://example.com:8443/v1/creds?a=1&b=x%20y&flag#fragment", "X");
  ASSERT_THAT(url, IsOk());
  EXPECT_EQ(url->scheme, "https");
  EXPECT_EQ(url->host, "example.com:8443");
  EXPECT_EQ(url->path, "/v1/creds");
  const std::vector<std::pair<std::string, std::string>> query{
      {"a", "1"}, {"b", "x y"}, {"flag", ""}};
  EXPECT_EQ(url->query, query);
}

TEST(UrlTest, EmptyPathIsRootAndIpv6KeepsBrackets) {
  Result<Url> url = ParseUrl("http://[fd00:ec2::254]:80", "X");
  ASSERT_THAT(url, IsOk());
  EXPECT_EQ(url->host, "[fd00:ec2::254]:80");
  EXPECT_EQ(url->path, "/");
  EXPECT_TRUE(url->query.empty());
}

TEST(UrlTest, RejectsWhatIsNotAnHttpUrlWithoutQuotingIt) {
  const std::pair<const char*, const char*> cases[] = {
      {"169.254.169.254", "expected scheme://host"},
      {"ftp://host/", "the scheme is not http(s)"},
      {"http:///path", "no host"},
      {"http://user:secret@host/", "user information is not allowed"},
      {"http://[::1/", "unterminated IPv6 address"},
      {"http://host/?a=%zz", "bad percent-encoding in query"},
      {"http://host/?a=%2", "bad percent-encoding in query"},
  };
  for (const auto& [text, why] : cases) {
    Result<Url> url = ParseUrl(text, "SETTING");
    ASSERT_FALSE(url.ok()) << text;
    EXPECT_EQ(url.error().message, std::string("SETTING is not a valid URL: ") + why);
  }
}

TEST(UrlTest, HostName) {
  EXPECT_EQ(HostName("[::1]:80"), "::1");
  EXPECT_EQ(HostName("[fd00:ec2::23]"), "fd00:ec2::23");
  EXPECT_EQ(HostName("127.0.0.1:8080"), "127.0.0.1");
  EXPECT_EQ(HostName("example.com"), "example.com");
}

}  // namespace
}  // namespace karpenter::aws
