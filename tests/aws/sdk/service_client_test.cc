// ServiceClient: addressing, signing every attempt afresh, error parsing and retries, against a
// scripted transport and once through libcurl to a loopback server that checks the signature.

#include "aws/sdk/service_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include "aws/sdk/curl_transport.h"
#include "aws/sdk/loopback_server.h"
#include "aws/sdk/query_protocol.h"
#include "aws/sdk/scripted_transport.h"
#include "aws/sdk/sigv4.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
constexpr char kToken[] = "SESSIONTOKENvalue";

const char* const kEc2Throttled = R"(<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message></Error></Errors><RequestID>req-1</RequestID></Response>)";
const char* const kEc2Invalid = R"(<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>InvalidParameterValue</Code><Message>Value (x) for parameter instanceType is invalid.</Message></Error></Errors><RequestID>req-2</RequestID></Response>)";
const char* const kEc2Ok =
    R"(<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>req-3</requestId><reservationSet/></DescribeInstancesResponse>)";

Credentials TestCredentials() { return {"AKIDEXAMPLE", kSecret, kToken, std::nullopt}; }

class ServiceClientTest : public ::testing::Test {
 protected:
  ServiceClient Client(Endpoint endpoint = {"https", "ec2.us-east-1.amazonaws.com", "", "us-east-1",
                                            "ec2"},
                       int max_attempts = 3) {
    RetryPolicy retry(
        max_attempts, [] { return 0.5; }, [this](milliseconds delay) { slept_.push_back(delay); });
    return ServiceClient("ec2", std::move(endpoint), credentials_, transport_, clock_,
                         std::move(retry), &ParseQueryError);
  }

  static HttpRequest DescribeInstances() {
    return QueryRequest("DescribeInstances", "2016-11-15").ToHttpRequest();
  }

  VirtualClock clock_{*ParseTime("2024-05-01T12:00:00Z")};
  testing::FixedCredentials credentials_{TestCredentials()};
  testing::ScriptedTransport transport_;
  std::vector<milliseconds> slept_;
};

TEST_F(ServiceClientTest, ThrottledTwiceThenSucceedsOnTheThirdAttempt) {
  transport_.Then(503, kEc2Throttled).Then(400, kEc2Throttled).Then(200, kEc2Ok);
  ServiceClient client = Client();

  Result<HttpResponse> response = client.Call("DescribeInstances", DescribeInstances());

  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->body, kEc2Ok);
  EXPECT_EQ(transport_.sent().size(), 3u);
  EXPECT_EQ(slept_, (std::vector<milliseconds>{milliseconds(500), milliseconds(1000)}));
}

TEST_F(ServiceClientTest, AClientErrorIsReturnedWithoutRetrying) {
  transport_.Then(400, kEc2Invalid);
  ServiceClient client = Client();

  Result<HttpResponse> response = client.Call("RunInstances", DescribeInstances());

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().status, 400);
  EXPECT_EQ(response.error().reason, "InvalidParameterValue");
  EXPECT_EQ(response.error().message,
            "InvalidParameterValue: Value (x) for parameter instanceType is invalid. "
            "(ec2 RunInstances, request req-2) (after 1 attempt)");
  EXPECT_EQ(transport_.sent().size(), 1u);
  EXPECT_TRUE(slept_.empty());
}

TEST_F(ServiceClientTest, GivesUpAfterTheLastAttemptAndSaysHowMany) {
  transport_.Then(Error{"POST https://ec2.us-east-1.amazonaws.com/: refused", 0, "ConnectionError"})
      .Then(500, "<html>oops</html>")
      .Then(503, kEc2Throttled);
  ServiceClient client = Client();

  Result<HttpResponse> response = client.Call("DescribeInstances", DescribeInstances());

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().reason, "RequestLimitExceeded");
  EXPECT_THAT(response.error().message, HasSubstr("(after 3 attempts)"));
  EXPECT_EQ(transport_.sent().size(), 3u);
  EXPECT_EQ(slept_.size(), 2u);
}

