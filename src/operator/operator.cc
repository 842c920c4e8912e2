#include "operator/operator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "aws/provider/aws_provider.h"
#include "cloud/catalog.h"
#include "cloud/sim_cloud_provider.h"
#include "common/base64.h"
#include "kube/http/config.h"
#include "kube/http/http_client.h"
#include "kube/http/server_version.h"
#include "kube/leader_election.h"
#include "operator/health_server.h"
#include "operator/manager.h"

namespace karpenter::op {
namespace {

std::string Identity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  return fmt::format("{}_{:08x}", host[0] != '\0' ? host : "karpenter", random());
}

Result<std::unique_ptr<cloud::SimCloudProvider>> NewSimCloudProvider(const Options& options,
                                                                     const Clock& clock) {
  cloud::AwsCatalogOptions catalog_options;
  if (!options.aws_region.empty()) catalog_options.region = options.aws_region;
  catalog_options.vm_memory_overhead_percent = options.vm_memory_overhead_percent;
  catalog_options.reserved_enis = options.reserved_enis;
  Result<std::vector<cloud::InstanceType>> catalog =
      cloud::LoadCatalog(options.catalog, catalog_options);
  if (!catalog.ok()) return catalog.error();
  return std::make_unique<cloud::SimCloudProvider>(std::move(*catalog), clock,
                                                   catalog_options.region);
}

// The AWS provider for the cluster the controller runs against: the endpoint from the options or
// EKS, the CA bundle from the options or the API server's, the Kubernetes version from the API
// server.
Result<std::unique_ptr<aws::AwsProvider>> NewAwsProvider(const Options& options,
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
  Result<std::string> version = kube::http::ServerVersion(config);
  if (!version.ok()) {
    return Error("the API server's Kubernetes version: " + version.error().message);
  }
  aws_options.kubernetes_version = std::move(*version);
  return aws::AwsProvider::Create(aws::Environment::OfProcess(), std::move(aws_options), clock);
}

}  // namespace

Status RunOperator(const Options& options, const Logger& logger, const std::stop_token& stop) {
  const RealClock clock;
  Result<kube::http::Config> config = options.kubeconfig.empty()
                                          ? kube::http::InClusterConfig()
                                          : kube::http::LoadKubeconfig(options.kubeconfig);
  if (!config.ok()) return config.error();
  Result<std::unique_ptr<kube::Client>> client = kube::http::NewClient(*config);
  if (!client.ok()) return client.error();
  std::unique_ptr<cloud::SimCloudProvider> sim;
  std::unique_ptr<aws::AwsProvider> aws;
  if (options.cloud_provider == CloudProviderKind::kAws) {
    Result<std::unique_ptr<aws::AwsProvider>> provider = NewAwsProvider(options, *config, clock);
    if (!provider.ok()) return provider.error();
    aws = std::move(*provider);
  } else {
    Result<std::unique_ptr<cloud::SimCloudProvider>> provider = NewSimCloudProvider(options, clock);
    if (!provider.ok()) return provider.error();
    sim = std::move(*provider);
  }
  cloud::CloudProvider& cloud = aws ? aws->cloud() : *sim;

  ManagerOptions manager_options;
  manager_options.batch.idle = options.batch_idle_duration.value();
  manager_options.batch.max = options.batch_max_duration.value();
  manager_options.disruption.engine.spot_to_spot_consolidation =
      options.FeatureGate("SpotToSpotConsolidation");
  manager_options.sim_cloud = sim.get();
  manager_options.seed = std::random_device()();
  Manager manager(**client, cloud, clock, logger.Named("controller"), manager_options);
  // Declared after the manager: it reads the manager's informers, so it must stop first.
  std::optional<std::jthread> interruption;
  if (aws) {
    aws::NodeClassController& node_classes =
        aws->Attach(**client, manager.cluster(), logger.Named("ec2nodeclass"));
    manager.AddPeriodic(
        PeriodicController{"ec2nodeclass controller", std::chrono::seconds(5),
                           [&node_classes] { return node_classes.ReconcileAll(); }});
    Result<std::optional<std::jthread>> handler =
        aws->StartInterruptionHandling(**client, manager.cluster(), logger.Named("interruption"));
    if (!handler.ok()) return handler.error();
    interruption = std::move(*handler);
    // Each refresh happens only when its data is older than 12 hours (or a refresh failed).
    manager.AddPeriodic(PeriodicController{"instance type and price refresh",
                                           std::chrono::minutes(1),
                                           [&aws] { return aws->RefreshCatalog(); }});
  }

  HealthServerConfig health;
  health.port = options.health_probe_port;
  health.ready = [&manager]() -> Status {
    if (manager.cluster().synced()) return {};
    return Error("informer caches are not synced yet");
  };
  Result<std::unique_ptr<HealthServer>> health_server = HealthServer::Start(std::move(health));
  if (!health_server.ok()) return health_server.error();
  logger.Info("serving health probes", {{"port", (*health_server)->port()}});

  std::unique_ptr<kube::LeaderElector> elector;
  if (options.leader_elect) {
    kube::LeaderElectionOptions election;
    election.namespace_ = options.leader_election_namespace;
    election.lease_name = options.leader_election_name;
    election.identity = Identity();
    elector = std::make_unique<kube::LeaderElector>(**client, clock, election);
    logger.Info("waiting for leadership",
                {{"lease", election.namespace_ + "/" + election.lease_name},
                 {"identity", election.identity}});
    while (!stop.stop_requested()) {
      Result<bool> leading = elector->TryAcquireOrRenew();
      if (leading.ok() && *leading) break;
      if (!leading.ok()) logger.Warn("leader election", {logkey::Err(leading.error())});
      std::this_thread::sleep_for(election.follower_period);
    }
    if (stop.stop_requested()) return {};
    logger.Info("acquired leadership", {{"identity", election.identity}});
  }

  std::stop_source manager_stop;
  std::jthread controllers([&manager, token = manager_stop.get_token()] { manager.Run(token); });
  Status outcome;
  if (elector) {
    auto last_renewed = clock.Now();
    while (!stop.stop_requested()) {
      std::this_thread::sleep_for(elector->options().renew_period);
      Result<bool> leading = elector->TryAcquireOrRenew();
      if (leading.ok() && *leading) {
        last_renewed = clock.Now();
      } else if (clock.Now() - last_renewed >= elector->options().lease_duration) {
        outcome = Error("lost leadership: the lease was not renewed in time");
        break;
      }
    }
  } else {
    while (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  manager_stop.request_stop();
  controllers.join();
  if (elector && outcome.ok()) (void)elector->Release();
  (*health_server)->Stop();
  logger.Info("stopped");
  return outcome;
}

}  // namespace karpenter::op
