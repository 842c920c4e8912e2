#pragma once
// Plays the machines of the simulated cloud booting: for every running instance without a Node, it
// creates the Node its kubelet would register — the instance's name, labels, taints (including
// karpenter.sh/unregistered), providerID, capacity and allocatable. Against a real API server the
// Node carries the kwok annotation, so kwok marks it Ready and runs its pods like a kubelet; in
// memory (no kwok) the booter marks it Ready itself.
//
// The Nodes are also the simulated cloud's memory across restarts: each records its instance in
// an annotation, and Recover() gives a restarted controller's cloud the instances it launched.

#include <chrono>
#include <optional>

#include "cloud/sim/sim_cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "kube/client.h"
#include "kube/informer.h"

namespace karpenter::cloud {

inline constexpr std::string_view kAnnotationKwokNode = "kwok.x-k8s.io/node";
inline constexpr std::string_view kAnnotationInstance = "sim.karpenter.sh/instance";

struct NodeBooterOptions {
  std::chrono::milliseconds boot_delay{0};  // from launch to the Node appearing, the median
  // Machines launched together do not join together: each instance's boot takes boot_delay ×
  // (1 ± boot_spread), uniformly, at a point fixed by its provider ID and `seed`.
  double boot_spread = 0;
  uint64_t seed = 0;
  bool mark_ready = false;  // set the Ready condition (when no kwok runs)
};

// How long `provider_id`'s instance takes from launch to its Node under `options`.
std::chrono::milliseconds BootDelayOf(std::string_view provider_id,
                                      const NodeBooterOptions& options);

// The instance a Node of the simulated cloud records; nullopt for other Nodes.
std::optional<cloud::Instance> InstanceOfNode(const kube::Object& node);

class NodeBooter {
 public:
  NodeBooter(kube::Client& client, const kube::Informer& nodes, cloud::SimCloudProvider& cloud,
             const Clock& clock, Logger logger, NodeBooterOptions options);

  // Gives the cloud the instances recorded on existing Nodes; returns how many.
  size_t Recover();
  // Creates the Nodes of instances that have booted; returns how many. Cheap when nothing was
  // launched since the last call and no instance is due to finish booting.
  Result<size_t> Boot();
  // When an instance launched earlier finishes booting, if one is still booting.
  std::optional<TimePoint> NextWake() const { return next_boot_; }

 private:
  kube::Client& client_;
  const kube::Informer& nodes_;
  cloud::SimCloudProvider& cloud_;
  const Clock& clock_;
  Logger logger_;
  const NodeBooterOptions options_;
  uint64_t launches_seen_ = 0;
  std::optional<TimePoint> next_boot_;
};

}  // namespace karpenter::cloud
