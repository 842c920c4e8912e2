// CurlTransport against a loopback server: what goes on the wire (method, encoded path and query,
// headers, body), what comes back, connection reuse, and failures as Errors.

#include "aws/sdk/curl_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "aws/sdk/loopback_server.h"
#include "support/matchers.h"
#include "support/self_signed.h"

namespace karpenter::aws {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

// What the server saw of one request. Handlers run on the server's threads, hence the lock.
struct Seen {
  std::string method;
  std::string target;  // the raw request target: encoded path and query
  std::string body;
  std::string custom_header;
  bool expect_header = false;
  int remote_port = 0;
};

class Recorder {
 public:
  void Record(const httplib::Request& request) {
    const std::lock_guard<std::mutex> lock(mutex_);
    seen_.push_back({request.method, request.target, request.body,
                     request.get_header_value("X-Custom"), request.has_header("Expect"),
                     request.remote_port});
  }
  std::vector<Seen> seen() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }

 private:
  std::mutex mutex_;
  std::vector<Seen> seen_;
};

class CurlTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto handler = [this](const httplib::Request& request, httplib::Response& response) {
      recorder_.Record(request);
      response.status = 201;
      response.set_header("X-Reply", "yes");
      response.set_content("answer to " + request.method, "text/plain");
    };
    server_->set_payload_max_length(size_t{8} << 20);  // the large-body test sends 2 MiB
    // Registered first: the catch-all routes below would match it too.
    server_->Get("/slow", [](const httplib::Request&, httplib::Response& response) {
      std::this_thread::sleep_for(milliseconds(300));
      response.set_content("late", "text/plain");
    });
    const std::string any = R"(/.*)";
    server_->Get(any, handler);
    server_->Post(any, handler);
    server_->Put(any, handler);
    server_->Delete(any, handler);
    server_.Start();
  }

  HttpRequest Request(std::string method, std::string path) const {
    HttpRequest request;
    request.method = std::move(method);
    request.scheme = "http";
    request.host = server_.host();
    request.path = std::move(path);
    return request;
  }

  testing::LoopbackServer server_;
  Recorder recorder_;
};

TEST_F(CurlTransportTest, SendsMethodHeadersAndBodyAndCollectsTheResponse) {
  CurlTransport transport;
  HttpRequest request = Request("POST", "/items");
  request.headers = {{"X-Custom", "value 1"}, {"Content-Type", "application/json"}};
  request.body = R"({"a":1})";

  Result<HttpResponse> response = transport.Send(request);

  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(HeaderValue(response->headers, "x-reply"), "yes");
  EXPECT_EQ(response->body, "answer to POST");
  const std::vector<Seen> seen = recorder_.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].custom_header, "value 1");
  EXPECT_EQ(seen[0].body, R"({"a":1})");
}

TEST_F(CurlTransportTest, SendsEachMethod) {
  CurlTransport transport;
  for (const std::string method : {"GET", "PUT", "DELETE", "POST"}) {
    Result<HttpResponse> response = transport.Send(Request(method, "/m"));
    ASSERT_THAT(response, IsOk()) << method << ": " << response.error().message;
    EXPECT_EQ(response->body, "answer to " + method);
  }
  const std::vector<Seen> seen = recorder_.seen();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[1].method, "PUT");
  EXPECT_EQ(seen[2].method, "DELETE");
  EXPECT_EQ(seen[3].method, "POST");
}

TEST_F(CurlTransportTest, EncodesPathAndQueryAsSigV4CanonicalizesThem) {
  CurlTransport transport;
  HttpRequest request = Request("GET", "/a b/c~d");
  request.query = {{"name", "a b/c"}, {"plus+", "x*y"}};

  ASSERT_THAT(transport.Send(request), IsOk());

  const std::vector<Seen> seen = recorder_.seen();
  ASSERT_EQ(seen.size(), 1u);
  // Spaces as %20 (never '+'), '/' kept in the path but encoded in the query, '~' left alone.
  EXPECT_EQ(seen[0].target, "/a%20b/c~d?name=a%20b%2Fc&plus%2B=x%2Ay");
}

