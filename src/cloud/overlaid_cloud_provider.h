#pragma once
// The cloud as controllers see it under the NodeOverlay gate: every call goes to the cloud, and
// the instance types come back with the NodeOverlays applied (cloud/node_overlays.h), so
// provisioning, consolidation, static pools and metrics all plan on the overlaid prices and
// capacity. The overlay controller itself reads the cloud's own types.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cloud/node_overlays.h"

namespace karpenter::cloud {

class OverlaidCloudProvider final : public CloudProvider {
 public:
  // `cloud` and `overlays` must outlive this.
  OverlaidCloudProvider(CloudProvider& cloud, OverlayStore& overlays)
      : cloud_(cloud), overlays_(overlays) {}

  Result<Instance> Create(const api::NodeClaim& node_claim) override {
    return cloud_.Create(node_claim);
  }
  std::vector<Result<Instance>> CreateAll(
      std::span<const api::NodeClaim* const> node_claims) override {
    return cloud_.CreateAll(node_claims);
  }
  Status Delete(std::string_view provider_id) override { return cloud_.Delete(provider_id); }
  Result<Instance> Get(std::string_view provider_id) override { return cloud_.Get(provider_id); }
  Result<std::vector<Instance>> List() override { return cloud_.List(); }
  Result<std::shared_ptr<const std::vector<InstanceType>>> GetInstanceTypes(
      const api::NodePool& node_pool) override {
    ASSIGN_OR_RETURN(std::shared_ptr<const std::vector<InstanceType>> types,
                     cloud_.GetInstanceTypes(node_pool));
    return overlays_.Apply(node_pool.metadata.name, types);
  }
  Result<std::string> IsDrifted(const api::NodeClaim& node_claim) override {
    return cloud_.IsDrifted(node_claim);
  }
  std::span<const RepairPolicy> RepairPolicies() const override { return cloud_.RepairPolicies(); }
  std::string_view Name() const override { return cloud_.Name(); }

 private:
  CloudProvider& cloud_;
  OverlayStore& overlays_;
};

}  // namespace karpenter::cloud
