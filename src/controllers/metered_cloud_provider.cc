#include "controllers/metered_cloud_provider.h"

#include <utility>

namespace karpenter::controllers {

MeteredCloudProvider::MeteredCloudProvider(cloud::CloudProvider& cloud, Metrics& metrics,
                                           std::string_view controller)
    : cloud_(cloud), metrics_(metrics), controller_(controller) {}

void MeteredCloudProvider::Record(std::string_view method, Clock::time_point started,
                                  const Error* error) {
  metrics_.CloudProviderCalled(controller_, method, cloud_.Name(), Clock::now() - started, error);
}

Result<cloud::Instance> MeteredCloudProvider::Create(const api::NodeClaim& node_claim) {
  const Clock::time_point started = Clock::now();
  Result<cloud::Instance> instance = cloud_.Create(node_claim);
  Record("Create", started, instance.ok() ? nullptr : &instance.error());
  return instance;
}

std::vector<Result<cloud::Instance>> MeteredCloudProvider::CreateAll(
    std::span<const api::NodeClaim* const> node_claims) {
  const Clock::time_point started = Clock::now();
  std::vector<Result<cloud::Instance>> instances = cloud_.CreateAll(node_claims);
  // One launch per NodeClaim, as upstream's Create: each is a call of the series, lasting as
  // long as the batch it went in.
  for (const Result<cloud::Instance>& instance : instances) {
    Record("Create", started, instance.ok() ? nullptr : &instance.error());
  }
  return instances;
}

Status MeteredCloudProvider::Delete(std::string_view provider_id) {
  const Clock::time_point started = Clock::now();
  Status deleted = cloud_.Delete(provider_id);
  Record("Delete", started, deleted.ok() ? nullptr : &deleted.error());
  return deleted;
}

Result<cloud::Instance> MeteredCloudProvider::Get(std::string_view provider_id) {
  const Clock::time_point started = Clock::now();
  Result<cloud::Instance> instance = cloud_.Get(provider_id);
  Record("Get", started, instance.ok() ? nullptr : &instance.error());
  return instance;
}

Result<std::vector<cloud::Instance>> MeteredCloudProvider::List() {
  const Clock::time_point started = Clock::now();
  Result<std::vector<cloud::Instance>> instances = cloud_.List();
  Record("List", started, instances.ok() ? nullptr : &instances.error());
  return instances;
}

Result<std::shared_ptr<const std::vector<cloud::InstanceType>>>
MeteredCloudProvider::GetInstanceTypes(const api::NodePool& node_pool) {
  const Clock::time_point started = Clock::now();
  Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> types =
      cloud_.GetInstanceTypes(node_pool);
  Record("GetInstanceTypes", started, types.ok() ? nullptr : &types.error());
  return types;
}

Result<std::string> MeteredCloudProvider::IsDrifted(const api::NodeClaim& node_claim) {
  const Clock::time_point started = Clock::now();
  Result<std::string> drifted = cloud_.IsDrifted(node_claim);
  Record("IsDrifted", started, drifted.ok() ? nullptr : &drifted.error());
  return drifted;
}

}  // namespace karpenter::controllers
