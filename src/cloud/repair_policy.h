#pragma once
// What a cloud provider counts as an unhealthy node worth replacing (node repair,
// docs/upstream-reference.md §15): a Node condition of `condition_type` with status
// `condition_status` for longer than `toleration`.

#include <chrono>
#include <span>
#include <string_view>

namespace karpenter::cloud {

struct RepairPolicy {
  std::string_view condition_type;
  std::string_view condition_status;
  std::chrono::minutes toleration;
};

// EC2's list, as upstream's AWS provider gives it: the kubelet's Ready, and the conditions the EKS
// node monitoring agent reports. Pressure conditions are not repaired. Both the AWS provider and
// the simulated EC2 (cloud/sim) answer with it.
inline std::span<const RepairPolicy> Ec2RepairPolicies() {
  using std::chrono::minutes;
  static constexpr RepairPolicy kPolicies[] = {
      {"Ready", "False", minutes(30)},
      {"Ready", "Unknown", minutes(30)},
      {"AcceleratedHardwareReady", "False", minutes(10)},
      {"StorageReady", "False", minutes(30)},
      {"NetworkingReady", "False", minutes(30)},
      {"KernelReady", "False", minutes(30)},
      {"ContainerRuntimeReady", "False", minutes(30)},
  };
  return kPolicies;
}

}  // namespace karpenter::cloud
