#pragma once
// An HTTP server on a free 127.0.0.1 port for the SDK's transport and client tests: register
// handlers through ->, then Start; the destructor stops it (waiting for running handlers).

#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>

namespace karpenter::aws::testing {

class LoopbackServer {
 public:
  LoopbackServer() : port_(server_.bind_to_any_port("127.0.0.1")) {}
  ~LoopbackServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  httplib::Server* operator->() { return &server_; }
  void Start() {
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  int port() const { return port_; }
  // "127.0.0.1:<port>", as HttpRequest::host and Endpoint::host take it.
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  const int port_;
  std::thread thread_;
};

}  // namespace karpenter::aws::testing
