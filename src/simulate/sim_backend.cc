#include "simulate/sim_backend.h"

#include <chrono>
#include <optional>
#include <random>
#include <utility>

#include "aws/catalog/load_catalog.h"
#include "cloud/sim/sim_cloud_provider.h"
#include "simulate/simulated_machines.h"

namespace karpenter::simulate {
namespace {

class SimBackend final : public op::CloudBackend {
 public:
  SimBackend(std::vector<cloud::InstanceType> catalog, const Clock& clock, std::string region,
             cloud::NodeBooterOptions boot)
      : clock_(clock), cloud_(std::move(catalog), clock, std::move(region)), boot_(boot) {}

  cloud::CloudProvider& cloud() override { return cloud_; }

  Result<std::vector<std::jthread>> Attach(kube::Client& client, op::Manager& manager,
                                           const Logger& logger) override {
    machines_.emplace(manager, client, cloud_, clock_, logger.Named("controller"), boot_);
    return std::vector<std::jthread>{};
  }

 private:
  const Clock& clock_;
  cloud::SimCloudProvider cloud_;
  const cloud::NodeBooterOptions boot_;
  std::optional<SimulatedMachines> machines_;
};

}  // namespace

Result<std::unique_ptr<op::CloudBackend>> NewSimBackend(const op::Options& options,
                                                        const kube::http::Config& /*config*/,
                                                        const Clock& clock) {
  aws::AwsCatalogOptions catalog_options;
  if (!options.aws_region.empty()) catalog_options.region = options.aws_region;
  catalog_options.vm_memory_overhead_percent = options.vm_memory_overhead_percent;
  catalog_options.reserved_enis = options.reserved_enis;
  ASSIGN_OR_RETURN(std::vector<cloud::InstanceType> catalog,
                   aws::LoadCatalog(options.catalog, catalog_options));
  return std::unique_ptr<op::CloudBackend>(std::make_unique<SimBackend>(
      std::move(catalog), clock, catalog_options.region,
      cloud::NodeBooterOptions{
          .boot_delay = options.sim_node_boot_delay.value(),
          .boot_spread = options.sim_node_boot_spread_percent / 100.0,
          // Each run of the controller boots its machines at other points of the spread.
          .seed = std::random_device()()}));
}

}  // namespace karpenter::simulate
