#pragma once
// The controller's HTTP endpoints, each server on its own port and thread: the kubelet's probes
// (/healthz, /readyz on 8081) and Prometheus's scrape (/metrics on 8080). /readyz answers 200
// only once the readiness check passes (caches synced, …) and 503 with the check's reason until
// then, so a replica that cannot act yet takes no part in a rollout's progress.

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "common/result.h"

namespace httplib {
class Server;
}

namespace karpenter::op {

struct HttpAnswer {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
};
// Answers a GET; called on the server's threads, possibly several at once, so it must be
// thread-safe. An exception it throws is answered 500 with its message.
using HttpHandler = std::function<HttpAnswer()>;

struct HttpServerConfig {
  std::string name;  // in errors: "health probe server", "metrics server"
  // In-cluster probes and scrapes come over the pod IP, hence every address by default.
  std::string bind_address = "0.0.0.0";
  int port = 0;                               // 0 picks a free port; port() tells which
  std::map<std::string, HttpHandler> routes;  // by path; other paths are 404
};

// Ok when the controller is ready (or alive); otherwise an Error whose message says why not.
// Thread-safe, as a handler.
using HealthCheck = std::function<Status()>;
// /readyz (503 with the reason until `ready` passes; always ready without one) and /healthz (500
// when `live` fails; alive while the server answers without one), as plain text.
std::map<std::string, HttpHandler> HealthRoutes(HealthCheck ready, HealthCheck live);

// Serves on its own thread from Start until Stop or destruction.
class HttpServer {
 public:
  // Binds before returning, so a taken port is an error here rather than a silent thread's death.
  static Result<std::unique_ptr<HttpServer>> Start(HttpServerConfig config);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  const std::string& bind_address() const { return config_.bind_address; }

  // Stops serving and joins the thread. Safe to call more than once.
  void Stop();

 private:
  HttpServer(HttpServerConfig config, std::unique_ptr<httplib::Server> server, int port);

  HttpServerConfig config_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::atomic<bool> exited_{false};  // the serving thread has returned
  std::thread thread_;
};

}  // namespace karpenter::op
