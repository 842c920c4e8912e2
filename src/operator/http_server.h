#pragma once
// The kubelet's view of the controller: /healthz (liveness) and /readyz (readiness) over HTTP, on
// the port the chart's probes use (8081). /readyz answers 200 only once the readiness check passes
// (caches synced, …) and 503 with the check's reason until then, so a replica that cannot act yet
// takes no part in a rollout's progress.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/result.h"

namespace httplib {
class Server;
}

namespace karpenter::op {

// Ok when the controller is ready (or alive); otherwise an Error whose message says why not. Called
// on the server's threads, possibly several at once, so it must be thread-safe.
using HealthCheck = std::function<Status()>;

struct HealthServerConfig {
  // In-cluster probes come from the kubelet over the pod IP, hence every address by default.
  std::string bind_address = "0.0.0.0";
  int port = 8081;    // 0 picks a free port; port() tells which
  HealthCheck ready;  // empty: always ready
  HealthCheck live;   // empty: alive while the server answers
};

// Serves on its own thread from Start until Stop or destruction.
class HealthServer {
 public:
  // Binds before returning, so a taken port is an error here rather than a silent thread's death.
  static Result<std::unique_ptr<HealthServer>> Start(HealthServerConfig config);
  ~HealthServer();
  HealthServer(const HealthServer&) = delete;
  HealthServer& operator=(const HealthServer&) = delete;

  int port() const { return port_; }
  const std::string& bind_address() const { return config_.bind_address; }

  // Stops serving and joins the thread. Safe to call more than once.
  void Stop();

 private:
  HealthServer(HealthServerConfig config, std::unique_ptr<httplib::Server> server, int port);

  HealthServerConfig config_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::atomic<bool> exited_{false};  // the serving thread has returned
  std::thread thread_;
};

}  // namespace karpenter::op