TEST_F(ServiceClientTest, TransportErrorsNameTheOperation) {
  transport_.Then(
      Error{"POST https://ec2.us-east-1.amazonaws.com/: timed out", 0, "RequestTimeout"});
  ServiceClient client =
      Client(Endpoint{"https", "ec2.us-east-1.amazonaws.com", "", "us-east-1", "ec2"},
             /*max_attempts=*/1);

  Result<HttpResponse> response = client.Call("DescribeInstances", DescribeInstances());

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().reason, "RequestTimeout");
  EXPECT_THAT(response.error().message, StartsWith("ec2 DescribeInstances: POST https://ec2."));
}

TEST_F(ServiceClientTest, EachAttemptIsAddressedAndSignedAfresh) {
  transport_.Then(500, "").Then(500, "").Then(200, kEc2Ok);
  transport_.OnSend([this] { clock_.Advance(std::chrono::seconds(5)); });
  ServiceClient client = Client();

  ASSERT_THAT(client.Call("DescribeInstances", DescribeInstances()), IsOk());

  std::set<std::string> dates;
  for (const HttpRequest& sent : transport_.sent()) {
    EXPECT_EQ(sent.scheme, "https");
    EXPECT_EQ(sent.host, "ec2.us-east-1.amazonaws.com");
    EXPECT_EQ(sent.path, "/");
    EXPECT_EQ(HeaderValue(sent.headers, "X-Amz-Security-Token"), kToken);
    // One signature per attempt, not a pile of them from earlier attempts.
    EXPECT_EQ(std::count_if(sent.headers.begin(), sent.headers.end(),
                            [](const auto& header) { return header.first == "Authorization"; }),
              1);
    EXPECT_THAT(std::string(HeaderValue(sent.headers, "Authorization")),
                StartsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240501/us-east-1/ec2/"));
    dates.insert(std::string(HeaderValue(sent.headers, "X-Amz-Date")));
  }
  EXPECT_EQ(dates,
            (std::set<std::string>{"20240501T120000Z", "20240501T120005Z", "20240501T120010Z"}));
}

TEST_F(ServiceClientTest, AnEndpointBasePathPrefixesTheRequestPath) {
  transport_.Then(200, kEc2Ok);
  ServiceClient client = Client(Endpoint{"http", "localhost:4566", "/aws", "eu-west-1", "ec2"});

  ASSERT_THAT(client.Call("DescribeInstances", DescribeInstances()), IsOk());

  ASSERT_EQ(transport_.sent().size(), 1u);
  EXPECT_EQ(transport_.sent()[0].scheme, "http");
  EXPECT_EQ(transport_.sent()[0].host, "localhost:4566");
  EXPECT_EQ(transport_.sent()[0].path, "/aws/");
  EXPECT_THAT(std::string(HeaderValue(transport_.sent()[0].headers, "Authorization")),
              HasSubstr("/eu-west-1/ec2/aws4_request"));
}

TEST_F(ServiceClientTest, ACredentialsFailureStopsTheCallBeforeSending) {
  testing::FixedCredentials broken(Error{"no credentials in the chain"});
  ServiceClient client(
      "ec2", {"https", "ec2.us-east-1.amazonaws.com", "", "us-east-1", "ec2"}, broken, transport_,
      clock_,
      RetryPolicy(
          3, [] { return 0.5; }, [this](milliseconds delay) { slept_.push_back(delay); }),
      &ParseQueryError);

  Result<HttpResponse> response = client.Call("DescribeInstances", DescribeInstances());

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().message,
            "ec2 DescribeInstances: credentials: no credentials in the chain");
  EXPECT_TRUE(transport_.sent().empty());
  EXPECT_TRUE(slept_.empty());
}

