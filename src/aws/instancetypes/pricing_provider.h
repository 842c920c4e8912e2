#pragma once
// The prices the AWS provider puts on offerings: on-demand per instance type and spot per
// instance type and zone, in USD per hour.
//
// Sources:
// - On-demand: seeded from the embedded table (aws/catalog) when the region is the table's;
//   for other regions it starts empty (on-demand offerings stay unavailable until the first
//   refresh), except in an isolated VPC, which can never reach the Pricing API: there the
//   embedded table stands in as an approximation (relative prices are what choices depend on).
//   Refreshed from the Pricing API (PricingApi::GetOnDemandPrices) unless the VPC is isolated.
// - Spot: DescribeSpotPriceHistory (Linux/UNIX, from now), the latest price per type and zone.
//   Until the first successful spot refresh, a type's spot price is modelled from its on-demand
//   price with aws::SpotPriceModel (so spot offerings exist from startup, at plausible prices).
//   After it, EC2's answer is authoritative: a type/zone EC2 gave no price for has none (EC2
//   reports a price wherever spot is offered), so that offering is unavailable.
//
// Refresh() fetches each source when its data is older than the refresh interval (or was never
// fetched); a failed fetch keeps the previous data and is reported, and is retried by the next
// Refresh(). An answer with no prices at all counts as a failure.
//
// Thread-safe. AWS calls happen only inside Refresh(), one at a time; the ServiceClients behind
// `ec2` and `pricing` must not be used concurrently by others while Refresh() runs.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "aws/api/ec2_api.h"
#include "aws/api/pricing_api.h"
#include "aws/catalog/spot_price_model.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"

namespace karpenter::aws {

struct PricingProviderOptions {
  std::string region;
  bool isolated_vpc = false;  // skip the Pricing API (no route to it)
  std::chrono::milliseconds refresh_interval = std::chrono::hours(12);
  uint64_t spot_seed = aws::kDefaultSpotSeed;  // for the modelled spot prices
};

class PricingProvider {
 public:
  // `ec2`, `pricing` (may be null: on-demand prices are then never refreshed) and `clock` must
  // outlive this.
  PricingProvider(Ec2Api& ec2, PricingApi* pricing, const Clock& clock,
                  PricingProviderOptions options);

  // Fetches the sources older than the refresh interval (all of them when `force`). Errors name
  // the source ("on-demand prices (Pricing API GetProducts): …"); both are tried even when one
  // fails, and the error reports every failure.
  Status Refresh(bool force = false);

  std::optional<double> OnDemandPrice(std::string_view instance_type) const;
  std::optional<double> SpotPrice(std::string_view instance_type, std::string_view zone) const;

  // Changes whenever the prices change (a cache key for things built from them).
  uint64_t Generation() const;
  // When each source last refreshed successfully (nullopt: never; the seed does not count).
  std::optional<MonoTime> OnDemandUpdated() const;
  std::optional<MonoTime> SpotUpdated() const;
  size_t on_demand_count() const;
  size_t spot_count() const;  // (type, zone) prices from EC2

 private:
  using ZonePrices = std::map<std::string, double, std::less<>>;
  Status RefreshOnDemand() REQUIRES(refresh_mutex_);
  Status RefreshSpot() REQUIRES(refresh_mutex_);

  Ec2Api& ec2_;
  PricingApi* pricing_;
  const Clock& clock_;
  const PricingProviderOptions options_;
  const aws::SpotPriceModel spot_model_;

  Mutex refresh_mutex_;  // one Refresh at a time (the API clients are not thread-safe)
  mutable Mutex mutex_;
  std::map<std::string, double, std::less<>> on_demand_ GUARDED_BY(mutex_);
  std::map<std::string, ZonePrices, std::less<>> spot_ GUARDED_BY(mutex_);  // by type, zone
  std::optional<MonoTime> on_demand_updated_ GUARDED_BY(mutex_);
  std::optional<MonoTime> spot_updated_ GUARDED_BY(mutex_);
  uint64_t generation_ GUARDED_BY(mutex_) = 1;
};

}  // namespace karpenter::aws
