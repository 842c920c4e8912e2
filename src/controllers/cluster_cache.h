#pragma once
// The informers every controller reads the cluster from (pods, nodes, NodeClaims, NodePools,
// EC2NodeClasses, DaemonSets, PodDisruptionBudgets, VolumeAttachments, PersistentVolumeClaims, and
// NodeOverlays and CapacityBuffers under their gates), their indexes, and typed views of their
// objects.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/capacity_buffer.h"
#include "api/ec2nodeclass.h"
#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodeoverlay.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/workloads.h"
#include "controllers/decoded_cache.h"
#include "kube/client.h"
#include "kube/informer.h"

namespace karpenter::controllers {

inline constexpr std::string_view kIndexPodsByNode = "pods-by-node";
inline constexpr std::string_view kIndexPodsByNamespace = "pods-by-namespace";
inline constexpr std::string_view kIndexNodesByProviderId = "nodes-by-provider-id";
inline constexpr std::string_view kIndexNodeClaimsByProviderId = "nodeclaims-by-provider-id";
inline constexpr std::string_view kIndexVolumeAttachmentsByNode = "volumeattachments-by-node";

// The kinds watched only under their feature gates.
struct CacheOptions {
  bool node_overlays = false;     // NodeOverlay
  bool capacity_buffers = false;  // CapacityBuffer
};

class ClusterCache {
 public:
  explicit ClusterCache(kube::Client& client, CacheOptions options = {});

  kube::Informer& pods() { return pods_; }
  kube::Informer& nodes() { return nodes_; }
  kube::Informer& node_claims() { return node_claims_; }
  kube::Informer& node_pools() { return node_pools_; }
  kube::Informer& node_classes() { return node_classes_; }
  kube::Informer& daemon_sets() { return daemon_sets_; }
  kube::Informer& disruption_budgets() { return disruption_budgets_; }
  kube::Informer& volume_attachments() { return volume_attachments_; }
  kube::Informer& volume_claims() { return volume_claims_; }
  // Empty, never started, unless their gates are on.
  kube::Informer& node_overlays() { return node_overlays_; }
  kube::Informer& capacity_buffers() { return capacity_buffers_; }
  const kube::Informer& pods() const { return pods_; }
  const kube::Informer& nodes() const { return nodes_; }
  const kube::Informer& node_claims() const { return node_claims_; }
  const kube::Informer& node_pools() const { return node_pools_; }
  const kube::Informer& node_classes() const { return node_classes_; }
  const kube::Informer& daemon_sets() const { return daemon_sets_; }
  const kube::Informer& disruption_budgets() const { return disruption_budgets_; }
  const kube::Informer& volume_attachments() const { return volume_attachments_; }
  const kube::Informer& volume_claims() const { return volume_claims_; }
  const kube::Informer& node_overlays() const { return node_overlays_; }
  const kube::Informer& capacity_buffers() const { return capacity_buffers_; }
  std::vector<kube::Informer*> all();
  bool synced() const;

  // Pods, Nodes and NodeClaims decoded once per change (those that decode).
  const DecodedCache<api::Pod>& decoded_pods() const { return decoded_pods_; }
  const DecodedCache<api::Node>& decoded_nodes() const { return decoded_nodes_; }
  const DecodedCache<api::NodeClaim>& decoded_node_claims() const { return decoded_node_claims_; }

  // Counts every change any informer delivered: equal values mean nothing changed in between.
  uint64_t generation() const { return generation_.load(std::memory_order_relaxed); }

  // The Node carrying `provider_id`, if any.
  std::optional<kube::Object> NodeByProviderId(std::string_view provider_id) const;

 private:
  kube::Informer pods_;
  kube::Informer nodes_;
  kube::Informer node_claims_;
  kube::Informer node_pools_;
  kube::Informer node_classes_;
  kube::Informer daemon_sets_;
  kube::Informer disruption_budgets_;  // PodDisruptionBudgets
  // What termination waits for before the instance goes: the Nodes' VolumeAttachments, and the
  // PersistentVolumeClaims that say which of them pods left on the Node still use.
  kube::Informer volume_attachments_;
  kube::Informer volume_claims_;  // PersistentVolumeClaims
  const CacheOptions options_;
  kube::Informer node_overlays_;
  kube::Informer capacity_buffers_;
  DecodedCache<api::Pod> decoded_pods_;
  DecodedCache<api::Node> decoded_nodes_;
  DecodedCache<api::NodeClaim> decoded_node_claims_;
  std::atomic<uint64_t> generation_{0};
};

// Typed views. An object that does not decode (an invalid object the API server let through)
// yields nullopt and `error` says why; controllers skip it and report, never crash.
std::optional<api::Pod> DecodePod(const kube::Object& object, std::string* error = nullptr);
std::optional<api::Node> DecodeNode(const kube::Object& object, std::string* error = nullptr);
std::optional<api::NodeClaim> DecodeNodeClaim(const kube::Object& object,
                                              std::string* error = nullptr);
std::optional<api::NodePool> DecodeNodePool(const kube::Object& object,
                                            std::string* error = nullptr);
std::optional<api::EC2NodeClass> DecodeEC2NodeClass(const kube::Object& object,
                                                    std::string* error = nullptr);
std::optional<api::NodeOverlay> DecodeNodeOverlay(const kube::Object& object,
                                                  std::string* error = nullptr);
std::optional<api::CapacityBuffer> DecodeCapacityBuffer(const kube::Object& object,
                                                        std::string* error = nullptr);
std::optional<api::Workload> DecodeDaemonSet(const kube::Object& object,
                                             std::string* error = nullptr);

}  // namespace karpenter::controllers