TEST_F(ServiceClientTest, ErrorsNeverCarrySecrets) {
  transport_.Then(403, kEc2Invalid).Then(500, "").Then(500, "");
  ServiceClient client = Client();
  for (int i = 0; i < 2; ++i) {
    Result<HttpResponse> response = client.Call("DescribeInstances", DescribeInstances());
    ASSERT_FALSE(response.ok());
    EXPECT_THAT(response.error().message, Not(HasSubstr(kSecret)));
    EXPECT_THAT(response.error().message, Not(HasSubstr(kToken)));
  }
}

// ----- through libcurl to a loopback server

// The parts of "AWS4-HMAC-SHA256 Credential=…, SignedHeaders=a;b, Signature=…" a server needs.
struct Authorization {
  std::vector<std::string> signed_headers;
  std::string signature;
};

Authorization ParseAuthorization(const std::string& header) {
  Authorization parsed;
  const size_t names = header.find("SignedHeaders=") + 14;
  std::stringstream list(header.substr(names, header.find(',', names) - names));
  for (std::string name; std::getline(list, name, ';');) parsed.signed_headers.push_back(name);
  parsed.signature = header.substr(header.find("Signature=") + 10);
  return parsed;
}

TEST_F(ServiceClientTest, ThroughCurlTheServerCanVerifyTheSignatureOfWhatItReceived) {
  testing::LoopbackServer server;
  std::mutex mutex;
  std::vector<std::string> verdicts;  // one per request: "ok" or what was wrong
  std::vector<std::string> bodies;
  const auto verify = [&](const httplib::Request& request, httplib::Response& response) {
    // Rebuild the request from what arrived, keeping only the headers the client signed.
    HttpRequest received;
    received.method = request.method;
    received.host = request.get_header_value("Host");
    received.path = request.path;
    // httplib puts a form body's fields among the params too; only a bodiless request has a query.
    if (request.body.empty()) {
      for (const auto& [name, value] : request.params) received.query.emplace_back(name, value);
    }
    received.body = request.body;
    const std::string authorization = request.get_header_value("Authorization");
    const Authorization parsed = ParseAuthorization(authorization);
    for (const std::string& name : parsed.signed_headers) {
      received.headers.emplace_back(name, request.get_header_value(name));
    }
    const std::string expected =
        Signature(received, TestCredentials(), {"us-east-1", "ec2", clock_.Now()});
    const std::lock_guard<std::mutex> lock(mutex);
    verdicts.push_back(authorization.empty()          ? "no Authorization"
                       : parsed.signature == expected ? "ok"
                                                      : "signature mismatch: " + authorization);
    bodies.push_back(request.body);
    response.set_content(kEc2Ok, "text/xml");
  };
  server->Post("/", verify);
  server->Get(R"(/.*)", verify);
  server.Start();
  CurlTransport curl;
  ServiceClient client("ec2", {"http", server.host(), "", "us-east-1", "ec2"}, credentials_, curl,
                       clock_,
                       RetryPolicy(
                           1, [] { return 0.5; }, [](milliseconds) {}),
                       &ParseQueryError);

  QueryRequest describe("DescribeInstances", "2016-11-15");
  describe.AddList("InstanceId", {"i-0123456789abcdef0"});
  Result<XmlDocument> document = CallQuery(client, describe);
  ASSERT_THAT(document, IsOk());
  EXPECT_EQ(document->root().Text("requestId"), "req-3");
  HttpRequest odd;  // a path and query that need encoding, signed and sent alike
  odd.path = "/a b/c";
  odd.query = {{"filter", "name = x/y"}};
  ASSERT_THAT(client.Call("Odd", odd), IsOk());

  const std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(verdicts, (std::vector<std::string>{"ok", "ok"}));
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_EQ(bodies[0],
            "Action=DescribeInstances&Version=2016-11-15&InstanceId.1=i-0123456789abcdef0");
}

}  // namespace
}  // namespace karpenter::aws
