#include "operator/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <memory>
#include <string>

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

httplib::Result Get(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2);
  client.set_read_timeout(2);
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
