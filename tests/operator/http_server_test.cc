#include "operator/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/matchers.h"

namespace karpenter::op {
namespace {

using testing::HasSubstr;
using testing::StartsWith;

HttpServerConfig Local(HealthCheck ready = {}, HealthCheck live = {}) {
  HttpServerConfig config;
  config.name = "health probe server";
  config.bind_address = "127.0.0.1";
  config.port = 0;
  config.routes = HealthRoutes(std::move(ready), std::move(live));
  return config;
}

std::unique_ptr<HttpServer> StartOrDie(HttpServerConfig config) {
  Result<std::unique_ptr<HttpServer>> server = HttpServer::Start(std::move(config));
  EXPECT_THAT(server, IsOk());
  return server.ok() ? std::move(*server) : nullptr;
}

httplib::Result Get(int port, const std::string& path, int timeout_seconds = 2) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(timeout_seconds);
  client.set_read_timeout(timeout_seconds);
  return client.Get(path);
}

TEST(HealthServerTest, PicksAFreePortAndAnswersHealthz) {
  std::unique_ptr<HttpServer> server = StartOrDie(Local());
  ASSERT_NE(server, nullptr);
  EXPECT_GT(server->port(), 0);
  EXPECT_EQ(server->bind_address(), "127.0.0.1");
  httplib::Result response = Get(server->port(), "/healthz");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "ok\n");
}

TEST(HealthServerTest, ReadyzFollowsTheReadinessCheck) {
  std::atomic<bool> synced = false;
  std::unique_ptr<HttpServer> server = StartOrDie(Local([&synced]() -> Status {
    if (!synced) return Error("caches not synced: nodes, pods");
    return {};
  }));
  ASSERT_NE(server, nullptr);

  httplib::Result before = Get(server->port(), "/readyz");
  ASSERT_TRUE(before) << httplib::to_string(before.error());
  EXPECT_EQ(before->status, 503);
  EXPECT_EQ(before->body, "caches not synced: nodes, pods\n");
  EXPECT_THAT(before->get_header_value("Content-Type"), StartsWith("text/plain"));

  // Liveness does not wait for readiness: a controller still syncing is not to be restarted.
  httplib::Result live = Get(server->port(), "/healthz");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);

  synced = true;
  httplib::Result after = Get(server->port(), "/readyz");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(after->body, "ok\n");
}

