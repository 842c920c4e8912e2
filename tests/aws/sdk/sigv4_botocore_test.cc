// SigV4 byte for byte against botocore, the signer of the AWS CLI and boto3: each case is a request
// like those the SDK sends (EC2's Query protocol with filters and long parameter lists, SSM's
// JSON 1.1, SQS's JSON 1.0, an IAM GET, moto's endpoint), with and without a session token, and
// with spaces, unicode, '~', '+' and '=' in query strings. botocore_sign.py signs the same
// request with botocore's SigV4Auth at the same time; X-Amz-Date, X-Amz-Security-Token and
// Authorization must be identical.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "aws/sdk/sigv4.h"
#include "aws_test_tools.h"
#include "common/json.h"

namespace karpenter::aws {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// application/x-www-form-urlencoded as AWS's Query protocol sends it.
std::string FormBody(const Pairs& params) {
  std::string body;
  for (const auto& [name, value] : params) {
    if (!body.empty()) body.push_back('&');
    body.append(UriEncode(name, false)).append("=").append(UriEncode(value, false));
  }
  return body;
}

struct Case {
  std::string name;
  HttpRequest request;
  SigningScope scope;
  std::string session_token;
  // Non-empty when our signer is known to differ from botocore here: why.
  std::string known_difference;
};

// Test names, not bytes, in gtest's messages.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const std::string kFormType = "application/x-www-form-urlencoded; charset=utf-8";

TimePoint At(std::string_view rfc3339) { return *ParseTime(rfc3339); }

HttpRequest Post(std::string host, std::string body, HttpHeaders headers) {
  HttpRequest request;
  request.method = "POST";
  request.host = std::move(host);
  request.body = std::move(body);
  request.headers = std::move(headers);
  return request;
}

Case Ec2DescribeInstances() {
  const Pairs params = {{"Action", "DescribeInstances"},
                        {"Version", "2016-11-15"},
                        {"Filter.1.Name", "tag:karpenter.sh/nodepool"},
                        {"Filter.1.Value.1", "default"},
                        {"Filter.2.Name", "tag:karpenter.k8s.aws/ec2nodeclass"},
                        {"Filter.2.Value.1", "default"},
                        {"Filter.3.Name", "instance-state-name"},
                        {"Filter.3.Value.1", "pending"},
                        {"Filter.3.Value.2", "running"},
                        {"Filter.3.Value.3", "stopping"},
                        {"MaxResults", "500"}};
  return {"Ec2DescribeInstancesWithFilters",
          Post("ec2.us-west-2.amazonaws.com", FormBody(params), {{"Content-Type", kFormType}}),
          {"us-west-2", "ec2", At("2026-06-01T08:15:30Z")},
          "",
          ""};
}

Case Ec2RunInstances() {
  Pairs params = {{"Action", "RunInstances"},
                  {"Version", "2016-11-15"},
                  {"ImageId", "ami-0123456789abcdef0"},
                  {"InstanceType", "m5.large"},
                  {"MinCount", "1"},
                  {"MaxCount", "1"},
                  {"SubnetId", "subnet-0a1b2c3d4e5f67890"},
                  {"SecurityGroupId.1", "sg-0123456789abcdef0"},
                  {"IamInstanceProfile.Name", "karpenter-test_1234567890"},
                  {"MetadataOptions.HttpTokens", "required"},
                  {"MetadataOptions.HttpPutResponseHopLimit", "1"},
                  {"BlockDeviceMapping.1.DeviceName", "/dev/xvda"},
                  {"BlockDeviceMapping.1.Ebs.VolumeSize", "20"},
                  {"BlockDeviceMapping.1.Ebs.VolumeType", "gp3"},
                  {"BlockDeviceMapping.1.Ebs.Encrypted", "true"},
                  // Base64 user data: '+', '/' and '=' must be percent-encoded in the body.
                  {"UserData", "IyEvYmluL2Jhc2gKZWNobyAiaGVsbG8gd29ybGQiID4+IC90bXAvb3V0Cg=="}};
  for (int i = 1; i <= 12; ++i) {
    const std::string prefix = "TagSpecification.1.Tag." + std::to_string(i);
    params.emplace_back(prefix + ".Key", "karpenter.sh/key-" + std::to_string(i));
    params.emplace_back(prefix + ".Value", "value " + std::to_string(i) + " ~+=");
  }
  params.emplace_back("TagSpecification.1.ResourceType", "instance");
  return {"Ec2RunInstancesManyParamsWithToken",
          Post("ec2.us-west-2.amazonaws.com", FormBody(params), {{"Content-Type", kFormType}}),
          {"us-west-2", "ec2", At("2026-06-01T23:59:59Z")},
          "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLXdlc3QtMiJHMEUCIQ+example/token==",
          ""};
}

Case Ec2CreateFleet() {
  Pairs params = {{"Action", "CreateFleet"},
                  {"Version", "2016-11-15"},
                  {"Type", "instant"},
                  {"TargetCapacitySpecification.TotalTargetCapacity", "1"},
                  {"TargetCapacitySpecification.DefaultTargetCapacityType", "spot"},
                  {"SpotOptions.AllocationStrategy", "price-capacity-optimized"},
                  {"ClientToken", "9f7c1e2a-3b4d-4c5e-8f90-a1b2c3d4e5f6"}};
  const std::vector<std::string> types = {"m5.large", "m5a.large", "m6i.large", "c5.xlarge",
                                          "r5.large"};
  const std::vector<std::string> subnets = {"subnet-aaa", "subnet-bbb", "subnet-ccc"};
  int override_index = 0;
  for (const auto& type : types) {
    for (const auto& subnet : subnets) {
      const std::string prefix =
          "LaunchTemplateConfigs.1.Overrides." + std::to_string(++override_index);
      params.emplace_back(prefix + ".InstanceType", type);
      params.emplace_back(prefix + ".SubnetId", subnet);
      params.emplace_back(prefix + ".ImageId", "ami-0123456789abcdef0");
    }
  }
  params.emplace_back("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName",
                      "karpenter.k8s.aws/12345678901234567890");
  params.emplace_back("LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version", "$Latest");
  return {"Ec2CreateFleetInstant",
          Post("ec2.us-west-2.amazonaws.com", FormBody(params), {{"Content-Type", kFormType}}),
          {"us-west-2", "ec2", At("2026-02-28T00:00:00Z")},
          "",
          ""};
}

Case SsmGetParameter() {
  return {"SsmGetParameterJson11WithToken",
          Post("ssm.us-west-2.amazonaws.com",
               R"({"Name":"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/)"
               R"(standard/recommended/image_id"})",
               {{"Content-Type", "application/x-amz-json-1.1"},
                {"X-Amz-Target", "AmazonSSM.GetParameter"}}),
          {"us-west-2", "ssm", At("2026-06-01T08:15:30Z")},
          "FwoGZXIvYXdzEBYaDHexampletoken+/=",
          ""};
}

