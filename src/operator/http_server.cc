#include "operator/http_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <utility>

namespace karpenter::op {
namespace {

constexpr size_t kMaxRequestBody = 1024;

// 200 "ok" when `check` passes (or there is none), else `failure` with the reason, as plain
// text: what a person running `curl :8081/readyz` wants to read.
HttpAnswer Check(const HealthCheck& check, int failure) {
  Status status;
  try {
    if (check) status = check();
  } catch (const std::exception& e) {
    status = Error(fmt::format("check failed: {}", e.what()));
  }
  if (status.ok()) return {200, "text/plain", "ok\n"};
  return {failure, "text/plain", status.error().message + "\n"};
}

}  // namespace

std::map<std::string, HttpHandler> HealthRoutes(HealthCheck ready, HealthCheck live) {
  return {{"/healthz", [live = std::move(live)] { return Check(live, 500); }},
          {"/readyz", [ready = std::move(ready)] { return Check(ready, 503); }}};
}

HttpServer::HttpServer(HttpServerConfig config, std::unique_ptr<httplib::Server> server, int port)
    : config_(std::move(config)), server_(std::move(server)), port_(port) {}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerConfig config) {
  if (config.port < 0 || config.port > 65535) {
    return Error(
        fmt::format("{}: invalid port {}: must be between 0 and 65535", config.name, config.port));
  }
  auto server = std::make_unique<httplib::Server>();
  // Probes and scrapes are a request every few seconds: two threads are plenty, and httplib's
  // default pool (one a core, at least eight) would be threads for nothing.
  server->new_task_queue = [] { return new httplib::ThreadPool(2); };
  // Kubelet probes do not reuse connections; a short keep-alive lets Stop return quickly.
  server->set_keep_alive_timeout(1);
  // Probes and scrapes are bodiless GETs. Before anything else is read, other methods are refused
  // (405), a Content-Length that is not a number (httplib reads "-5" as no body) is a bad request
  // and a body over 1 KiB too large (413; httplib would not even look at a GET's). A client that
  // stops sending mid-request loses its thread after two seconds. httplib itself refuses a request
  // line over 8 KiB (414) and a header line over 8 KiB (400).
  server->set_payload_max_length(kMaxRequestBody);
  server->set_read_timeout(2, 0);
  server->set_pre_routing_handler([](const httplib::Request& request, httplib::Response& response) {
    const std::string length = request.get_header_value("Content-Length");
    if (request.method != "GET" && request.method != "HEAD") {
      response.status = 405;
    } else if (length.find_first_not_of("0123456789") != std::string::npos) {
      response.status = 400;
    } else if (length.size() > 6 || (!length.empty() && std::stoul(length) > kMaxRequestBody)) {
      response.status = 413;
    } else {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    return httplib::Server::HandlerResponse::Handled;
  });
  // httplib's default also sets SO_REUSEPORT, with which a second process binds the same port
  // without complaint and takes half the probes. A taken port must be an error instead.
  server->set_socket_options([](socket_t socket) {
    const int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  for (const auto& route : config.routes) {
    server->Get(route.first,
                [handler = route.second](const httplib::Request&, httplib::Response& response) {
                  HttpAnswer answer;
                  try {
                    answer = handler();
                  } catch (const std::exception& e) {
                    answer = {500, "text/plain", fmt::format("failed: {}\n", e.what())};
                  }
                  response.status = answer.status;
                  response.set_content(answer.body, answer.content_type);
                });
  }

  errno = 0;
  int port = config.port;
  if (port == 0) {
    port = server->bind_to_any_port(config.bind_address);
  } else if (!server->bind_to_port(config.bind_address, port)) {
    port = -1;
  }
  if (port <= 0) {
    const int error = errno;
    return Error(
        fmt::format("{}: cannot listen on {}:{}{}", config.name, config.bind_address, config.port,
                    error != 0 ? fmt::format(": {}", std::strerror(error)) : std::string()));
  }

  std::unique_ptr<HttpServer> started(new HttpServer(std::move(config), std::move(server), port));
  HttpServer* self = started.get();
  started->thread_ = std::thread([self] {
    self->server_->listen_after_bind();
    self->exited_ = true;
  });
  // httplib's stop() does nothing until the accept loop has begun, so a Stop() that came first
  // would leave the thread serving and the join waiting forever. Waiting here closes that gap.
  while (!started->server_->is_running() && !started->exited_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (started->exited_) {
    const std::string where = fmt::format("{}:{}", started->bind_address(), port);
    started->Stop();
    return Error(fmt::format("{}: stopped at once on {}", started->config_.name, where));
  }
  return started;
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace karpenter::op
