// Endpoint resolution for each partition and service we call, and the AWS_ENDPOINT_URL overrides.

#include "aws/sdk/endpoints.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

Environment Env(std::map<std::string, std::string, std::less<>> variables) {
  return Environment(std::move(variables));
}

using ::testing::HasSubstr;

Endpoint Resolve(std::string_view service, std::string_view region, const Environment& env = {}) {
  Result<Endpoint> endpoint = ResolveEndpoint(service, region, env);
  EXPECT_THAT(endpoint, IsOk());
  return endpoint.ok() ? *endpoint : Endpoint{};
}

void ExpectEndpoint(const Endpoint& endpoint, std::string_view host, std::string_view region,
                    std::string_view name) {
  EXPECT_EQ(endpoint.scheme, "https");
  EXPECT_EQ(endpoint.host, host);
  EXPECT_EQ(endpoint.path, "");
  EXPECT_EQ(endpoint.signing_region, region);
  EXPECT_EQ(endpoint.signing_name, name);
}

TEST(EndpointsTest, RegionalServicesInTheAwsPartition) {
  ExpectEndpoint(Resolve("ec2", "us-west-2"), "ec2.us-west-2.amazonaws.com", "us-west-2", "ec2");
  ExpectEndpoint(Resolve("ssm", "eu-west-1"), "ssm.eu-west-1.amazonaws.com", "eu-west-1", "ssm");
  ExpectEndpoint(Resolve("sqs", "ap-southeast-2"), "sqs.ap-southeast-2.amazonaws.com",
                 "ap-southeast-2", "sqs");
  ExpectEndpoint(Resolve("sts", "us-east-1"), "sts.us-east-1.amazonaws.com", "us-east-1", "sts");
  ExpectEndpoint(Resolve("eks", "ca-central-1"), "eks.ca-central-1.amazonaws.com", "ca-central-1",
                 "eks");
  ExpectEndpoint(Resolve("events", "eu-north-1"), "events.eu-north-1.amazonaws.com", "eu-north-1",
                 "events");
}

TEST(EndpointsTest, ChinaUsesItsOwnSuffix) {
  ExpectEndpoint(Resolve("ec2", "cn-north-1"), "ec2.cn-north-1.amazonaws.com.cn", "cn-north-1",
                 "ec2");
  ExpectEndpoint(Resolve("sts", "cn-northwest-1"), "sts.cn-northwest-1.amazonaws.com.cn",
                 "cn-northwest-1", "sts");
  ExpectEndpoint(Resolve("iam", "cn-northwest-1"), "iam.cn-north-1.amazonaws.com.cn", "cn-north-1",
                 "iam");
  ExpectEndpoint(Resolve("pricing", "cn-north-1"), "api.pricing.cn-northwest-1.amazonaws.com.cn",
                 "cn-northwest-1", "pricing");
}

TEST(EndpointsTest, GovCloud) {
  ExpectEndpoint(Resolve("ec2", "us-gov-east-1"), "ec2.us-gov-east-1.amazonaws.com",
                 "us-gov-east-1", "ec2");
  ExpectEndpoint(Resolve("iam", "us-gov-east-1"), "iam.us-gov.amazonaws.com", "us-gov-west-1",
                 "iam");
  Result<Endpoint> pricing = ResolveEndpoint("pricing", "us-gov-west-1", {});
  ASSERT_FALSE(pricing.ok());
  EXPECT_THAT(pricing.error().message, HasSubstr("aws-us-gov"));
}

TEST(EndpointsTest, IamIsGlobalAndSignedForUsEast1) {
  ExpectEndpoint(Resolve("iam", "eu-central-1"), "iam.amazonaws.com", "us-east-1", "iam");
}