Case SqsReceiveMessage() {
  return {"SqsReceiveMessageJson10",
          Post("sqs.us-west-2.amazonaws.com",
               R"({"QueueUrl":"https://sqs.us-west-2.amazonaws.com/123456789012/karpenter-test",)"
               R"("MaxNumberOfMessages":10,"VisibilityTimeout":20,"WaitTimeSeconds":20,)"
               R"("MessageSystemAttributeNames":["SentTimestamp"]})",
               {{"Content-Type", "application/x-amz-json-1.0"},
                {"X-Amz-Target", "AmazonSQS.ReceiveMessage"}}),
          {"us-west-2", "sqs", At("2026-06-01T08:15:30Z")},
          "",
          ""};
}

Case IamGetInstanceProfile() {
  HttpRequest request;  // GET with the parameters in the query string
  request.host = "iam.amazonaws.com";
  request.query = {{"Version", "2010-05-08"},
                   {"Action", "GetInstanceProfile"},
                   {"InstanceProfileName", "karpenter-test_9876543210"}};
  return {
      "IamGetWithQueryString", request, {"us-east-1", "iam", At("2026-06-01T08:15:30Z")}, "", ""};
}

Case QuerySpecialCharacters() {
  HttpRequest request;
  request.host = "example.us-west-2.amazonaws.com";
  request.query = {{"space name", "a b  c"},
                   {"unicode", "\xE1\x88\xB4 caf\xC3\xA9"},
                   {"tilde~", "~home"},
                   {"plus", "1+1=2"},
                   {"equals", "a=b=c"},
                   {"slash", "/a/b/"},
                   {"amp", "x&y"},
                   {"star", "*"},
                   {"empty", ""},
                   {"b", "2"},
                   {"a", "z"},
                   {"a", "y"},
                   {"A", "upper"},
                   {"percent", "100%"}};
  return {"QueryWithSpacesUnicodeTildePlusEquals",
          request,
          {"us-west-2", "execute-api", At("2026-06-01T08:15:30Z")},
          "token with spaces",
          ""};
}

Case MotoEndpoint() {
  // Against moto: plain HTTP on a loopback port, which the Host header and signature carry.
  const Pairs params = {{"Action", "DescribeSubnets"},
                        {"Version", "2016-11-15"},
                        {"Filter.1.Name", "tag:karpenter.sh/discovery"},
                        {"Filter.1.Value.1", "karpenter-test"}};
  HttpRequest request = Post("127.0.0.1:45678", FormBody(params), {{"Content-Type", kFormType}});
  request.scheme = "http";
  return {"MotoEndpointWithPortAndToken",
          request,
          {"us-west-2", "ec2", At("2026-06-01T08:15:30Z")},
          "moto-session-token",
          ""};
}

Case HeaderWhitespace() {
  HttpRequest request = Post("sqs.us-west-2.amazonaws.com", "{}",
                             {{"Content-Type", "application/x-amz-json-1.0"},
                              {"X-Amz-Target", "  AmazonSQS.ListQueues  "},
                              {"X-Custom-Header", "a   b \t c"}});
  return {"HeaderValuesWithRunsOfSpaces",
          request,
          {"us-west-2", "sqs", At("2026-06-01T08:15:30Z")},
          "",
          ""};
}

