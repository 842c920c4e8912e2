#pragma once
// The AWS cloud provider (upstream-reference §3, §6): instance types from EC2 for each NodePool's
// EC2NodeClass, launches through launch templates and instant CreateFleet requests, and the
// lifecycle of the instances this cluster owns. NodeClaims launched together whose requests are
// equal share one CreateFleet request for as many instances; each instance is then tagged
// karpenter.sh/nodeclaim with its own NodeClaim. It terminates only instances tagged
// kubernetes.io/cluster/<cluster>=owned and karpenter.sh/nodepool; anything else is refused.
// Offerings EC2 has no capacity for are marked unavailable for a while, so the next plan avoids
// them. With the ReservedCapacity gate, reserved launches go into their reservation with
// capacity-reservations-only and every other launch says none (upstream's targeted mode: open
// reservations are left to what targets them); a full reservation counts as full until it is read
// again. Thread-safe: one call at a time reaches EC2.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/ec2nodeclass.h"
#include "aws/api/ec2_api.h"
#include "aws/instancetypes/instance_type_provider.h"
#include "aws/instancetypes/unavailable_offerings.h"
#include "aws/nodeclass/reservation_counts.h"
#include "aws/provider/fleet_batch_metrics.h"
#include "aws/provider/launch_templates.h"
#include "cloud/cloud_provider.h"
#include "cloud/node_overlays.h"
#include "common/clock.h"
#include "common/mutex.h"

namespace karpenter::aws {

// The EC2NodeClass of that name as the cluster has it now, or nullopt.
using NodeClassLookup = std::function<std::optional<api::EC2NodeClass>(std::string_view name)>;

struct AwsCloudProviderOptions {
  std::string cluster_name;
  std::string region;
  // For the nodes' user data: the API server they join and its CA (base64 of the PEM).
  std::string cluster_endpoint;
  std::string certificate_authority;
  std::string service_cidr;  // "" when unknown: the node's bootstrap discovers it
  // The capacity reservations' counts, which launches and terminations move (must outlive the
  // provider); null when the ReservedCapacity gate is off: nothing is launched as reserved and
  // launches say nothing of reservations (EC2's default: open ones may take them).
  ReservationCounts* reservation_counts = nullptr;
};

// Whether the controller may launch from an EC2NodeClass (its ValidationSucceeded condition):
// `failed_reason` is empty when it may, else upstream's reason
// (CreateLaunchTemplateAuthCheckFailed, CreateFleetAuthCheckFailed, RunInstancesAuthCheckFailed)
// with what EC2 said in `message`.
struct LaunchAuthorization {
  std::string failed_reason;
  std::string message;
};

// EC2 error codes after which an offering is marked unavailable (upstream-reference §6).
bool IsCapacityError(std::string_view code);

// "aws:///us-west-2a/i-0123" → "i-0123"; empty when it is not an AWS provider ID.
std::string InstanceIdOf(std::string_view provider_id);

class AwsCloudProvider final : public cloud::CloudProvider {
 public:
  // The references must outlive the provider.
  AwsCloudProvider(Ec2Api& ec2, InstanceTypeProvider& instance_types,
                   UnavailableOfferings& unavailable, LaunchTemplates& launch_templates,
                   NodeClassLookup node_classes, AwsCloudProviderOptions options,
                   const Clock& clock);

  Result<cloud::Instance> Create(const api::NodeClaim& node_claim) override;
  std::vector<Result<cloud::Instance>> CreateAll(
      std::span<const api::NodeClaim* const> node_claims) override;
  Status Delete(std::string_view provider_id) override;
  Result<cloud::Instance> Get(std::string_view provider_id) override;
  Result<std::vector<cloud::Instance>> List() override;
  Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> GetInstanceTypes(
      const api::NodePool& node_pool) override;
  // The instance's AMI, subnet and security groups against its EC2NodeClass's status (DriftOf);
  // undecided (empty) while the EC2NodeClass is not ready. What instances run is read with one
  // DescribeInstances of every instance this cluster owns, at most every
  // kDriftListInterval, and remembered a while: drift checks come for every NodeClaim.
  Result<std::string> IsDrifted(const api::NodeClaim& node_claim) override EXCLUDES(mutex_);
  std::span<const cloud::RepairPolicy> RepairPolicies() const override {
    return cloud::Ec2RepairPolicies();
  }
  std::string_view Name() const override { return "aws"; }

  // Checks the permissions a launch from `node_class` needs, as upstream does: plans one
  // on-demand (else spot) launch of its cheapest offering (as a NodePool without a name would)
  // and asks EC2 with DryRun whether its CreateFleet, CreateLaunchTemplate and RunInstances would
  // be authorized; nothing is created. An error when the check itself could not be made (no
  // offering, throttling).
  Result<LaunchAuthorization> CheckLaunchAuthorization(const api::EC2NodeClass& node_class)
      EXCLUDES(mutex_);

