#include "scheduling/host_ports.h"

#include <algorithm>

namespace karpenter::scheduling {
namespace {
bool IsWildcard(const std::string& ip) { return ip.empty() || ip == "0.0.0.0" || ip == "::"; }
}  // namespace

bool HostPort::Conflicts(const HostPort& other) const {
  if (port != other.port || protocol != other.protocol) return false;
  return IsWildcard(ip) || IsWildcard(other.ip) || ip == other.ip;
}

std::vector<HostPort> HostPortsOf(const api::PodSpec& spec) {
  std::vector<HostPort> out;
  auto collect = [&](const std::vector<api::Container>& containers) {
    for (const auto& c : containers) {
      for (const auto& p : c.ports) {
        if (p.host_port != 0) {
          out.push_back({p.host_ip, p.protocol.empty() ? "TCP" : p.protocol, p.host_port});
        }
      }
    }
  };
  collect(spec.init_containers);
  collect(spec.containers);
  return out;
}

bool AnyConflict(const std::vector<HostPort>& used, const std::vector<HostPort>& wanted) {
  return std::any_of(wanted.begin(), wanted.end(), [&](const HostPort& w) {
    return std::any_of(used.begin(), used.end(), [&](const HostPort& u) { return u.Conflicts(w); });
  });
}

}  // namespace karpenter::scheduling