Case RestPath() {
  HttpRequest request;  // EKS DescribeCluster (REST-JSON)
  request.host = "eks.us-west-2.amazonaws.com";
  request.path = "/clusters/karpenter-test";
  return {"RestPathEksDescribeCluster",
          request,
          {"us-west-2", "eks", At("2026-06-01T08:15:30Z")},
          "",
          ""};
}

Case PathSpecialCharacters() {
  HttpRequest request;
  request.host = "example.us-west-2.amazonaws.com";
  request.path = "/a b/c+d=e~f/\xE1\x88\xB4";
  return {"PathWithSpacesUnicodePlusEquals",
          request,
          {"us-west-2", "execute-api", At("2026-06-01T08:15:30Z")},
          "",
          "botocore encodes the path twice (once on the wire, once more in the canonical request), "
          "as SigV4 asks of every service but S3; sigv4.cc encodes it once"};
}

std::vector<Case> Cases() {
  return {Ec2DescribeInstances(),   Ec2RunInstances(),
          Ec2CreateFleet(),         SsmGetParameter(),
          SqsReceiveMessage(),      IamGetInstanceProfile(),
          QuerySpecialCharacters(), MotoEndpoint(),
          HeaderWhitespace(),       RestPath(),
          PathSpecialCharacters()};
}

const Credentials kKeys{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "",
                        std::nullopt};

// The request before signing as botocore_sign.py reads it.
Json ToJson(const Case& c, const std::string& amz_date) {
  Json query = Json::array();
  for (const auto& [name, value] : c.request.query) query.push_back({name, value});
  Json headers = Json::array();
  for (const auto& [name, value] : c.request.headers) headers.push_back({name, value});
  return {{"method", c.request.method},
          {"scheme", c.request.scheme},
          {"host", c.request.host},
          {"path", c.request.path},
          {"query", query},
          {"headers", headers},
          {"body", c.request.body},
          {"region", c.scope.region},
          {"service", c.scope.service},
          {"time", amz_date},
          {"access_key_id", kKeys.access_key_id},
          {"secret_access_key", kKeys.secret_access_key},
          {"session_token", c.session_token}};
}

Json SignWithBotocore(const Json& request) {
  std::string path = ::testing::TempDir() + "/botocore_request_XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  std::ofstream(path) << request.dump();
  const std::string command = testing::AwsTestToolsDir() + "/venv/bin/python " +
                              KARPENTER_AWS_SDK_TESTS + "/botocore_sign.py " + path;
  std::string out;
  try {
    out = testing::RunCommand(command);
  } catch (...) {
    std::remove(path.c_str());
    throw;
  }
  std::remove(path.c_str());
  return Json::parse(out);
}

class SigV4BotocoreTest : public ::testing::TestWithParam<Case> {};

TEST_P(SigV4BotocoreTest, SameHeadersAsBotocore) {
  const Case& c = GetParam();
  HttpRequest ours = c.request;
  Credentials credentials = kKeys;
  credentials.session_token = c.session_token;
  Sign(ours, credentials, c.scope);
  const std::string amz_date(HeaderValue(ours.headers, "X-Amz-Date"));
  ASSERT_EQ(amz_date.size(), 16u);

  const Json theirs = SignWithBotocore(ToJson(c, amz_date));
  ASSERT_EQ(theirs.at("X-Amz-Date"), amz_date);
  if (c.session_token.empty()) {
    EXPECT_TRUE(theirs.at("X-Amz-Security-Token").is_null());
    EXPECT_EQ(HeaderValue(ours.headers, "X-Amz-Security-Token"), "");
  } else {
    EXPECT_EQ(theirs.at("X-Amz-Security-Token"), c.session_token);
    EXPECT_EQ(HeaderValue(ours.headers, "X-Amz-Security-Token"), c.session_token);
  }
  const std::string their_authorization = theirs.at("Authorization");
  const std::string their_canonical = theirs.at("canonical_request");
  HttpRequest unsigned_request = ours;  // what was signed: all but the Authorization header
  std::erase_if(unsigned_request.headers,
                [](const auto& header) { return header.first == "Authorization"; });
  const std::string our_canonical = CanonicalRequest(unsigned_request);
  if (c.known_difference.empty()) {
    EXPECT_EQ(HeaderValue(ours.headers, "Authorization"), their_authorization);
    EXPECT_EQ(our_canonical, their_canonical);
  } else {
    // Still differs; when sigv4.cc changes, this says to drop known_difference.
    EXPECT_NE(HeaderValue(ours.headers, "Authorization"), their_authorization)
        << c.name << " now agrees with botocore; clear its known_difference";
    std::printf("%s: known difference: %s\n  ours:     %s\n  botocore: %s\n", c.name.c_str(),
                c.known_difference.c_str(), our_canonical.c_str(), their_canonical.c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Requests, SigV4BotocoreTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace karpenter::aws
