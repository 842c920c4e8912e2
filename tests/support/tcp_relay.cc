#include "support/tcp_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace karpenter::support {
namespace {

sockaddr_in Loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// Writes all of `data`; false when the other end is gone.
bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t written = send(fd, data, size, MSG_NOSIGNAL);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<TcpRelay>> TcpRelay::Start(int upstream_port) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return Error(std::string("tcp relay: socket: ") + std::strerror(errno));
  sockaddr_in address = Loopback(0);
  socklen_t length = sizeof(address);
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listener, 128) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const std::string reason = std::strerror(errno);
    close(listener);
    return Error("tcp relay: listening on 127.0.0.1: " + reason);
  }
  std::unique_ptr<TcpRelay> relay(new TcpRelay(listener, ntohs(address.sin_port), upstream_port));
  relay->acceptor_ = std::thread([raw = relay.get()] { raw->Accept(); });
  return relay;
}

TcpRelay::TcpRelay(int listener, int port, int upstream_port)
    : listener_(listener), port_(port), upstream_port_(upstream_port) {}

TcpRelay::~TcpRelay() {
  stopping_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  Cut();
  std::vector<std::thread> relays;
  {
    MutexLock lock(mutex_);
    relays = std::move(relays_);
  }
  for (std::thread& relay : relays) relay.join();
  close(listener_);
}

int TcpRelay::Cut() {
  MutexLock lock(mutex_);
  for (const int fd : open_) shutdown(fd, SHUT_RDWR);
  return static_cast<int>(open_.size() / 2);
}

void TcpRelay::Accept() {
  while (!stopping_) {
    pollfd waiting{listener_, POLLIN, 0};
    if (poll(&waiting, 1, 200) <= 0) continue;
    const int client = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    const int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in address = Loopback(upstream_port_);
    if (upstream < 0 ||
        connect(upstream, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      if (upstream >= 0) close(upstream);
      close(client);  // the server is down: the client sees a refused connection, as it would
      continue;
    }
    MutexLock lock(mutex_);
    open_.push_back(client);
    open_.push_back(upstream);
    relays_.emplace_back([this, client, upstream] { Relay(client, upstream); });
  }
}

void TcpRelay::Relay(int client, int upstream) {
  std::array<pollfd, 2> ends = {pollfd{client, POLLIN, 0}, pollfd{upstream, POLLIN, 0}};
  std::array<char, 16384> buffer{};
  bool open = true;
  while (open) {
    if (poll(ends.data(), ends.size(), 200) < 0 && errno != EINTR) break;
    if (stopping_) break;
    for (size_t i = 0; i < ends.size() && open; ++i) {
      if ((ends[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t read = recv(ends[i].fd, buffer.data(), buffer.size(), 0);
      open = read > 0 && WriteAll(ends[1 - i].fd, buffer.data(), static_cast<size_t>(read));
    }
  }
  MutexLock lock(mutex_);
  std::erase_if(open_, [&](int fd) { return fd == client || fd == upstream; });
  close(client);
  close(upstream);
}

}  // namespace karpenter::support
