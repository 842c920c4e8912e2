#include "operator/health_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <utility>

namespace karpenter::op {
namespace {

// Answers 200 "ok" when `check` passes (or there is none), else `failure` with the reason, as
// plain text: what a person running `curl :8081/readyz` wants to read.
void Answer(const HealthCheck& check, int failure, httplib::Response& response) {
  Status status;
  try {
    if (check) status = check();
  } catch (const std::exception& e) {
    status = Error(fmt::format("check failed: {}", e.what()));
  }
  if (status.ok()) {
    response.status = 200;
    response.set_content("ok\n", "text/plain");
  } else {
    response.status = failure;
    response.set_content(status.error().message + "\n", "text/plain");
  }
}

}  // namespace

HealthServer::HealthServer(HealthServerConfig config, std::unique_ptr<httplib::Server> server,
                           int port)
    : config_(std::move(config)), server_(std::move(server)), port_(port) {}

Result<std::unique_ptr<HealthServer>> HealthServer::Start(HealthServerConfig config) {
  if (config.port < 0 || config.port > 65535) {
    return Error(fmt::format("health probe server: invalid port {}: must be between 0 and 65535",
                             config.port));
  }
  auto server = std::make_unique<httplib::Server>();
  // Probes are a request every few seconds: two threads are plenty, and httplib's default pool
  // (one a core, at least eight) would be threads for nothing.
  server->new_task_queue = [] { return new httplib::ThreadPool(2); };
  // Kubelet probes do not reuse connections; a short keep-alive lets Stop return quickly.
  server->set_keep_alive_timeout(1);
  // httplib's default also sets SO_REUSEPORT, with which a second process binds the same port
  // without complaint and takes half the probes. A taken port must be an error instead.
  server->set_socket_options([](socket_t socket) {
    const int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server->Get("/healthz", [live = config.live](const httplib::Request&, httplib::Response& res) {
    Answer(live, 500, res);
  });
  server->Get("/readyz", [ready = config.ready](const httplib::Request&, httplib::Response& res) {
    Answer(ready, 503, res);
  });

  errno = 0;
  int port = config.port;
  if (port == 0) {
    port = server->bind_to_any_port(config.bind_address);
  } else if (!server->bind_to_port(config.bind_address, port)) {
    port = -1;
  }
  if (port <= 0) {
    const int error = errno;
    return Error(fmt::format(
        "health probe server: cannot listen on {}:{}{}", config.bind_address, config.port,
        error != 0 ? fmt::format(": {}", std::strerror(error)) : std::string()));
  }

  std::unique_ptr<HealthServer> health(
      new HealthServer(std::move(config), std::move(server), port));
  HealthServer* self = health.get();
  health->thread_ = std::thread([self] {
    self->server_->listen_after_bind();
    self->exited_ = true;
  });
  // httplib's stop() does nothing until the accept loop has begun, so a Stop() that came first
  // would leave the thread serving and the join waiting forever. Waiting here closes that gap.
  while (!health->server_->is_running() && !health->exited_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (health->exited_) {
    const std::string where = fmt::format("{}:{}", health->bind_address(), port);
    health->Stop();
    return Error(fmt::format("health probe server: stopped at once on {}", where));
  }
  return health;
}

HealthServer::~HealthServer() { Stop(); }

void HealthServer::Stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace karpenter::op
