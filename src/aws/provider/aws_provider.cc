#include "aws/provider/aws_provider.h"

#include <utility>

namespace karpenter::aws {
namespace {

PricingProviderOptions PricingOptions(const AwsProviderOptions& options) {
  PricingProviderOptions out;
  out.region = options.region;
  out.isolated_vpc = options.isolated_vpc;
  return out;
}

// The counts go where the ReservedCapacity gate lets them; null turns reservations off.
ReservationCounts* Counts(const AwsProviderOptions& options, ReservationCounts& counts) {
  return options.reserved_capacity ? &counts : nullptr;
}

InstanceTypeProviderOptions InstanceTypeOptions(const AwsProviderOptions& options,
                                                ReservationCounts& counts) {
  InstanceTypeProviderOptions out;
  out.reservation_counts = Counts(options, counts);
  out.region = options.region;
  out.vm_memory_overhead_percent = options.vm_memory_overhead_percent;
  out.reserved_enis = options.reserved_enis;
  return out;
}

NodeClassResolverOptions ResolverOptions(const AwsProviderOptions& options,
                                         ReservationCounts& counts) {
  NodeClassResolverOptions out;
  out.reserved_capacity = options.reserved_capacity;
  out.reservation_counts = Counts(options, counts);
  out.cluster_name = options.cluster_name;
  out.region = options.region;
  out.kubernetes_version = options.kubernetes_version;
  return out;
}

AwsCloudProviderOptions CloudOptions(const AwsProviderOptions& options, ReservationCounts& counts) {
  AwsCloudProviderOptions out;
  out.reservation_counts = Counts(options, counts);
  out.cluster_name = options.cluster_name;
  out.region = options.region;
  out.cluster_endpoint = options.cluster_endpoint;
  out.certificate_authority = options.certificate_authority;
  out.service_cidr = options.service_cidr;
  return out;
}

}  // namespace

Status ResolveClusterJoin(EksApi& eks, AwsProviderOptions& options) {
  if (!options.cluster_endpoint.empty() && !options.certificate_authority.empty() &&
      !options.service_cidr.empty()) {
    return {};
  }
  Result<EksCluster> cluster = eks.DescribeCluster(options.cluster_name);
  if (!cluster.ok()) {
    if (!options.cluster_endpoint.empty()) return {};  // the rest is optional
    if (options.fallback_endpoint.empty()) {
      return Error(
          "AWS provider: the cluster endpoint is not set (--cluster-endpoint) and EKS "
          "could not say: " +
          cluster.error().message);
    }
    options.cluster_endpoint = options.fallback_endpoint;
    return {};
  }
  if (options.cluster_endpoint.empty()) options.cluster_endpoint = cluster->endpoint;
  if (options.certificate_authority.empty()) {
    options.certificate_authority = cluster->certificate_authority;
  }
  if (options.service_cidr.empty()) {
    options.service_cidr = !cluster->service_ipv4_cidr.empty() ? cluster->service_ipv4_cidr
                                                               : cluster->service_ipv6_cidr;
  }
  return {};
}

Result<std::unique_ptr<AwsProvider>> AwsProvider::Create(const Environment& environment,
                                                         AwsProviderOptions options,
                                                         const Clock& clock) {
  if (options.cluster_name.empty()) return Error("AWS provider: no cluster name given");
  if (options.region.empty()) options.region = std::string(environment.Region());
  if (options.region.empty()) {
    return Error("AWS provider: no region: set AWS_REGION (or --aws-region)");
  }
  auto transport = std::make_unique<CurlTransport>();
  ASSIGN_OR_RETURN(AwsClients clients,
                   AwsClients::Create(environment, options.region, *transport, clock));
  EksApi eks(clients.eks());
  RETURN_IF_ERROR(ResolveClusterJoin(eks, options));
  return std::unique_ptr<AwsProvider>(new AwsProvider(environment, std::move(options), clock,
                                                      std::move(transport), std::move(clients)));
}

AwsProvider::AwsProvider(Environment environment, AwsProviderOptions options, const Clock& clock,
                         std::unique_ptr<CurlTransport> transport, AwsClients clients)
    : environment_(std::move(environment)),
      options_(std::move(options)),
      clock_(clock),
      transport_(std::move(transport)),
      clients_(std::move(clients)),
      ec2_(clients_.ec2()),
      ssm_(clients_.ssm()),
      iam_(clients_.iam()),
      pricing_api_(clients_.pricing()),
      unavailable_(clock),
      reservation_counts_(clock),
      pricing_(ec2_, options_.isolated_vpc ? nullptr : &pricing_api_, clock,
               PricingOptions(options_)),
      instance_types_(ec2_, pricing_, unavailable_, clock,
                      InstanceTypeOptions(options_, reservation_counts_)),
      launch_templates_(ec2_, options_.cluster_name, clock),
      resolver_(ec2_, ssm_, iam_, ResolverOptions(options_, reservation_counts_), clock) {
  NodeClassLookup lookup = [this](std::string_view name) -> std::optional<api::EC2NodeClass> {
    if (cluster_ == nullptr) return std::nullopt;
    std::optional<kube::Object> object = cluster_->node_classes().Get(name);
    if (!object.has_value()) return std::nullopt;
    return controllers::DecodeEC2NodeClass(*object);
  };
  cloud_ = std::make_unique<AwsCloudProvider>(ec2_, instance_types_, unavailable_,
                                              launch_templates_, std::move(lookup),
                                              CloudOptions(options_, reservation_counts_), clock);
}

NodeClassController& AwsProvider::Attach(kube::Client& client, controllers::ClusterCache& cluster,
                                         kube::EventRecorder& events, Logger logger) {
  cluster_ = &cluster;
  LaunchAuthorizationCheck check;
  if (options_.dry_run) {
    check = [this](const api::EC2NodeClass& node_class) {
      return cloud_->CheckLaunchAuthorization(node_class);
    };
  }
  node_class_controller_ =
      std::make_unique<NodeClassController>(client, cluster, events, resolver_, launch_templates_,
                                            clock_, std::move(logger), options_.refresh, check);
  return *node_class_controller_;
}

Result<std::optional<std::jthread>> AwsProvider::StartInterruptionHandling(
    prometheus::Registry& registry, controllers::Metrics& metrics, kube::EventRecorder& events,
    kube::Client& client, controllers::ClusterCache& cluster, Logger logger) {
  if (options_.interruption_queue.empty()) return std::optional<std::jthread>();
  interruption_transport_ = std::make_unique<CurlTransport>();
  ASSIGN_OR_RETURN(AwsClients clients, AwsClients::Create(environment_, options_.region,
                                                          *interruption_transport_, clock_));
  interruption_clients_.emplace(std::move(clients));
  sqs_.emplace(interruption_clients_->sqs());
  interruption_controller_ = std::make_unique<InterruptionController>(
      *sqs_, options_.interruption_queue, client, cluster, events, unavailable_, registry, metrics,
      clock_, std::move(logger), Counts(options_, reservation_counts_));
  return std::optional<std::jthread>(
      std::in_place, [this](const std::stop_token& stop) { interruption_controller_->Run(stop); });
}

void AwsProvider::UseOverlays(cloud::OverlayStore& overlays) { cloud_->UseOverlays(overlays); }

void AwsProvider::RegisterMetrics(prometheus::Registry& registry) {
  batch_metrics_ = std::make_unique<FleetBatchMetrics>(registry);
  cloud_->ObserveBatches(batch_metrics_.get());
}

Status AwsProvider::RefreshCatalog() {
  Status prices = pricing_.Refresh();
  Status types = instance_types_.Refresh();
  if (!types.ok()) return types;
  return prices;
}

}  // namespace karpenter::aws