TEST(EndpointsTest, PricingAnswersOnlyInItsRegions) {
  ExpectEndpoint(Resolve("pricing", "eu-central-1"), "api.pricing.eu-central-1.amazonaws.com",
                 "eu-central-1", "pricing");
  ExpectEndpoint(Resolve("pricing", "ap-south-1"), "api.pricing.ap-south-1.amazonaws.com",
                 "ap-south-1", "pricing");
  ExpectEndpoint(Resolve("pricing", "us-west-2"), "api.pricing.us-east-1.amazonaws.com",
                 "us-east-1", "pricing");
}

TEST(EndpointsTest, UnknownServicesAndInvalidRegionsAreErrors) {
  Result<Endpoint> s3 = ResolveEndpoint("s3", "us-east-1", {});
  ASSERT_FALSE(s3.ok());
  EXPECT_THAT(s3.error().message, HasSubstr("unknown AWS service \"s3\""));
  for (const std::string_view region :
       {"", "useast1", "us-east", "US-EAST-1", "us-east-1.evil.com/", "u-east-1"}) {
    Result<Endpoint> endpoint = ResolveEndpoint("ec2", region, {});
    ASSERT_FALSE(endpoint.ok()) << region;
    std::string quoted = "\"";  // built by appending: gcc 12 -O3 flags "a" + s + "b" (-Wrestrict)
    quoted.append(region).append("\"");
    EXPECT_THAT(endpoint.error().message, HasSubstr(quoted));
  }
  Result<Endpoint> iso = ResolveEndpoint("ec2", "us-iso-east-1", {});
  ASSERT_FALSE(iso.ok());
  EXPECT_THAT(iso.error().message, HasSubstr("us-iso-east-1"));
}

TEST(EndpointsTest, TheServiceSpecificOverrideBeatsTheGlobalOne) {
  const Environment env({{"AWS_ENDPOINT_URL", "http://localhost:5000"},
                         {"AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:4566/"}});
  const Endpoint ec2 = Resolve("ec2", "eu-west-1", env);
  EXPECT_EQ(ec2.scheme, "http");
  EXPECT_EQ(ec2.host, "127.0.0.1:4566");
  EXPECT_EQ(ec2.path, "");
  EXPECT_EQ(ec2.signing_region, "eu-west-1");  // the region's, not the override's
  EXPECT_EQ(ec2.signing_name, "ec2");
  const Endpoint ssm = Resolve("ssm", "eu-west-1", env);
  EXPECT_EQ(ssm.host, "localhost:5000");
  const Endpoint pricing =
      Resolve("pricing", "eu-west-1", Env({{"AWS_ENDPOINT_URL_PRICING", "https://p:1"}}));
  EXPECT_EQ(pricing.host, "p:1");
  EXPECT_EQ(pricing.signing_region, "us-east-1");
}

TEST(EndpointsTest, AnOverrideKeepsItsBasePath) {
  const Endpoint iam =
      Resolve("iam", "us-east-1", Env({{"AWS_ENDPOINT_URL_IAM", "https://proxy/aws/iam/"}}));
  EXPECT_EQ(iam.scheme, "https");
  EXPECT_EQ(iam.host, "proxy");
  EXPECT_EQ(iam.path, "/aws/iam");
}

TEST(EndpointsTest, OverridesCanBeIgnored) {
  const Environment env({{"AWS_ENDPOINT_URL", "http://localhost:5000"},
                         {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "TRUE"}});
  ExpectEndpoint(Resolve("sqs", "us-east-2", env), "sqs.us-east-2.amazonaws.com", "us-east-2",
                 "sqs");
}

TEST(EndpointsTest, AMalformedOverrideNamesItsVariable) {
  for (const std::string_view url : {"localhost:5000", "ftp://host", "http://", "http://h/?a=b"}) {
    Result<Endpoint> endpoint =
        ResolveEndpoint("sts", "us-east-1", Env({{"AWS_ENDPOINT_URL_STS", std::string(url)}}));
    ASSERT_FALSE(endpoint.ok()) << url;
    EXPECT_THAT(endpoint.error().message, HasSubstr("AWS_ENDPOINT_URL_STS")) << url;
  }
}

}  // namespace
}  // namespace karpenter::aws
