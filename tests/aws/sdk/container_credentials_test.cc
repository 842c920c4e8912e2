// EKS Pod Identity and ECS task credentials: which endpoints are allowed, the authorization
// token, the JSON document and error responses.

#include "aws/sdk/container_credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aws/sdk/credentials_document.h"
#include "aws/sdk/credentials_test_support.h"
#include "support/matchers.h"

namespace karpenter::aws::testing {
namespace {

using ::testing::HasSubstr;

Result<ContainerEndpoint> EndpointOf(Variables variables) {
  return ContainerEndpointFromEnvironment(Environment(std::move(variables)));
}

TEST(ContainerEndpointTest, NotConfiguredWithoutEitherUri) {
  Result<ContainerEndpoint> endpoint = EndpointOf({{"AWS_CONTAINER_AUTHORIZATION_TOKEN", "t"}});
  ASSERT_FALSE(endpoint.ok());
  EXPECT_EQ(endpoint.error().reason, kNotConfigured);
}

TEST(ContainerEndpointTest, RelativeUriIsUnderTheEcsAddressAndWins) {
  Result<ContainerEndpoint> endpoint =
      EndpointOf({{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/abc"},
                  {"AWS_CONTAINER_CREDENTIALS_FULL_URI", "https://example.com/creds"}});
  ASSERT_THAT(endpoint, IsOk());
  EXPECT_EQ(endpoint->url.scheme, "http");
  EXPECT_EQ(endpoint->url.host, "169.254.170.2");
  EXPECT_EQ(endpoint->url.path, "/v2/credentials/abc");
}

TEST(ContainerEndpointTest, FullUriAllowsHttpsAndLocalHttpOnly) {
  for (const char* allowed :
       {"http://169.254.170.23/v1/credentials", "http://[fd00:ec2::23]/v1/credentials",
        "http://[fd00:ec2:0::23]:80/v1/credentials", "http://169.254.170.2/creds",
        "http://127.0.0.1:8080/creds", "http://127.1.2.3/creds", "http://[::1]/creds",
        "https://credentials.example.com/creds"}) {
    Result<ContainerEndpoint> endpoint =
        EndpointOf({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", allowed}});
    EXPECT_THAT(endpoint, IsOk()) << allowed << ": " << endpoint.error().message;
  }
  for (const char* refused : {"http://10.0.0.1/creds", "http://localhost/creds",
                              "http://169.254.170.24/creds", "http://[fd00:ec2::24]/creds"}) {
    Result<ContainerEndpoint> endpoint =
        EndpointOf({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", refused}});
    ASSERT_FALSE(endpoint.ok()) << refused;
    EXPECT_NE(endpoint.error().reason, kNotConfigured);
    EXPECT_THAT(endpoint.error().message, HasSubstr("http is allowed only to"));
  }
  Result<ContainerEndpoint> bad = EndpointOf({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "ftp://x/"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "AWS_CONTAINER_CREDENTIALS_FULL_URI is not a valid URL: the scheme is not http(s)");
}

class ContainerCredentialsTest : public CredentialsTest {
 protected:
  ContainerEndpoint PodIdentity(std::string token = "", std::string token_file = "") const {
    Result<ContainerEndpoint> endpoint = ContainerEndpointFromEnvironment(Environment(
        Variables{{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://169.254.170.23/v1/credentials"},
                  {"AWS_CONTAINER_AUTHORIZATION_TOKEN", std::move(token)},
                  {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", std::move(token_file)}}));
    EXPECT_THAT(endpoint, IsOk());
    return *endpoint;
  }

  FakeTransport agent_{Always(200, CredentialsJson("2026-05-01T18:00:00Z"))};
};

TEST_F(ContainerCredentialsTest, GetsTheDocumentWithTheTokenFromTheFileReadEachTime) {
  const std::string token_file = dir_.Write("eks-pod-identity-token", "first\n");
  ContainerCredentialsProvider provider(PodIdentity("ignored", token_file), agent_);
  Result<Credentials> credentials = provider.Get();
  ASSERT_THAT(credentials, IsOk());
  ExpectTheSecrets(*credentials, "2026-05-01T18:00:00Z");

  dir_.Write("eks-pod-identity-token", "second");
  ASSERT_THAT(provider.Get(), IsOk());
  const std::vector<HttpRequest> requests = agent_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].scheme, "http");
  EXPECT_EQ(requests[0].host, "169.254.170.23");
  EXPECT_EQ(requests[0].path, "/v1/credentials");
  EXPECT_EQ(HeaderValue(requests[0].headers, "Authorization"), "first");
  EXPECT_EQ(HeaderValue(requests[1].headers, "Authorization"), "second");
}

TEST_F(ContainerCredentialsTest, FixedTokenWhenNoFile) {
  ContainerCredentialsProvider provider(PodIdentity("fixed-token"), agent_);
  ASSERT_THAT(provider.Get(), IsOk());
  EXPECT_EQ(HeaderValue(agent_.requests()[0].headers, "Authorization"), "fixed-token");
}

TEST_F(ContainerCredentialsTest, MissingTokenFileIsAnError) {
  ContainerCredentialsProvider provider(PodIdentity("", dir_.path() + "/absent"), agent_);
  Result<Credentials> credentials = provider.Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_THAT(credentials.error().message, HasSubstr("cannot read " + dir_.path() + "/absent"));
  EXPECT_TRUE(agent_.requests().empty());
}

TEST_F(ContainerCredentialsTest, TokenWithALineBreakIsRefused) {
  ContainerCredentialsProvider provider(PodIdentity("a\r\nX-Injected: 1"), agent_);
  Result<Credentials> credentials = provider.Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_THAT(credentials.error().message, HasSubstr("contains a line break"));
  EXPECT_TRUE(agent_.requests().empty());
}

TEST_F(ContainerCredentialsTest, ErrorResponseKeepsStatusAndCode) {
  FakeTransport agent(
      Always(400, R"({"code":"InvalidToken","message":"Service account token invalid"})"));
  Result<Credentials> credentials = ContainerCredentialsProvider(PodIdentity("t"), agent).Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().status, 400);
  EXPECT_EQ(credentials.error().reason, "InvalidToken");
  EXPECT_EQ(credentials.error().message,
            "container credentials endpoint http://169.254.170.23/v1/credentials: HTTP 400: "
            "InvalidToken: Service account token invalid");
}

TEST_F(ContainerCredentialsTest, UnreachableAgentIsAnError) {
  FakeTransport agent(Unreachable);
  Result<Credentials> credentials = ContainerCredentialsProvider(PodIdentity("t"), agent).Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().message,
            "container credentials endpoint http://169.254.170.23/v1/credentials: "
            "connection refused");
}

TEST(CredentialsDocumentTest, RejectsIncompleteOrMalformedDocumentsWithoutQuotingThem) {
  const std::string secret(kSecret);
  struct Case {
    std::string body;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {"{\"SecretAccessKey\":\"" + secret + "\"", "src: the response is not a JSON object"},
           {"[1]", "src: the response is not a JSON object"},
           {"{\"SecretAccessKey\":\"" + secret + "\"}", "src: the response has no AccessKeyId"},
           {R"({"AccessKeyId":"A"})", "src: the response has no SecretAccessKey"},
           {R"({"Code":"AssumeRoleUnauthorizedAccess","AccessKeyId":"A"})",
            "src: the response's Code is AssumeRoleUnauthorizedAccess"},
           {"{\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"" + secret +
                "\",\"Expiration\":\"soon\"}",
            "src: the response's Expiration \"soon\" is not an RFC 3339 time"}}) {
    Result<Credentials> credentials = ParseCredentialsDocument(c.body, "src");
    ASSERT_FALSE(credentials.ok()) << c.body;
    EXPECT_EQ(credentials.error().message, c.error);
    ExpectNoSecrets(credentials.error().message);
  }
}

TEST(CredentialsDocumentTest, LongTermKeysHaveNoExpiration) {
  Result<Credentials> credentials =
      ParseCredentialsDocument(R"({"AccessKeyId":"A","SecretAccessKey":"S"})", "src");
  ASSERT_THAT(credentials, IsOk());
  EXPECT_FALSE(credentials->expiration.has_value());
}

}  // namespace
}  // namespace karpenter::aws::testing
