#pragma once
// Plays the machines of a simulated cloud booting: for every running instance without a Node, it
// creates the Node its kubelet would register — the instance's name, labels, taints (including
// karpenter.sh/unregistered), providerID, capacity and allocatable. Against a real API server the
// Node carries the kwok annotation, so kwok marks it Ready and runs its pods like a kubelet; in
// memory (no kwok) the booter marks it Ready itself.

#include <chrono>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "kube/client.h"
#include "kube/informer.h"

namespace karpenter::sim {

inline constexpr std::string_view kAnnotationKwokNode = "kwok.x-k8s.io/node";

struct NodeBooterOptions {
  std::chrono::milliseconds boot_delay{0};  // from launch to the Node appearing
  bool mark_ready = false;                  // set the Ready condition (when no kwok runs)
};

class NodeBooter {
 public:
  NodeBooter(kube::Client& client, const kube::Informer& nodes, cloud::CloudProvider& cloud,
             const Clock& clock, Logger logger, NodeBooterOptions options);

  // Creates the Nodes of instances that have booted; returns how many.
  Result<size_t> Boot();

 private:
  kube::Client& client_;
  const kube::Informer& nodes_;
  cloud::CloudProvider& cloud_;
  const Clock& clock_;
  Logger logger_;
  const NodeBooterOptions options_;
};

}  // namespace karpenter::sim
