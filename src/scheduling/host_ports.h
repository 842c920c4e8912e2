#pragma once
// Host ports a pod binds on its node; two pods conflict when protocol and port are equal and their
// host IPs overlap (equal, or either is the wildcard 0.0.0.0 / empty).

#include <cstdint>
#include <string>
#include <vector>

#include "api/pod.h"

namespace karpenter::scheduling {

struct HostPort {
  std::string ip;  // empty means every address
  std::string protocol;
  int32_t port = 0;
  bool Conflicts(const HostPort& other) const;
};

std::vector<HostPort> HostPortsOf(const api::PodSpec& spec);

// True when any of `wanted` conflicts with any of `used`.
bool AnyConflict(const std::vector<HostPort>& used, const std::vector<HostPort>& wanted);

}  // namespace karpenter::scheduling