TEST(HealthServerTest, WithoutAReadinessCheckItIsReady) {
  std::unique_ptr<HttpServer> server = StartOrDie(Local());
  ASSERT_NE(server, nullptr);
  httplib::Result response = Get(server->port(), "/readyz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
}

TEST(HealthServerTest, AFailingLivenessCheckIs500) {
  std::unique_ptr<HttpServer> server =
      StartOrDie(Local({}, [] { return Status(Error("controller loop stalled for 5m0s")); }));
  ASSERT_NE(server, nullptr);
  httplib::Result response = Get(server->port(), "/healthz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 500);
  EXPECT_EQ(response->body, "controller loop stalled for 5m0s\n");
}

TEST(HealthServerTest, ACheckThatThrowsFailsTheProbeNotTheServer) {
  std::unique_ptr<HttpServer> server =
      StartOrDie(Local([]() -> Status { throw std::runtime_error("boom"); }));
  ASSERT_NE(server, nullptr);
  httplib::Result response = Get(server->port(), "/readyz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(response->body, "check failed: boom\n");
  EXPECT_EQ(Get(server->port(), "/healthz")->status, 200);
}

TEST(HealthServerTest, OtherPathsAreNotFound) {
  std::unique_ptr<HttpServer> server = StartOrDie(Local());
  ASSERT_NE(server, nullptr);
  httplib::Result response = Get(server->port(), "/metrics");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 404);
}

// Sends `request` as raw bytes (what a client library would refuse to send) and returns the status
// line of the answer, or what happened instead: "closed" when the server hung up without one.
std::string RawExchange(int port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "no socket";
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return "cannot connect";
  }
  // The server may answer and hang up before it has read everything: a failed send is expected.
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string answer;
  char buffer[4096];
  while (answer.find("\r\n") == std::string::npos) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    answer.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  const size_t end = answer.find("\r\n");
  return end == std::string::npos ? "closed" : answer.substr(0, end);
}

TEST(HealthServerTest, OversizedAndMalformedRequestsAreRefusedAndServingGoesOn) {
  std::unique_ptr<HttpServer> server = StartOrDie(Local());
  ASSERT_NE(server, nullptr);
  const int port = server->port();
  const std::string long_text(size_t{100} * 1024, 'a');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a 100 KiB request target", "GET /" + long_text + " HTTP/1.1\r\nHost: x\r\n\r\n"},
      {"a 100 KiB header", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + long_text + "\r\n\r\n"},
      {"a 100 MB body announced",
       "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n" + long_text},
      {"a request line that is not HTTP", "\x16\x03\x01 hello\r\n\r\n"},
      {"a negative length", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"},
      {"a method other than GET", "DELETE /healthz HTTP/1.1\r\nHost: x\r\n\r\n"},
  };
  for (const auto& [what, request] : cases) {
    const std::string status = RawExchange(port, request);
    EXPECT_THAT(status, testing::AnyOf(StartsWith("HTTP/1.1 4"), testing::Eq("closed"))) << what;
    EXPECT_THAT(status, testing::Not(StartsWith("HTTP/1.1 2"))) << what;
    httplib::Result after = Get(port, "/healthz");
    ASSERT_TRUE(after) << "no answer after " << what;
    EXPECT_EQ(after->status, 200) << what;
  }
  // A client that stops mid-request holds a serving thread only until the read timeout (2 s):
  // with both threads held by such clients, a probe waiting 4 s is still answered (with httplib's
  // default of 5 s it would not be). The pause lets the stalled clients take the threads first.
  const auto stalled = [port] { RawExchange(port, "GET /healthz HTTP/1.1\r\nHost"); };
  std::thread first(stalled);
  std::thread second(stalled);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  httplib::Result probe = Get(port, "/healthz", 4);
  first.join();
  second.join();
  ASSERT_TRUE(probe) << httplib::to_string(probe.error());
  EXPECT_EQ(probe->status, 200);
}

TEST(HealthServerTest, StopEndsServingAndCanBeRepeated) {
  std::unique_ptr<HttpServer> server = StartOrDie(Local());
  ASSERT_NE(server, nullptr);
  const int port = server->port();
  ASSERT_TRUE(Get(port, "/healthz"));
  server->Stop();
  EXPECT_FALSE(Get(port, "/healthz"));
  server->Stop();
}

TEST(HealthServerTest, StopsRightAfterStarting) {
  // Stop before any request: the accept loop may only just have begun.
  for (int i = 0; i < 20; ++i) {
    std::unique_ptr<HttpServer> server = StartOrDie(Local());
    ASSERT_NE(server, nullptr);
  }
}

TEST(HealthServerTest, DestructionStops) {
  int port = 0;
  {
    std::unique_ptr<HttpServer> server = StartOrDie(Local());
    ASSERT_NE(server, nullptr);
    port = server->port();
  }
  EXPECT_FALSE(Get(port, "/healthz"));
}

TEST(HealthServerTest, ATakenPortIsAnError) {
  std::unique_ptr<HttpServer> first = StartOrDie(Local());
  ASSERT_NE(first, nullptr);
  HttpServerConfig config = Local();
  config.port = first->port();
  Result<std::unique_ptr<HttpServer>> second = HttpServer::Start(config);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error().message,
              StartsWith("health probe server: cannot listen on 127.0.0.1:" +
                         std::to_string(first->port())));
  EXPECT_THAT(second.error().message, HasSubstr("in use"));
}

TEST(HealthServerTest, AnInvalidPortIsAnError) {
  HttpServerConfig config = Local();
  config.port = 70000;
  Result<std::unique_ptr<HttpServer>> server = HttpServer::Start(config);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.error().message,
            "health probe server: invalid port 70000: must be between 0 and 65535");
}

TEST(HealthServerTest, AnUnusableAddressIsAnError) {
  HttpServerConfig config = Local();
  config.bind_address = "203.0.113.7";  // TEST-NET-3: not an address of this machine
  Result<std::unique_ptr<HttpServer>> server = HttpServer::Start(config);
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(server.error().message,
              StartsWith("health probe server: cannot listen on 203.0.113.7:0"));
}

}  // namespace
}  // namespace karpenter::op
