#include "controllers/cluster_cache.h"

#include <utility>

#include "api/manifest.h"

namespace karpenter::controllers {
namespace {

// The one index value at `path`, none when absent or empty.
std::vector<std::string> IndexValue(const kube::Object& object,
                                    std::initializer_list<std::string_view> path) {
  const std::string_view value = kube::StringAt(object, path);
  if (value.empty()) return {};
  return {std::string(value)};
}

// Decodes one object and takes it out of the manifest vector `Member` selects.
template <class T, class Member>
std::optional<T> DecodeAs(const kube::Object& object, Member member, std::string* error) {
  api::DecodeOutcome outcome = api::DecodeObject(object, "cluster");
  std::vector<T>& decoded = outcome.manifest.*member;
  if (decoded.empty()) {
    if (error != nullptr) {
      *error = outcome.errors.empty() ? std::string("not a supported object")
                                      : std::move(outcome.errors.front());
    }
    return std::nullopt;
  }
  return std::move(decoded.front());
}

}  // namespace

ClusterCache::ClusterCache(kube::Client& client, CacheOptions options)
    : pods_(client, kube::resources::kPods),
      nodes_(client, kube::resources::kNodes),
      node_claims_(client, kube::resources::kNodeClaims),
      node_pools_(client, kube::resources::kNodePools),
      node_classes_(client, kube::resources::kEC2NodeClasses),
      daemon_sets_(client, kube::resources::kDaemonSets),
      disruption_budgets_(client, kube::resources::kPodDisruptionBudgets),
      volume_attachments_(client, kube::resources::kVolumeAttachments),
      volume_claims_(client, kube::resources::kPersistentVolumeClaims),
      options_(options),
      node_overlays_(client, kube::resources::kNodeOverlays),
      capacity_buffers_(client, kube::resources::kCapacityBuffers),
      decoded_pods_(pods_, [](const kube::Object& pod) { return DecodePod(pod); }),
      decoded_nodes_(nodes_, [](const kube::Object& node) { return DecodeNode(node); }),
      decoded_node_claims_(node_claims_,
                           [](const kube::Object& claim) { return DecodeNodeClaim(claim); }) {
  pods_.AddIndex(std::string(kIndexPodsByNode), [](const kube::Object& pod) {
    return IndexValue(pod, {"spec", "nodeName"});
  });
  pods_.AddIndex(std::string(kIndexPodsByNamespace), [](const kube::Object& pod) {
    return IndexValue(pod, {"metadata", "namespace"});
  });
  nodes_.AddIndex(std::string(kIndexNodesByProviderId), [](const kube::Object& node) {
    return IndexValue(node, {"spec", "providerID"});
  });
  node_claims_.AddIndex(std::string(kIndexNodeClaimsByProviderId), [](const kube::Object& claim) {
    return IndexValue(claim, {"status", "providerID"});
  });
  volume_attachments_.AddIndex(std::string(kIndexVolumeAttachmentsByNode),
                               [](const kube::Object& attachment) {
                                 return IndexValue(attachment, {"spec", "nodeName"});
                               });
  for (kube::Informer* informer : all()) {
    informer->AddHandler([this](kube::WatchEventType, const kube::Object&) {
      generation_.fetch_add(1, std::memory_order_relaxed);
    });
  }
}

std::vector<kube::Informer*> ClusterCache::all() {
  std::vector<kube::Informer*> all = {
      &pods_,         &nodes_,       &node_claims_,        &node_pools_,
      &node_classes_, &daemon_sets_, &disruption_budgets_, &volume_attachments_,
      &volume_claims_};
  if (options_.node_overlays) all.push_back(&node_overlays_);
  if (options_.capacity_buffers) all.push_back(&capacity_buffers_);
  return all;
}

bool ClusterCache::synced() const {
  return pods_.synced() && nodes_.synced() && node_claims_.synced() && node_pools_.synced() &&
         node_classes_.synced() && daemon_sets_.synced() && disruption_budgets_.synced() &&
         volume_attachments_.synced() && volume_claims_.synced() &&
         (!options_.node_overlays || node_overlays_.synced()) &&
         (!options_.capacity_buffers || capacity_buffers_.synced());
}

std::optional<kube::Object> ClusterCache::NodeByProviderId(std::string_view provider_id) const {
  std::vector<kube::Object> nodes = nodes_.ByIndex(kIndexNodesByProviderId, provider_id);
  if (nodes.empty()) return std::nullopt;
  return std::move(nodes.front());
}

std::optional<api::Pod> DecodePod(const kube::Object& object, std::string* error) {
  return DecodeAs<api::Pod>(object, &api::Manifest::pods, error);
}

std::optional<api::Node> DecodeNode(const kube::Object& object, std::string* error) {
  return DecodeAs<api::Node>(object, &api::Manifest::nodes, error);
}

std::optional<api::NodeClaim> DecodeNodeClaim(const kube::Object& object, std::string* error) {
  return DecodeAs<api::NodeClaim>(object, &api::Manifest::node_claims, error);
}

std::optional<api::NodePool> DecodeNodePool(const kube::Object& object, std::string* error) {
  return DecodeAs<api::NodePool>(object, &api::Manifest::node_pools, error);
}

std::optional<api::EC2NodeClass> DecodeEC2NodeClass(const kube::Object& object,
                                                    std::string* error) {
  return DecodeAs<api::EC2NodeClass>(object, &api::Manifest::node_classes, error);
}

std::optional<api::NodeOverlay> DecodeNodeOverlay(const kube::Object& object, std::string* error) {
  return DecodeAs<api::NodeOverlay>(object, &api::Manifest::node_overlays, error);
}

std::optional<api::CapacityBuffer> DecodeCapacityBuffer(const kube::Object& object,
                                                        std::string* error) {
  return DecodeAs<api::CapacityBuffer>(object, &api::Manifest::capacity_buffers, error);
}

std::optional<api::Workload> DecodeDaemonSet(const kube::Object& object, std::string* error) {
  return DecodeAs<api::Workload>(object, &api::Manifest::workloads, error);
}

}  // namespace karpenter::controllers
