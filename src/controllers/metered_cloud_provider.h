#pragma once
// A CloudProvider that times every call of one controller and counts its failures, under
// upstream's karpenter_cloudprovider_duration_seconds and karpenter_cloudprovider_errors_total
// (labels controller, method, provider; error for the failures). The manager gives each
// controller its own, so the series say which controller waited on the cloud.

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/cloud_provider.h"
#include "controllers/metrics.h"

namespace karpenter::controllers {

class MeteredCloudProvider : public cloud::CloudProvider {
 public:
  // `cloud` and `metrics` must outlive this; `controller` names the caller ("provisioner").
  MeteredCloudProvider(cloud::CloudProvider& cloud, Metrics& metrics, std::string_view controller);

  Result<cloud::Instance> Create(const api::NodeClaim& node_claim) override;
  std::vector<Result<cloud::Instance>> CreateAll(
      std::span<const api::NodeClaim* const> node_claims) override;
  Status Delete(std::string_view provider_id) override;
  Result<cloud::Instance> Get(std::string_view provider_id) override;
  Result<std::vector<cloud::Instance>> List() override;
  Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> GetInstanceTypes(
      const api::NodePool& node_pool) override;
  Result<std::string> IsDrifted(const api::NodeClaim& node_claim) override;
  std::span<const cloud::RepairPolicy> RepairPolicies() const override {
    return cloud_.RepairPolicies();
  }
  std::string_view Name() const override { return cloud_.Name(); }

 private:
  using Clock = std::chrono::steady_clock;
  // Records one call of `method` that began at `started` and failed with `error` (or not).
  void Record(std::string_view method, Clock::time_point started, const Error* error);

  cloud::CloudProvider& cloud_;
  Metrics& metrics_;
  const std::string controller_;
};

}  // namespace karpenter::controllers
