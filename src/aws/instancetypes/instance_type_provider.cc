#include "aws/instancetypes/instance_type_provider.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include "api/labels.h"
#include "common/mutex.h"

namespace karpenter::aws {
namespace {

constexpr size_t kMaxCachedLists = 32;

std::string LowerKebab(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    c = c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool Contains(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// The architecture Karpenter would launch the type with: hvm and the first of x86_64 / arm64.
uint8_t Architecture(const InstanceTypeInfo& info) {
  if (!Contains(info.virtualization_types, "hvm")) return aws::kAwsArchUnsupported;
  for (const std::string& arch : info.architectures) {
    if (arch == "x86_64") return aws::kAwsArchAmd64;
    if (arch == "arm64") return aws::kAwsArchArm64;
  }
  return aws::kAwsArchUnsupported;
}

// What DescribeInstanceTypes says, in the builder's terms (as scripts/gen-aws-catalog reads the
// same record for the embedded table).
aws::AwsInstanceTypeDescription Describe(const InstanceTypeInfo& info) {
  aws::AwsInstanceTypeDescription d;
  d.name = info.name;
  d.vcpus = info.vcpus;
  d.memory_mib = info.memory_mib;
  d.arch = Architecture(info);
  d.cpu_manufacturer = LowerKebab(info.cpu_manufacturer);
  d.hypervisor = info.hypervisor;
  d.bare_metal = info.bare_metal;
  d.encryption_in_transit = info.encryption_in_transit;
  d.on_demand = Contains(info.usage_classes, "on-demand");
  d.spot = Contains(info.usage_classes, "spot");
  d.storage_gb = info.local_storage_gb;
  d.nvme =
      info.local_storage_gb > 0 && !info.nvme_support.empty() && info.nvme_support != "unsupported";
  d.network_bandwidth_mbps = std::llround(info.network_bandwidth_gbps * 1000);
  d.enis =
      info.default_network_card_max_enis > 0 ? info.default_network_card_max_enis : info.max_enis;
  d.ipv4_per_eni = info.ipv4_per_eni;
  d.efas = info.efa_max_interfaces;
  // Trunking (pod-eni) limits are not in DescribeInstanceTypes; the embedded VPC limits have them.
  if (const aws::AwsInstanceTypeFacts* facts = aws::FindAwsInstanceTypeFacts(info.name)) {
    d.branch_enis = facts->branch_enis;
  }
  if (!info.gpus.empty()) {
    const AcceleratorDeviceInfo& gpu = info.gpus.front();
    d.gpu_name = LowerKebab(gpu.name);
    d.gpu_manufacturer = LowerKebab(gpu.manufacturer);
    d.gpu_count = gpu.count;
    d.gpu_memory_mib = gpu.memory_mib;
  }
  if (!info.neuron_devices.empty()) {
    for (const AcceleratorDeviceInfo& device : info.neuron_devices) {
      d.neuron_devices += device.count;
      d.neuron_cores += device.count * device.core_count;
    }
    if (info.neuron_devices.size() == 1) {
      d.accelerator_name = LowerKebab(info.neuron_devices.front().name);
      d.accelerator_manufacturer = "aws";
      d.accelerator_count = info.neuron_devices.front().count;
    }
  } else if (info.inference_accelerators.size() == 1) {
    const AcceleratorDeviceInfo& accelerator = info.inference_accelerators.front();
    d.accelerator_name = LowerKebab(accelerator.name);
    d.accelerator_manufacturer = LowerKebab(accelerator.manufacturer);
    d.accelerator_count = accelerator.count;
  }
  return d;
}

bool IsWindows(std::string_view family) { return family.starts_with("Windows"); }

void AppendLabels(std::string* key, std::string_view name, const api::Labels& labels) {
  key->append(name).append("{");
  for (const auto& [k, v] : labels) key->append(k).append("=").append(v).append(",");
  key->append("}");
}

// Everything of the node class that the built list depends on.
std::string CacheKey(const aws::AwsCatalogOptions& options, const aws::AwsZoneIds& zones,
                     const std::vector<api::CapacityReservationStatus>& reservations) {
  std::string key = fmt::format(
      "family={};raid0={};root={};", options.ami_family, options.instance_store_raid0,
      options.root_volume_size ? options.root_volume_size->ToString() : std::string("-"));
  if (options.kubelet.has_value()) {
    const api::KubeletConfiguration& kubelet = *options.kubelet;
    key += fmt::format("maxPods={};podsPerCore={};", kubelet.max_pods.value_or(-1),
                       kubelet.pods_per_core.value_or(-1));
    AppendLabels(&key, "systemReserved", kubelet.system_reserved);
    AppendLabels(&key, "kubeReserved", kubelet.kube_reserved);
    AppendLabels(&key, "evictionHard", kubelet.eviction_hard);
  }
  key += ";zones=";
  for (const auto& [zone, id] : zones) key.append(zone).append("/").append(id).append(",");
  key += ";reservations=";
  for (const api::CapacityReservationStatus& reservation : reservations) {
    key.append(reservation.id).append("/").append(reservation.instance_type).append("/");
    key.append(reservation.zone).append(",");
  }
  return key;
}

}  // namespace

InstanceTypeProvider::InstanceTypeProvider(Ec2Api& ec2, PricingProvider& pricing,
                                           const UnavailableOfferings& unavailable,
                                           const Clock& clock, InstanceTypeProviderOptions options)
    : ec2_(ec2),
      pricing_(pricing),
      unavailable_(unavailable),
      clock_(clock),
      options_(std::move(options)) {}

Status InstanceTypeProvider::Refresh(bool force) {
  MutexLock lock(mutex_);
  return RefreshLocked(force);
}

Status InstanceTypeProvider::RefreshLocked(bool force) {
  const MonoTime now = clock_.Monotonic();
  if (!force && described_ != nullptr && updated_.has_value() &&
      now - *updated_ < options_.refresh_interval) {
    return {};
  }
  Status described = ReadInstanceTypes();
  if (!described.ok()) {
    last_failure_ = now;
    return Error{
        "refreshing instance types (keeping the previous ones): " + described.error().message,
        described.error().status, described.error().reason};
  }
  updated_ = now;
  last_failure_.reset();
  return {};
}

Status InstanceTypeProvider::ReadInstanceTypes() {
  Result<std::vector<InstanceTypeInfo>> infos = ec2_.DescribeInstanceTypes();
  if (!infos.ok()) return infos.error();
  if (infos->empty()) return Error{"DescribeInstanceTypes gave no instance type"};
  Result<std::vector<InstanceTypeOffering>> offerings = ec2_.DescribeInstanceTypeOfferings();
  if (!offerings.ok()) return offerings.error();

  auto described = std::make_shared<Described>();
  for (const InstanceTypeOffering& offering : *offerings) {
    described->zones[offering.instance_type].push_back(offering.zone);
  }
  for (auto& [type, zones] : described->zones) {
    std::sort(zones.begin(), zones.end());
    zones.erase(std::unique(zones.begin(), zones.end()), zones.end());
  }
  described->types.reserve(infos->size());
  for (const InstanceTypeInfo& info : *infos) {
    aws::AwsInstanceTypeDescription d = Describe(info);
    if (d.arch == aws::kAwsArchUnsupported) continue;
    described->types.push_back(std::move(d));
  }
  std::sort(described->types.begin(), described->types.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  described_ = std::move(described);
  ++generation_;
  cache_.clear();
  return {};
}

Result<InstanceTypeList> InstanceTypeProvider::List(const api::EC2NodeClass& node_class) {
  const std::string& name = node_class.metadata.name;
  MutexLock lock(mutex_);
  const MonoTime now = clock_.Monotonic();
  const bool stale = described_ == nullptr || !updated_.has_value() ||
                     now - *updated_ >= options_.refresh_interval;
  const bool backing_off =
      last_failure_.has_value() && now - *last_failure_ < options_.retry_after_failure;
  if (stale && (described_ == nullptr || !backing_off)) {
    Status status = RefreshLocked(false);
    if (!status.ok() && described_ == nullptr) {
      return Error{
          fmt::format("EC2NodeClass {}: no instance types: {}", name, status.error().message),
          status.error().status, status.error().reason};
    }
  }

  aws::AwsCatalogOptions options;
  options.region = options_.region;
  options.vm_memory_overhead_percent = options_.vm_memory_overhead_percent;
  options.reserved_enis = options_.reserved_enis;
  options.ami_family = node_class.EffectiveAmiFamily();
  if (options.ami_family.empty()) options.ami_family = "AL2023";
  options.kubelet = node_class.spec.kubelet;
  options.root_volume_size = node_class.EphemeralVolumeSize();
  options.instance_store_raid0 = node_class.spec.instance_store_policy == "RAID0";
  aws::AwsZoneIds zones;
  for (const api::SubnetStatus& subnet : node_class.status.subnets) {
    if (!subnet.zone.empty()) zones.emplace(subnet.zone, subnet.zone_id);
  }

  const ReservationCounts* counts = options_.reservation_counts;
  const std::vector<api::CapacityReservationStatus> no_reservations;
  const std::vector<api::CapacityReservationStatus>& reservations =
      counts != nullptr ? node_class.status.capacity_reservations : no_reservations;
  const uint64_t seq_num = unavailable_.SeqNum();
  const uint64_t price_generation = pricing_.Generation();
  const uint64_t reservation_seq_num = counts != nullptr ? counts->SeqNum() : 0;
  const std::string key = CacheKey(options, zones, reservations);
  if (auto it = cache_.find(key); it != cache_.end() && it->second.seq_num == seq_num &&
                                  it->second.price_generation == price_generation &&
                                  it->second.data_generation == generation_ &&
                                  it->second.reservation_seq_num == reservation_seq_num) {
    return it->second.list;
  }
  // Only on a miss: options that fail are never cached, so a hit was valid.
  {
    // The checks that do not depend on the region (the embedded table's region stands in).
    aws::AwsCatalogOptions check = options;
    check.region = aws::EmbeddedAwsCatalogData().region;
    if (Status status = aws::ValidateAwsCatalogOptions(check); !status.ok()) {
      return Error{fmt::format("EC2NodeClass {}: {}", name, status.error().message)};
    }
  }

  auto list = std::make_shared<std::vector<cloud::InstanceType>>();
  if (!zones.empty()) {
    const bool windows = IsWindows(options.ami_family);
    aws::AwsInstanceTypeBuilder builder(options);
    list->reserve(described_->types.size());
    for (const aws::AwsInstanceTypeDescription& d : described_->types) {
      if (windows && d.arch != aws::kAwsArchAmd64) continue;
      auto offered = described_->zones.find(d.name);
      if (offered == described_->zones.end()) continue;
      std::vector<cloud::Offering> offerings;
      const std::optional<double> on_demand =
          d.on_demand ? pricing_.OnDemandPrice(d.name) : std::nullopt;
      // Upstream's price for reserved capacity: practically free, yet ordered like on-demand.
      const double reserved_price =
          on_demand.has_value() ? *on_demand / kReservedPriceDivisor : 0.0;
      for (const std::string& zone : offered->second) {
        if (!zones.contains(zone)) continue;
        auto add = [&](std::string_view capacity_type, const std::optional<double>& price) {
          const bool available =
              price.has_value() && !unavailable_.IsUnavailable(d.name, zone, capacity_type);
          offerings.push_back(
              cloud::Offering{zone, std::string(capacity_type), price.value_or(0), available});
        };
        if (d.on_demand) add(api::kCapacityTypeOnDemand, on_demand);
        if (d.spot) add(api::kCapacityTypeSpot, pricing_.SpotPrice(d.name, zone));
        for (const api::CapacityReservationStatus& reservation : reservations) {
          if (reservation.instance_type != d.name || reservation.zone != zone) continue;
          const int64_t room = counts->Available(reservation.id);
          offerings.push_back(cloud::Offering{
              zone, std::string(api::kCapacityTypeReserved), reserved_price, room > 0,
              reservation.id,
              static_cast<int>(std::min<int64_t>(room, std::numeric_limits<int>::max()))});
        }
      }
      if (offerings.empty()) continue;
      list->push_back(builder.Build(d, std::move(offerings), zones));
    }
  }

  if (cache_.size() >= kMaxCachedLists) {
    const uint64_t generation = generation_;
    std::erase_if(cache_, [&](const auto& entry) {
      return entry.second.seq_num != seq_num || entry.second.price_generation != price_generation ||
             entry.second.data_generation != generation ||
             entry.second.reservation_seq_num != reservation_seq_num;
    });
    if (cache_.size() >= kMaxCachedLists) cache_.clear();
  }
  InstanceTypeList shared = std::move(list);
  cache_[key] = CacheEntry{seq_num, price_generation, generation_, reservation_seq_num, shared};
  return shared;
}

uint64_t InstanceTypeProvider::Generation() const {
  MutexLock lock(mutex_);
  return generation_;
}

}  // namespace karpenter::aws
