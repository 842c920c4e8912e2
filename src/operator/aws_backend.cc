#include "operator/aws_backend.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "aws/provider/aws_provider.h"
#include "common/base64.h"
#include "kube/http/server_version.h"

namespace karpenter::op {
namespace {

class AwsBackend final : public CloudBackend {
 public:
  AwsBackend(std::unique_ptr<kube::http::RefreshingServerVersion> version,
             std::unique_ptr<aws::AwsProvider> provider)
      : version_(std::move(version)), provider_(std::move(provider)) {}

  cloud::CloudProvider& cloud() override { return provider_->cloud(); }

  Result<std::vector<std::jthread>> Attach(kube::Client& client, Manager& manager,
                                           const Logger& logger) override {
    provider_->RegisterMetrics(manager.registry());
    if (cloud::OverlayStore* overlays = manager.overlays()) provider_->UseOverlays(*overlays);
    aws::NodeClassController& node_classes = provider_->Attach(
        client, manager.cluster(), manager.events(), logger.Named("ec2nodeclass"));
    manager.AddPeriodic(
        PeriodicController{"ec2nodeclass controller", std::chrono::seconds(5),
                           [&node_classes] { return node_classes.ReconcileAll(); }});
    // Each refresh happens only when its data is older than 12 hours (or a refresh failed). A
    // failed one (throttled at start-up, say) is retried after 5 s, then 10 s, … up to a minute:
    // until spot prices are known, no spot offering can launch.
    aws::AwsProvider& provider = *provider_;
    manager.AddPeriodic(PeriodicController{
        "instance type and price refresh", std::chrono::minutes(1),
        [&provider] { return provider.RefreshCatalog(); }, std::chrono::seconds(5)});
    ASSIGN_OR_RETURN(std::optional<std::jthread> handler,
                     provider_->StartInterruptionHandling(
                         manager.registry(), manager.metrics(), manager.events(), client,
                         manager.cluster(), logger.Named("interruption")));
    std::vector<std::jthread> threads;
    if (handler) threads.push_back(std::move(*handler));
    return threads;
  }

 private:
  // Read by the provider's resolver: declared first, destroyed after the provider.
  std::unique_ptr<kube::http::RefreshingServerVersion> version_;
  std::unique_ptr<aws::AwsProvider> provider_;
};

}  // namespace

Result<std::unique_ptr<CloudBackend>> NewAwsBackend(const Options& options,
                                                    const kube::http::Config& config,
                                                    const Clock& clock) {
  aws::AwsProviderOptions aws_options;
  aws_options.cluster_name = options.cluster_name;
  aws_options.region = options.aws_region;
  aws_options.cluster_endpoint = options.cluster_endpoint;
  // Out of the cluster, the kubeconfig's server is one nodes can reach too; in it, the service
  // address is not.
  if (!options.kubeconfig.empty()) aws_options.fallback_endpoint = config.server;
  aws_options.certificate_authority = options.cluster_ca_bundle.empty()
                                          ? EncodeBase64(config.certificate_authority)
                                          : options.cluster_ca_bundle;
  aws_options.isolated_vpc = options.isolated_vpc;
  aws_options.vm_memory_overhead_percent = options.vm_memory_overhead_percent;
  aws_options.reserved_enis = options.reserved_enis;
  aws_options.interruption_queue = options.interruption_queue;
  aws_options.refresh.amis = options.ami_refresh_interval.value();
  aws_options.refresh.subnets = options.subnet_refresh_interval.value();
  aws_options.refresh.security_groups = options.security_group_refresh_interval.value();
  aws_options.dry_run = !options.disable_dry_run;
  aws_options.reserved_capacity = options.FeatureGate("ReservedCapacity");
  Result<std::string> version = kube::http::ServerVersion(config);
  if (!version.ok()) {
    return Error("the API server's Kubernetes version: " + version.error().message);
  }
  // Read again every 15 minutes: after a control-plane upgrade, aliases resolve to the new
  // version's AMIs at the next AMI refresh, and the nodes drift onto them (AMIDrift).
  auto refreshing = std::make_unique<kube::http::RefreshingServerVersion>(
      std::move(*version), [config] { return kube::http::ServerVersion(config); }, clock,
      std::chrono::minutes(15));
  aws_options.kubernetes_version = [version_source = refreshing.get()] {
    return version_source->Get();
  };
  ASSIGN_OR_RETURN(
      std::unique_ptr<aws::AwsProvider> provider,
      aws::AwsProvider::Create(aws::Environment::OfProcess(), std::move(aws_options), clock));
  return std::unique_ptr<CloudBackend>(
      std::make_unique<AwsBackend>(std::move(refreshing), std::move(provider)));
}

}  // namespace karpenter::op
