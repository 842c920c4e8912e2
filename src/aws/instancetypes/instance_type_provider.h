#pragma once
// The instance types an EC2NodeClass can launch, built from what EC2 reports
// (DescribeInstanceTypes and DescribeInstanceTypeOfferings, cached and refreshed every 12 hours)
// with the formulas of aws/catalog/aws_catalog, the PricingProvider's prices and the
// UnavailableOfferings cache.
//
// For a node class: zones = the zones of status.subnets (their zone ids label the offerings);
// amiFamily = EffectiveAmiFamily(); kubelet from spec.kubelet; ephemeral storage on the volume
// EphemeralVolumeSize() names (else the family's default), or with instanceStorePolicy RAID0 on
// the instance store. Types EC2 cannot run
// for us (no hvm, no x86_64/arm64; arm64 for Windows) are skipped, and so are types offered in
// none of the node class's zones. Offerings: each of those zones the type is offered in × each
// capacity type it supports (on-demand, spot); unavailable without a known price or while in
// UnavailableOfferings. With reservation counts (the ReservedCapacity gate), also one reserved
// offering per reservation of status.capacityReservations for the type, in a zone it is offered
// in: priced at the on-demand price / 10^7 as upstream (practically free, yet larger types still
// cost more), with the reservation's count, available while it has room. Types whose offerings are
// all unavailable are kept (the scheduler sees them as unavailable, and they come back when the
// cache entry expires).
//
// The pod-eni (trunking) count is not in DescribeInstanceTypes: it comes from the embedded table
// (VPC limits), 0 for types the table does not know.
//
// Built lists are cached per node class inputs, the unavailable-offerings sequence number, the
// price generation and the described data, so repeated calls return the same shared list.
//
// Thread-safe. AWS calls happen only inside Refresh() (List() refreshes when the data is stale),
// one at a time; the ServiceClient behind `ec2` must not be used concurrently by others meanwhile.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/ec2nodeclass.h"
#include "aws/api/ec2_api.h"
#include "aws/catalog/aws_catalog.h"
#include "aws/instancetypes/pricing_provider.h"
#include "aws/instancetypes/unavailable_offerings.h"
#include "aws/nodeclass/reservation_counts.h"
#include "cloud/instance_type.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"

namespace karpenter::aws {

struct InstanceTypeProviderOptions {
  std::string region;
  double vm_memory_overhead_percent = 0.075;  // operator option vmMemoryOverheadPercent
  int reserved_enis = 0;                      // operator option reservedENIs
  std::chrono::milliseconds refresh_interval = std::chrono::hours(12);
  // After a failed refresh, List() does not try again for this long (Refresh() always tries).
  std::chrono::milliseconds retry_after_failure = std::chrono::minutes(1);
  // The capacity reservations' counts; null: no reserved offerings (the gate is off). Must
  // outlive the provider.
  const ReservationCounts* reservation_counts = nullptr;
};

// A reserved offering's price: its type's on-demand price divided by this, as upstream.
inline constexpr double kReservedPriceDivisor = 1e7;

using InstanceTypeList = std::shared_ptr<const std::vector<cloud::InstanceType>>;

class InstanceTypeProvider {
 public:
  // The references must outlive this.
  InstanceTypeProvider(Ec2Api& ec2, PricingProvider& pricing,
                       const UnavailableOfferings& unavailable, const Clock& clock,
                       InstanceTypeProviderOptions options);

  // Describes the types and offerings again when the data is older than the refresh interval
  // (always when `force`). On failure the previous data stays and the error names the call.
  Status Refresh(bool force = false);

  // The node class's instance types, sorted by name. Refreshes stale data first (see
  // retry_after_failure); errors only when there is no data at all or the node class cannot be
  // used (invalid kubelet or options; the error names the node class and field). A node class
  // without subnets in its status gets an empty list.
  Result<InstanceTypeList> List(const api::EC2NodeClass& node_class);

  // Changes whenever the described data changes.
  uint64_t Generation() const;

 private:
  struct Described {
    std::vector<aws::AwsInstanceTypeDescription> types;                  // launchable ones, by name
    std::map<std::string, std::vector<std::string>, std::less<>> zones;  // type → offered zones
  };
  struct CacheEntry {
    uint64_t seq_num = 0;
    uint64_t price_generation = 0;
    uint64_t data_generation = 0;
    uint64_t reservation_seq_num = 0;
    InstanceTypeList list;
  };
  Status RefreshLocked(bool force) REQUIRES(mutex_);
  // Describes the instance types and their zones anew (replacing described_ on success).
  Status ReadInstanceTypes() REQUIRES(mutex_);

  Ec2Api& ec2_;
  PricingProvider& pricing_;
  const UnavailableOfferings& unavailable_;
  const Clock& clock_;
  const InstanceTypeProviderOptions options_;

  mutable Mutex mutex_;
  std::shared_ptr<const Described> described_ GUARDED_BY(mutex_);
  uint64_t generation_ GUARDED_BY(mutex_) = 0;
  std::optional<MonoTime> updated_ GUARDED_BY(mutex_);
  std::optional<MonoTime> last_failure_ GUARDED_BY(mutex_);
  // By node class inputs.
  std::map<std::string, CacheEntry, std::less<>> cache_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::aws
