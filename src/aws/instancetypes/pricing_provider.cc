#include "aws/instancetypes/pricing_provider.h"

#include <fmt/format.h>

#include <utility>

#include "aws/catalog/aws_catalog.h"
#include "common/mutex.h"

namespace karpenter::aws {
namespace {

std::map<std::string, double, std::less<>> EmbeddedOnDemandPrices() {
  std::map<std::string, double, std::less<>> prices;
  for (const aws::AwsInstanceTypeFacts& facts : aws::EmbeddedAwsCatalogData().instance_types) {
    if (facts.on_demand_price > 0) {
      prices.emplace_hint(prices.end(), facts.name, facts.on_demand_price);
    }
  }
  return prices;
}

bool Stale(const std::optional<MonoTime>& updated, MonoTime now,
           std::chrono::milliseconds interval) {
  return !updated.has_value() || now - *updated >= interval;
}

}  // namespace

PricingProvider::PricingProvider(Ec2Api& ec2, PricingApi* pricing, const Clock& clock,
                                 PricingProviderOptions options)
    : ec2_(ec2),
      pricing_(pricing),
      clock_(clock),
      options_(std::move(options)),
      spot_model_(options_.spot_seed) {
  if (options_.region == aws::EmbeddedAwsCatalogData().region || options_.isolated_vpc) {
    on_demand_ = EmbeddedOnDemandPrices();
  }
}

Status PricingProvider::Refresh(bool force) {
  MutexLock refresh_lock(refresh_mutex_);
  const MonoTime now = clock_.Monotonic();
  bool on_demand_due = false;
  bool spot_due = false;
  {
    MutexLock lock(mutex_);
    on_demand_due = force || Stale(on_demand_updated_, now, options_.refresh_interval);
    spot_due = force || Stale(spot_updated_, now, options_.refresh_interval);
  }
  std::string errors;
  if (on_demand_due && !options_.isolated_vpc && pricing_ != nullptr) {
    if (Status status = RefreshOnDemand(); !status.ok()) errors = status.error().message;
  }
  if (spot_due) {
    if (Status status = RefreshSpot(); !status.ok()) {
      if (!errors.empty()) errors += "; ";
      errors += status.error().message;
    }
  }
  if (!errors.empty()) return Error{"refreshing prices (keeping the previous ones): " + errors};
  return {};
}

Status PricingProvider::RefreshOnDemand() {
  Result<OnDemandPriceList> list = pricing_->GetOnDemandPrices(options_.region);
  if (!list.ok()) return Error{"on-demand prices: " + list.error().message};
  if (list->prices.empty()) {
    return Error{fmt::format(
        "on-demand prices: the Pricing API gave no price for region {} ({} entries, {} skipped{})",
        options_.region, list->entries, list->skipped,
        list->first_problem.empty() ? "" : ": first: " + list->first_problem)};
  }
  MutexLock lock(mutex_);
  on_demand_ = std::move(list->prices);
  on_demand_updated_ = clock_.Monotonic();
  ++generation_;
  return {};
}

Status PricingProvider::RefreshSpot() {
  Result<std::vector<aws::SpotPrice>> prices = ec2_.DescribeSpotPriceHistory(clock_.Now());
  if (!prices.ok()) return Error{"spot prices: " + prices.error().message};
  if (prices->empty()) {
    return Error{"spot prices: DescribeSpotPriceHistory gave no Linux/UNIX price in region " +
                 options_.region};
  }
  std::map<std::string, ZonePrices, std::less<>> spot;
  for (const aws::SpotPrice& price : *prices) {
    spot[price.instance_type][price.zone] = price.price;
  }
  MutexLock lock(mutex_);
  spot_ = std::move(spot);
  spot_updated_ = clock_.Monotonic();
  ++generation_;
  return {};
}

std::optional<double> PricingProvider::OnDemandPrice(std::string_view instance_type) const {
  MutexLock lock(mutex_);
  auto it = on_demand_.find(instance_type);
  if (it == on_demand_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> PricingProvider::SpotPrice(std::string_view instance_type,
                                                 std::string_view zone) const {
  MutexLock lock(mutex_);
  if (spot_updated_.has_value()) {
    auto type = spot_.find(instance_type);
    if (type == spot_.end()) return std::nullopt;
    auto price = type->second.find(zone);
    if (price == type->second.end()) return std::nullopt;
    return price->second;
  }
  auto on_demand = on_demand_.find(instance_type);
  if (on_demand == on_demand_.end()) return std::nullopt;
  const double modelled = spot_model_.Price(instance_type, zone, on_demand->second);
  if (!(modelled > 0)) return std::nullopt;
  return modelled;
}

uint64_t PricingProvider::Generation() const {
  MutexLock lock(mutex_);
  return generation_;
}

std::optional<MonoTime> PricingProvider::OnDemandUpdated() const {
  MutexLock lock(mutex_);
  return on_demand_updated_;
}

std::optional<MonoTime> PricingProvider::SpotUpdated() const {
  MutexLock lock(mutex_);
  return spot_updated_;
}

size_t PricingProvider::on_demand_count() const {
  MutexLock lock(mutex_);
  return on_demand_.size();
}

size_t PricingProvider::spot_count() const {
  MutexLock lock(mutex_);
  size_t count = 0;
  for (const auto& [type, zones] : spot_) count += zones.size();
  return count;
}

}  // namespace karpenter::aws