TEST_F(CurlTransportTest, ReusesTheConnectionForConsecutiveRequests) {
  CurlTransport transport;
  ASSERT_THAT(transport.Send(Request("GET", "/one")), IsOk());
  ASSERT_THAT(transport.Send(Request("POST", "/two")), IsOk());

  const std::vector<Seen> seen = recorder_.seen();
  ASSERT_EQ(seen.size(), 2u);
  // One connection: the server saw both requests come from the same client port.
  EXPECT_EQ(seen[0].remote_port, seen[1].remote_port);
}

TEST_F(CurlTransportTest, DoesNotAskForContinueBeforeALargeBody) {
  CurlTransport transport;
  HttpRequest request = Request("POST", "/large");
  request.body.assign(2 << 20, 'x');  // above libcurl's threshold for Expect: 100-continue
  // httplib caps form bodies (libcurl's default type for a POST) at 8 KiB.
  request.headers = {{"Content-Type", "application/octet-stream"}};

  Result<HttpResponse> response = transport.Send(request);

  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 201) << response->body;
  const std::vector<Seen> seen = recorder_.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_FALSE(seen[0].expect_header);
  EXPECT_EQ(seen[0].body.size(), request.body.size());
}

TEST_F(CurlTransportTest, ATimeoutIsARequestTimeoutError) {
  CurlTransport transport(CurlTransportOptions{milliseconds(1000), milliseconds(50)});

  Result<HttpResponse> response = transport.Send(Request("GET", "/slow"));

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().status, 0);
  EXPECT_EQ(response.error().reason, "RequestTimeout");
  EXPECT_THAT(response.error().message, HasSubstr("GET http://" + server_.host() + "/slow: "));
}

TEST(CurlTransportFailureTest, ARefusedConnectionIsAConnectionError) {
  std::string host;
  {
    testing::LoopbackServer closed;  // started and stopped: nothing listens on its port now
    closed.Start();
    host = closed.host();
  }
  CurlTransport transport(CurlTransportOptions{milliseconds(500), milliseconds(500)});
  HttpRequest request;
  request.scheme = "http";
  request.host = host;

  Result<HttpResponse> response = transport.Send(request);

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().status, 0);
  EXPECT_EQ(response.error().reason, "ConnectionError");
  EXPECT_THAT(response.error().message, HasSubstr(host));
}

// TLS verification is on: an endpoint whose certificate chains to no trusted CA (here a
// self-signed one, as a man in the middle would present) is refused before a request is sent, with
// an error naming the endpoint and the certificate as the reason.
TEST(CurlTransportFailureTest, AnUntrustedCertificateIsRefused) {
  const support::SelfSigned self_signed = support::MakeSelfSigned("localhost");
  const std::string cert_path = ::testing::TempDir() + "untrusted-endpoint.crt";
  const std::string key_path = ::testing::TempDir() + "untrusted-endpoint.key";
  std::ofstream(cert_path) << self_signed.certificate_pem;
  std::ofstream(key_path) << self_signed.key_pem;
  httplib::SSLServer server(cert_path.c_str(), key_path.c_str());
  ASSERT_TRUE(server.is_valid());
  std::atomic<int> answered{0};
  server.Get("/", [&answered](const httplib::Request&, httplib::Response& response) {
    ++answered;
    response.set_content("secret answer", "text/plain");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&server] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(milliseconds(1));
  CurlTransport transport(CurlTransportOptions{milliseconds(2000), milliseconds(2000)});
  HttpRequest request;
  request.host = "127.0.0.1:" + std::to_string(port);  // https, the default

  Result<HttpResponse> response = transport.Send(request);

  server.stop();
  serving.join();
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().status, 0);
  EXPECT_EQ(response.error().reason, "ConnectionError");
  EXPECT_THAT(response.error().message, HasSubstr("GET https://" + request.host + "/: "));
  EXPECT_THAT(response.error().message, HasSubstr("certificate"));
  EXPECT_EQ(answered, 0);
}

}  // namespace
}  // namespace karpenter::aws
