#pragma once
// A simulated EC2 on an instance-type catalog: launches are instant and always succeed unless an
// offering was made unavailable, prices are the catalog's. Instances live in memory; something
// else plays their kubelets (cloud/sim/node_booter.h creates their Node objects).

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cloud/node_overlays.h"
#include "cloud/offering_availability.h"
#include "common/clock.h"
#include "common/mutex.h"

namespace karpenter::cloud {

class SimCloudProvider final : public CloudProvider {
 public:
  SimCloudProvider(std::vector<InstanceType> catalog, const Clock& clock, std::string region);

  Result<Instance> Create(const api::NodeClaim& node_claim) override;
  Status Delete(std::string_view provider_id) override;
  Result<Instance> Get(std::string_view provider_id) override;
  Result<std::vector<Instance>> List() override;
  Result<std::shared_ptr<const std::vector<InstanceType>>> GetInstanceTypes(
      const api::NodePool& node_pool) override;
  std::span<const RepairPolicy> RepairPolicies() const override { return Ec2RepairPolicies(); }
  std::string_view Name() const override { return "sim"; }

  // Takes over an instance launched before a restart (the booter recovers them from their Nodes),
  // so it is listed, found and deleted like one launched here.
  void Adopt(Instance instance);

  // Fault injection: while unavailable, launches skip the offering (as after an EC2
  // InsufficientInstanceCapacity error) and GetInstanceTypes reports it unavailable.
  void SetOfferingAvailable(std::string_view instance_type, std::string_view zone,
                            std::string_view capacity_type, bool available);
  // Offerings `availability` reports unavailable are unavailable here too (launches skip them,
  // GetInstanceTypes reports them), as when the controller's interruption controller records a
  // spot interruption. `availability` must outlive this.
  void ConsultAvailability(const OfferingAvailability& availability);
  // NodeOverlays (their gate): a launch chooses by the prices `overlays` gives, as the AWS
  // provider's fleet does, and the instance reports the capacity they add — what its device
  // plugins would; the bill stays the catalog's. `overlays` must outlive this.
  void UseOverlays(OverlayStore& overlays);
  // Counts launches (and adoptions): unchanged means no new instance since.
  uint64_t launches() const { return launches_.load(std::memory_order_relaxed); }

  // The type is retired: GetInstanceTypes no longer lists it (its running instances stay).
  void RemoveInstanceType(std::string_view instance_type);

 private:
  // The catalog with what `consulted_` reports applied; rebuilt when either changes.
  std::shared_ptr<const std::vector<InstanceType>> Offered() REQUIRES(mutex_);

  const Clock& clock_;
  const std::string region_;
  Mutex mutex_;
  // Replaced, never mutated.
  std::shared_ptr<const std::vector<InstanceType>> catalog_ GUARDED_BY(mutex_);
  const OfferingAvailability* consulted_ GUARDED_BY(mutex_) = nullptr;
  OverlayStore* overlays_ GUARDED_BY(mutex_) = nullptr;
  std::shared_ptr<const std::vector<InstanceType>> offered_ GUARDED_BY(mutex_);  // null: stale
  uint64_t offered_seq_num_ GUARDED_BY(mutex_) = 0;
  std::map<std::string, Instance, std::less<>> instances_ GUARDED_BY(mutex_);  // by provider ID
  std::map<std::string, std::string, std::less<>> by_node_claim_ GUARDED_BY(mutex_);
  std::map<std::string, size_t, std::less<>> per_zone_ GUARDED_BY(mutex_);  // instances running
  uint64_t launched_ GUARDED_BY(mutex_) = 0;
  std::atomic<uint64_t> launches_{0};
};

}  // namespace karpenter::cloud