  // Where each CreateFleet request is counted from now on (null: nowhere); it must outlive the
  // provider.
  void ObserveBatches(FleetBatchMetrics* metrics) EXCLUDES(mutex_);
  // NodeOverlays (their gate): launches choose by the prices `overlays` gives — on demand, the
  // fleet's "prioritized" strategy in the order of those prices, where "lowest-price" would follow
  // EC2's list prices — and report the capacity they add. `overlays` must outlive the provider.
  void UseOverlays(cloud::OverlayStore& overlays) EXCLUDES(mutex_);

 private:
  struct PlannedLaunch;
  // Plans the launch of `launch`'s NodeClaim: its offerings, user data, launch templates and
  // CreateFleet request.
  Status PlanFleet(PlannedLaunch& launch) REQUIRES(mutex_);
  // Sends the CreateFleet request the launches of `group` share, for one instance each, and
  // records what each got in `instances` (at its index).
  void LaunchFleet(std::span<const PlannedLaunch* const> group,
                   std::vector<Result<cloud::Instance>>& instances) REQUIRES(mutex_);
  // Marks the offerings a fleet's capacity errors name unavailable; returns every error, described
  // for the NodeClaims left without an instance.
  std::vector<std::string> RecordFleetErrors(const PlannedLaunch& launch,
                                             const std::vector<FleetError>& errors)
      REQUIRES(mutex_);
  // The launched instances as EC2 describes them (names, launch times), by ID; those it cannot
  // describe yet are missing.
  std::map<std::string, Instance, std::less<>> DescribeLaunched(
      std::span<const FleetInstance> launched) REQUIRES(mutex_);
  // Gives `launched` (of a fleet whose tags were `tags`) to the launch's NodeClaim: tags it with
  // the NodeClaim (and its Name), and returns it as controllers see it.
  Result<cloud::Instance> ClaimInstance(
      const PlannedLaunch& launch, const FleetInstance& launched, const Ec2Tags& tags,
      const std::map<std::string, Instance, std::less<>>& described) REQUIRES(mutex_);
  Result<api::EC2NodeClass> ReadyNodeClass(std::string_view name, std::string_view user) const;
  // The tags every launched resource carries, from which ownership is read back; the NodeClaim's
  // own tag (karpenter.sh/nodeclaim) is added once the instance is launched.
  Ec2Tags OwnershipTags(const api::NodeClaim& node_claim,
                        const api::EC2NodeClass& node_class) const;
  bool Owned(const Instance& instance) const;
  // The instance as controllers see it; type facts (capacity, labels) when the type is known.
  cloud::Instance ToCloudInstance(const Instance& instance, const cloud::InstanceType* type,
                                  const api::NodeClaim* node_claim, double price) const;
  // The instances this cluster owns that have not begun terminating, matching `filters` too.
  Result<std::vector<Instance>> DescribeOwned(const std::vector<QueryFilter>& filters)
      REQUIRES(mutex_);
  // The instance of an AWS provider ID that has not terminated (else reason NotFound).
  Result<Instance> DescribeLive(std::string_view provider_id) REQUIRES(mutex_);
  // The instance `id` as last described (see IsDrifted); nullopt when it is gone or not ours.
  Result<std::optional<Instance>> DescribedForDrift(const std::string& id) REQUIRES(mutex_);
  // Whether an instance launched in `node_class`'s subnets gets a public IPv4 address:
  // spec.associatePublicIPAddress when set, else explicitly false when none of the subnets maps
  // public addresses on launch (so policies that require the field to say false are met, as
  // upstream), else unset (the subnet decides). What DescribeSubnets says is remembered a while.
  Result<std::optional<bool>> AssociatePublicIp(const api::EC2NodeClass& node_class)
      REQUIRES(mutex_);

  Ec2Api& ec2_;
  InstanceTypeProvider& instance_types_;
  UnavailableOfferings& unavailable_;
  LaunchTemplates& launch_templates_;
  NodeClassLookup node_classes_;
  const AwsCloudProviderOptions options_;
  const Clock& clock_;
  // Every public call holds it: the AWS API clients are not thread-safe.
  Mutex mutex_;
  FleetBatchMetrics* batch_metrics_ GUARDED_BY(mutex_) = nullptr;
  cloud::OverlayStore* overlays_ GUARDED_BY(mutex_) = nullptr;
  struct SubnetFact {
    bool maps_public_ip = false;
    MonoTime read;
  };
  std::map<std::string, SubnetFact, std::less<>> subnet_facts_ GUARDED_BY(mutex_);
  struct DescribedInstance {
    Instance instance;
    MonoTime read;
  };
  std::map<std::string, DescribedInstance, std::less<>> described_ GUARDED_BY(mutex_);
  std::optional<MonoTime> described_all_ GUARDED_BY(mutex_);  // the last full listing
};

}  // namespace karpenter::aws
