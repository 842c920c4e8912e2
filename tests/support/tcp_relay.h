#pragma once
// A TCP relay on a free loopback port to another loopback port, which can cut every connection it
// carries at once — what a load balancer reset or a network partition does to a controller's
// watches and requests, without restarting the server behind it. TLS passes through untouched (the
// API server's certificate names 127.0.0.1, whatever the port).

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/result.h"

namespace karpenter::support {

class TcpRelay {
 public:
  // Listens on 127.0.0.1 (a port the kernel picks) and relays to 127.0.0.1:`upstream_port`.
  static Result<std::unique_ptr<TcpRelay>> Start(int upstream_port);
  ~TcpRelay();  // cuts everything and joins its threads
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

  int port() const { return port_; }
  // Closes every connection open now (both ends); returns how many. New ones are relayed again.
  int Cut() EXCLUDES(mutex_);

 private:
  TcpRelay(int listener, int port, int upstream_port);
  void Accept();
  void Relay(int client, int upstream);

  const int listener_;
  const int port_;
  const int upstream_port_;
  std::atomic<bool> stopping_{false};
  Mutex mutex_;
  std::vector<int> open_ GUARDED_BY(mutex_);  // the sockets of live connections, both ends
  std::vector<std::thread> relays_ GUARDED_BY(mutex_);
  std::thread acceptor_;
};

}  // namespace karpenter::support
