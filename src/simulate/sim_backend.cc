#include "simulate/sim_backend.h"

#include <chrono>
#include <optional>
#include <random>
#include <utility>

#include "aws/api/aws_clients.h"
#include "aws/api/sqs_api.h"
#include "aws/catalog/load_catalog.h"
#include "aws/instancetypes/unavailable_offerings.h"
#include "aws/provider/interruption_controller.h"
#include "aws/sdk/curl_transport.h"
#include "aws/sdk/environment.h"
#include "cloud/sim/sim_cloud_provider.h"
#include "kube/http/http_client.h"
#include "simulate/simulated_machines.h"

namespace karpenter::simulate {
namespace {

// With an interruption queue, the controller's own interruption controller reads it (the queue
// is real: SQS, or moto in the tests) and acts on the simulated machines' NodeClaims; the
// offerings it records as interrupted are unavailable to the simulated EC2 until they expire.
class SimBackend final : public op::CloudBackend {
 public:
  SimBackend(std::vector<cloud::InstanceType> catalog, const Clock& clock, std::string region,
             std::unique_ptr<kube::Client> machines_client, cloud::NodeBooterOptions boot,
             std::string interruption_queue)
      : clock_(clock),
        region_(std::move(region)),
        unavailable_(clock),
        cloud_(std::move(catalog), clock, region_),
        boot_(boot),
        machines_client_(std::move(machines_client)),
        interruption_queue_(std::move(interruption_queue)) {
    cloud_.ConsultAvailability(unavailable_);
  }

  cloud::CloudProvider& cloud() override { return cloud_; }

  Result<std::vector<std::jthread>> Attach(kube::Client& client, op::Manager& manager,
                                           const Logger& logger) override {
    machines_.emplace(manager, *machines_client_, cloud_, clock_, logger.Named("controller"), boot_,
                      BootLoop::kOwnThread);
    if (cloud::OverlayStore* overlays = manager.overlays()) cloud_.UseOverlays(*overlays);
    std::vector<std::jthread> threads;
    threads.emplace_back([this](const std::stop_token& stop) { machines_->RunBootLoop(stop); });
    if (interruption_queue_.empty()) return threads;
    ASSIGN_OR_RETURN(aws::AwsClients clients, aws::AwsClients::Create(aws::Environment::OfProcess(),
                                                                      region_, transport_, clock_));
    clients_.emplace(std::move(clients));
    sqs_.emplace(clients_->sqs());
    interruption_.emplace(*sqs_, interruption_queue_, client, manager.cluster(), manager.events(),
                          unavailable_, manager.registry(), manager.metrics(), clock_,
                          logger.Named("interruption"), /*reservations=*/nullptr, "sim");
    threads.emplace_back([this](const std::stop_token& stop) { interruption_->Run(stop); });
    return threads;
  }

 private:
  const Clock& clock_;
  const std::string region_;
  aws::UnavailableOfferings unavailable_;  // consulted by cloud_
  cloud::SimCloudProvider cloud_;
  const cloud::NodeBooterOptions boot_;
  const std::unique_ptr<kube::Client> machines_client_;  // the kubelets' own: no rate limit
  std::optional<SimulatedMachines> machines_;
  const std::string interruption_queue_;  // empty: no interruption handling
  aws::CurlTransport transport_;
  std::optional<aws::AwsClients> clients_;
  std::optional<aws::SqsApi> sqs_;
  std::optional<aws::InterruptionController> interruption_;
};

}  // namespace

Result<std::unique_ptr<op::CloudBackend>> NewSimBackend(const op::Options& options,
                                                        const kube::http::Config& config,
                                                        const Clock& clock) {
  aws::AwsCatalogOptions catalog_options;
  if (!options.aws_region.empty()) catalog_options.region = options.aws_region;
  catalog_options.vm_memory_overhead_percent = options.vm_memory_overhead_percent;
  catalog_options.reserved_enis = options.reserved_enis;
  ASSIGN_OR_RETURN(std::vector<cloud::InstanceType> catalog,
                   aws::LoadCatalog(options.catalog, catalog_options));
  // The machines' kubelets register with a client of their own, not behind the controller's rate
  // limit.
  kube::http::Config machines_config = config;
  machines_config.qps = 0;
  ASSIGN_OR_RETURN(std::unique_ptr<kube::Client> machines_client,
                   kube::http::NewClient(machines_config));
  return std::unique_ptr<op::CloudBackend>(std::make_unique<SimBackend>(
      std::move(catalog), clock, catalog_options.region, std::move(machines_client),
      cloud::NodeBooterOptions{
          .boot_delay = options.sim_node_boot_delay.value(),
          .boot_spread = options.sim_node_boot_spread_percent / 100.0,
          // Each run of the controller boots its machines at other points of the spread.
          .seed = std::random_device()()},
      options.interruption_queue));
}

}  // namespace karpenter::simulate
