#pragma once
// Everything `karpenter controller --cloud-provider aws` needs from AWS, built once and owned
// together: the AWS clients (one HTTP transport, one credentials chain), the prices, instance
// types and unavailable offerings, the launch templates, the EC2NodeClass resolver and
// controller, and the cloud provider the controllers launch through.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "aws/api/aws_clients.h"
#include "aws/api/ec2_api.h"
#include "aws/api/eks_api.h"
#include "aws/api/iam_api.h"
#include "aws/api/pricing_api.h"
#include "aws/api/sqs_api.h"
#include "aws/api/ssm_api.h"
#include "aws/instancetypes/instance_type_provider.h"
#include "aws/instancetypes/pricing_provider.h"
#include "aws/instancetypes/unavailable_offerings.h"
#include "aws/nodeclass/node_class_resolver.h"
#include "aws/provider/aws_cloud_provider.h"
#include "aws/provider/fleet_batch_metrics.h"
#include "aws/provider/interruption_controller.h"
#include "aws/provider/launch_templates.h"
#include "aws/provider/node_class_controller.h"
#include "aws/sdk/curl_transport.h"
#include "aws/sdk/environment.h"
#include "cloud/node_overlays.h"
#include "common/clock.h"
#include "common/log.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"

namespace karpenter::aws {

struct AwsProviderOptions {
  std::string cluster_name;
  std::string region;  // empty: AWS_REGION, then AWS_DEFAULT_REGION
  // What nodes join: the API server's endpoint, its CA bundle (base64 of the PEM) and the service
  // CIDR. Those left empty come from EKS DescribeCluster; when EKS does not know the cluster, the
  // endpoint is `fallback_endpoint` (the API server the controller itself talks to, when that is
  // one nodes can reach: not the in-cluster service address).
  std::string cluster_endpoint;
  std::string certificate_authority;
  std::string service_cidr;
  std::string fallback_endpoint;
  // The cluster's Kubernetes version now ("1.31"): which EKS-optimized AMIs aliases resolve to.
  std::function<std::string()> kubernetes_version;
  bool isolated_vpc = false;
  double vm_memory_overhead_percent = 0.075;
  int reserved_enis = 0;
  std::string interruption_queue;  // the SQS queue's name; empty: interruption handling off
  NodeClassRefresh refresh;        // how often EC2NodeClasses are resolved again
  bool dry_run = true;             // check each EC2NodeClass's launch permissions (DryRun)
  bool reserved_capacity = true;   // the ReservedCapacity feature gate
};

// Fills in from EKS DescribeCluster what `options` leave out of how nodes join the cluster (see
// AwsProviderOptions); an error when the endpoint stays unknown.
Status ResolveClusterJoin(EksApi& eks, AwsProviderOptions& options);

class AwsProvider {
 public:
  // Resolves the region, the services' endpoints and what the options leave out of how nodes
  // join the cluster (asking EKS). `clock` must outlive the provider.
  static Result<std::unique_ptr<AwsProvider>> Create(const Environment& environment,
                                                     AwsProviderOptions options,
                                                     const Clock& clock);

  cloud::CloudProvider& cloud() { return *cloud_; }
  UnavailableOfferings& unavailable_offerings() { return unavailable_; }

  // Connects the provider to the cluster's informers: the cloud provider reads EC2NodeClasses
  // from them, and the returned controller (owned here) resolves them. Once.
  NodeClassController& Attach(kube::Client& client, controllers::ClusterCache& cluster,
                              kube::EventRecorder& events, Logger logger);
  // With an interruption queue: a thread handling its messages until the thread is stopped (or
  // destroyed, which waits for the long poll in progress to end: up to 20 s). Declare it after
  // the informers it reads, so it stops first. Once, after Attach.
  // NodeOverlays (their gate) for the launches to choose by (AwsCloudProvider::UseOverlays).
  void UseOverlays(cloud::OverlayStore& overlays);
  Result<std::optional<std::jthread>> StartInterruptionHandling(
      prometheus::Registry& registry, controllers::Metrics& metrics, kube::EventRecorder& events,
      kube::Client& client, controllers::ClusterCache& cluster, Logger logger);
  // Prices, then instance types, when older than their refresh interval.
  Status RefreshCatalog();
  // Counts the CreateFleet batches on `registry` (which must outlive the provider). Once.
  void RegisterMetrics(prometheus::Registry& registry);

  AwsProvider(const AwsProvider&) = delete;
  AwsProvider& operator=(const AwsProvider&) = delete;

 private:
  AwsProvider(Environment environment, AwsProviderOptions options, const Clock& clock,
              std::unique_ptr<CurlTransport> transport, AwsClients clients);

  const Environment environment_;
  const AwsProviderOptions options_;
  const Clock& clock_;
  std::unique_ptr<CurlTransport> transport_;  // on the heap: the clients refer to it
  AwsClients clients_;
  Ec2Api ec2_;
  SsmApi ssm_;
  IamApi iam_;
  PricingApi pricing_api_;
  UnavailableOfferings unavailable_;
  ReservationCounts reservation_counts_;
  PricingProvider pricing_;
  InstanceTypeProvider instance_types_;
  LaunchTemplates launch_templates_;
  NodeClassResolver resolver_;
  controllers::ClusterCache* cluster_ = nullptr;  // set by Attach
  std::unique_ptr<AwsCloudProvider> cloud_;
  std::unique_ptr<FleetBatchMetrics> batch_metrics_;
  std::unique_ptr<NodeClassController> node_class_controller_;
  // The interruption thread's own clients: a ServiceClient and its transport serve one thread.
  std::unique_ptr<CurlTransport> interruption_transport_;
  std::optional<AwsClients> interruption_clients_;
  std::optional<SqsApi> sqs_;
  std::unique_ptr<InterruptionController> interruption_controller_;
};

}  // namespace karpenter::aws
