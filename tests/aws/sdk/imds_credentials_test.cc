// IMDSv2: the session token, its reuse and renewal, the role's credentials, the region, and the
// service's failures, against a fake metadata service.

#include "aws/sdk/imds_credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "aws/sdk/credentials_test_support.h"
#include "support/matchers.h"

namespace karpenter::aws::testing {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kRolesPath = "/latest/meta-data/iam/security-credentials/";

// A metadata service with one role, "node-role", that hands out session tokens "token-1",
// "token-2", … and accepts only the latest one.
class FakeImds {
 public:
  Result<HttpResponse> Handle(const HttpRequest& request) {
    if (request.method == "PUT" && request.path == "/latest/api/token") {
      if (HeaderValue(request.headers, "X-aws-ec2-metadata-token-ttl-seconds") != "21600") {
        return Respond(400, "");
      }
      return Respond(200, "token-" + std::to_string(++tokens_issued));
    }
    if (HeaderValue(request.headers, "X-aws-ec2-metadata-token") !=
        "token-" + std::to_string(tokens_issued)) {
      return Respond(401, "");
    }
    if (request.path == kRolesPath) {
      return role.empty() ? Respond(404, "Not Found") : Respond(200, role + "\n");
    }
    if (request.path == std::string(kRolesPath) + role) {
      return Respond(200, CredentialsJson("2026-05-01T18:00:00Z"));
    }
    if (request.path == "/latest/meta-data/placement/region") return Respond(200, "us-west-2");
    return Respond(404, "Not Found");
  }

  std::string role = "node-role";
  int tokens_issued = 0;
};

class ImdsTest : public CredentialsTest {
 protected:
  FakeImds imds_;
  FakeTransport transport_{[this](const HttpRequest& request) { return imds_.Handle(request); }};
};

TEST_F(ImdsTest, GetsTheRolesCredentialsWithASessionToken) {
  ImdsCredentialsProvider provider(ImdsEndpoint(), transport_, clock_);
  Result<Credentials> credentials = provider.Get();
  ASSERT_THAT(credentials, IsOk());
  ExpectTheSecrets(*credentials, "2026-05-01T18:00:00Z");

  const std::vector<HttpRequest> requests = transport_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].method, "PUT");
  EXPECT_EQ(requests[0].scheme, "http");
  EXPECT_EQ(requests[0].host, "169.254.169.254");
  EXPECT_EQ(requests[1].method, "GET");
  EXPECT_EQ(requests[1].path, kRolesPath);
  EXPECT_EQ(requests[2].path, std::string(kRolesPath) + "node-role");
  EXPECT_EQ(HeaderValue(requests[2].headers, "X-aws-ec2-metadata-token"), "token-1");
}

TEST_F(ImdsTest, ReusesTheTokenUntilNearItsExpiry) {
  ImdsClient client(ImdsEndpoint(), transport_, clock_);
  ASSERT_THAT(client.Region(), IsOk());
  clock_.Advance(std::chrono::hours(5));
  ASSERT_THAT(client.Region(), IsOk());
  EXPECT_EQ(imds_.tokens_issued, 1);
  clock_.Advance(std::chrono::minutes(59) + std::chrono::seconds(1));  // 60 s before 6 h
  Result<std::string> region = client.Region();
  ASSERT_THAT(region, IsOk());
  EXPECT_EQ(*region, "us-west-2");
  EXPECT_EQ(imds_.tokens_issued, 2);
}

TEST_F(ImdsTest, RejectedTokenIsRenewedOnce) {
  ImdsClient client(ImdsEndpoint(), transport_, clock_);
  ASSERT_THAT(client.Region(), IsOk());
  ++imds_.tokens_issued;  // the service restarted and forgot token-1
  Result<std::string> region = client.Region();
  ASSERT_THAT(region, IsOk());
  EXPECT_EQ(imds_.tokens_issued, 3);
}

TEST_F(ImdsTest, PersistentUnauthorizedIsAnError) {
  FakeTransport transport([](const HttpRequest& request) -> Result<HttpResponse> {
    return request.method == "PUT" ? Respond(200, "token") : Respond(401, "");
  });
  ImdsClient client(ImdsEndpoint(), transport, clock_);
  Result<std::string> region = client.Region();
  ASSERT_FALSE(region.ok());
  EXPECT_EQ(region.error().status, 401);
  EXPECT_EQ(region.error().message, "IMDS GET /latest/meta-data/placement/region: HTTP 401");
  EXPECT_EQ(transport.requests().size(), 4u);  // token, GET, new token, GET
}

TEST_F(ImdsTest, InstanceWithoutRoleIsNotConfigured) {
  imds_.role.clear();
  Result<Credentials> credentials =
      ImdsCredentialsProvider(ImdsEndpoint(), transport_, clock_).Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().status, 404);
  EXPECT_EQ(credentials.error().reason, kNotConfigured);
  EXPECT_EQ(credentials.error().message, "no IAM role is attached to this instance");
}

TEST_F(ImdsTest, TokenRefusedIsAnError) {
  FakeTransport transport(Always(403, "Forbidden"));
  Result<Credentials> credentials =
      ImdsCredentialsProvider(ImdsEndpoint(), transport, clock_).Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().status, 403);
  EXPECT_EQ(credentials.error().message, "IMDS PUT /latest/api/token: HTTP 403");
}

TEST_F(ImdsTest, UnreachableServiceIsAnError) {
  FakeTransport transport(Unreachable);
  Result<Credentials> credentials =
      ImdsCredentialsProvider(ImdsEndpoint{"http", "127.0.0.1:1338"}, transport, clock_).Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().message,
            "cannot reach IMDS at http://127.0.0.1:1338: connection refused");
}

TEST_F(ImdsTest, FailedCodeIsAnErrorWithoutSecrets) {
  FakeTransport transport([](const HttpRequest& request) -> Result<HttpResponse> {
    if (request.method == "PUT") return Respond(200, "token");
    if (request.path == kRolesPath) return Respond(200, "node-role");
    return Respond(200, R"({"Code":"Failed","SecretAccessKey":")" + std::string(kSecret) + "\"}");
  });
  Result<Credentials> credentials =
      ImdsCredentialsProvider(ImdsEndpoint(), transport, clock_).Get();
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.error().reason, "Failed");
  EXPECT_THAT(credentials.error().message, HasSubstr("IMDS credentials of role node-role"));
  ExpectNoSecrets(credentials.error().message);
}

TEST(ImdsEndpointTest, FromEnvironment) {
  Result<ImdsEndpoint> fallback = ImdsEndpointFromEnvironment(Environment());
  ASSERT_THAT(fallback, IsOk());
  EXPECT_EQ(fallback->scheme, "http");
  EXPECT_EQ(fallback->host, "169.254.169.254");

  Result<ImdsEndpoint> ipv6 = ImdsEndpointFromEnvironment(
      Environment(Variables{{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://[fd00:ec2::254]"}}));
  ASSERT_THAT(ipv6, IsOk());
  EXPECT_EQ(ipv6->host, "[fd00:ec2::254]");

  Result<ImdsEndpoint> disabled =
      ImdsEndpointFromEnvironment(Environment(Variables{{"AWS_EC2_METADATA_DISABLED", "True"}}));
  ASSERT_FALSE(disabled.ok());
  EXPECT_EQ(disabled.error().reason, kNotConfigured);

  Result<ImdsEndpoint> bad = ImdsEndpointFromEnvironment(
      Environment(Variables{{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "169.254.169.254"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("AWS_EC2_METADATA_SERVICE_ENDPOINT"));
}

}  // namespace
}  // namespace karpenter::aws::testing
