#include "aws/catalog/aws_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <utility>

#include "api/labels.h"

namespace karpenter::aws {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kWindowsMaxPods = 110;
constexpr std::string_view kResourceHabanaGaudi = "habana.ai/gaudi";
constexpr std::string_view kResourceNeuronCore = "aws.amazon.com/neuroncore";
constexpr std::string_view kResourcePrivateIpv4 = "vpc.amazonaws.com/PrivateIPv4Address";
constexpr std::string_view kEvictionMemory = "memory.available";
constexpr std::string_view kEvictionNodeFs = "nodefs.available";
constexpr std::string_view kResourcePid = "pid";  // kubelet reservations we do not model

Quantity Bytes(int64_t bytes) { return Quantity::FromUnits(bytes); }
Quantity Mebibytes(int64_t mib) { return Quantity::FromUnits(mib * kMi); }

// How an AMI family changes the computation (upstream's per-family feature flags).
struct AmiFamilyRules {
  bool known = false;
  bool windows = false;
  bool eni_limited_memory_overhead = true;  // kube-reserved memory from ENI-limited pods
  bool pods_per_core = true;                // kubelet podsPerCore honoured
  bool eni_limited_pod_density = true;      // else 110 pods
  std::string_view windows_build;
  int64_t default_root_gib = 20;
};

AmiFamilyRules RulesFor(std::string_view family) {
  AmiFamilyRules rules;
  if (family.empty() || family == "AL2" || family == "AL2023" || family == "Custom") {
    rules.known = true;
  } else if (family == "Bottlerocket") {
    rules.known = true;
    rules.eni_limited_memory_overhead = false;
    rules.pods_per_core = false;
  } else if (family == "Windows2019" || family == "Windows2022" || family == "Windows2025") {
    rules.known = true;
    rules.windows = true;
    rules.eni_limited_memory_overhead = false;
    rules.eni_limited_pod_density = false;
    rules.default_root_gib = 50;
    rules.windows_build = family == "Windows2019"   ? "10.0.17763"
                          : family == "Windows2022" ? "10.0.20348"
                                                    : "10.0.26100";
  }
  return rules;
}

// An evictionHard signal: a percentage of capacity or an absolute amount.
struct EvictionSignal {
  bool set = false;
  bool percent = false;
  double percentage = 0;
  Quantity amount;

  Quantity Of(Quantity capacity) const {
    if (!percent) return amount;
    return Bytes(static_cast<int64_t>(std::ceil(capacity.as_double() / 100 * percentage)));
  }
};

Result<EvictionSignal> ParseEvictionSignal(std::string_view text) {
  EvictionSignal signal;
  signal.set = true;
  if (!text.empty() && text.back() == '%') {
    double value = 0;
    const std::string_view number = text.substr(0, text.size() - 1);
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size() || !(value >= 0) || value > 100) {
      return Error{fmt::format("invalid percentage \"{}\" (want 0%..100%)", text)};
    }
    signal.percent = true;
    signal.percentage = value == 100 ? 0 : value;  // 100% disables the threshold
    return signal;
  }
  Result<Quantity> amount = Quantity::Parse(text);
  if (!amount.ok()) {
    return Error{fmt::format("invalid quantity \"{}\": {}", text, amount.error().message)};
  }
  if (*amount < Quantity()) return Error{fmt::format("negative quantity \"{}\"", text)};
  signal.amount = *amount;
  return signal;
}

// The options resolved once for every instance type.
struct Prepared {
  AmiFamilyRules rules;
  uint8_t zone_mask = 0;
  std::optional<int32_t> max_pods;
  std::optional<int32_t> pods_per_core;
  std::vector<std::pair<std::string, Quantity>> kube_reserved;
  api::ResourceList system_reserved;
  EvictionSignal eviction_memory;
  EvictionSignal eviction_nodefs;
  Quantity root_volume;
};

// Parses a kubelet reservation map; `error` names the first bad entry (`field.key`).
std::vector<std::pair<std::string, Quantity>> ParseReserved(const api::Labels& values,
                                                            std::string_view field,
                                                            std::optional<Error>* error) {
  std::vector<std::pair<std::string, Quantity>> parsed;
  for (const auto& [name, text] : values) {
    if (name == kResourcePid) continue;
    Result<Quantity> quantity = Quantity::Parse(text);
    if (!quantity.ok() || *quantity < Quantity()) {
      if (error != nullptr && !error->has_value()) {
        *error = Error{fmt::format("kubelet.{}.{}: invalid quantity \"{}\"{}", field, name, text,
                                   quantity.ok() ? ": negative" : ": " + quantity.error().message)};
      }
      continue;
    }
    parsed.emplace_back(name, *quantity);
  }
  return parsed;
}

// Resolves the options; with `error` set, reports the first problem there.
Prepared Prepare(const AwsCatalogOptions& options, std::optional<Error>* error) {
  auto fail = [&](std::string message) {
    if (error != nullptr && !error->has_value()) *error = Error{std::move(message)};
  };
  const AwsCatalogData data = EmbeddedAwsCatalogData();
  Prepared prepared;
  prepared.rules = RulesFor(options.ami_family);
  if (!prepared.rules.known) {
    fail(fmt::format(
        "amiFamily \"{}\": unknown (want AL2, AL2023, Bottlerocket, Custom, Windows2019, "
        "Windows2022 or Windows2025)",
        options.ami_family));
    prepared.rules = RulesFor("");
  }
  if (options.region != data.region) {
    fail(fmt::format("region \"{}\": the embedded AWS catalog only has {} data", options.region,
                     data.region));
  }
  if (options.zones.empty()) {
    prepared.zone_mask = static_cast<uint8_t>((1u << data.zones.size()) - 1);
  }
  for (const std::string& zone : options.zones) {
    auto it = std::find_if(data.zones.begin(), data.zones.end(),
                           [&](const char* known) { return zone == known; });
    if (it == data.zones.end()) {
      std::string known;
      for (const char* z : data.zones) known += (known.empty() ? "" : ", ") + std::string(z);
      fail(fmt::format("zones: \"{}\" is not a zone of {} (known: {})", zone, data.region, known));
      continue;
    }
    prepared.zone_mask |= static_cast<uint8_t>(1u << (it - data.zones.begin()));
  }
  if (options.reserved_enis < 0) {
    fail(fmt::format("reservedENIs: must not be negative, got {}", options.reserved_enis));
  }
  if (!(options.vm_memory_overhead_percent >= 0 && options.vm_memory_overhead_percent < 1)) {
    fail(fmt::format("vmMemoryOverheadPercent: want a fraction in [0, 1), got {}",
                     options.vm_memory_overhead_percent));
  }
  prepared.root_volume =
      options.root_volume_size.value_or(Quantity::FromUnits(prepared.rules.default_root_gib * kGi));
  if (prepared.root_volume <= Quantity()) {
    fail(fmt::format("rootVolumeSize: must be positive, got {}", prepared.root_volume.ToString()));
  }
  if (options.kubelet.has_value()) {
    const api::KubeletConfiguration& kubelet = *options.kubelet;
    prepared.max_pods = kubelet.max_pods;
    prepared.pods_per_core = kubelet.pods_per_core;
    if (kubelet.max_pods.has_value() && *kubelet.max_pods < 0) {
      fail(fmt::format("kubelet.maxPods: must not be negative, got {}", *kubelet.max_pods));
    }
    if (kubelet.pods_per_core.has_value() && *kubelet.pods_per_core < 0) {
      fail(
          fmt::format("kubelet.podsPerCore: must not be negative, got {}", *kubelet.pods_per_core));
    }
    prepared.kube_reserved = ParseReserved(kubelet.kube_reserved, "kubeReserved", error);
    for (auto& [name, quantity] : ParseReserved(kubelet.system_reserved, "systemReserved", error)) {
      prepared.system_reserved.Set(name, quantity);
    }
    for (const auto& [signal, text] : kubelet.eviction_hard) {
      EvictionSignal* target = signal == kEvictionMemory   ? &prepared.eviction_memory
                               : signal == kEvictionNodeFs ? &prepared.eviction_nodefs
                                                           : nullptr;
      if (target == nullptr) continue;  // other signals do not reduce allocatable
      Result<EvictionSignal> parsed = ParseEvictionSignal(text);
      if (!parsed.ok()) {
        fail(fmt::format("kubelet.evictionHard.{}: {}", signal, parsed.error().message));
        continue;
      }
      *target = *parsed;
    }
  }
  return prepared;
}

// A type's single-valued labels, collected in a map reused from type to type: consecutive types
// mostly share their keys, so the map's nodes and strings are reused rather than reallocated.
// Every key must be set (or marked absent) for every type.
class LabelScratch {
 public:
  void Set(std::string_view key, std::string_view value) {
    auto it = labels_.find(key);
    if (it == labels_.end()) {
      labels_.emplace(std::string(key), std::string(value));
    } else {
      it->second.assign(value);
    }
  }
  // An empty value means the type does not have the label: DoesNotExist.
  void SetOrAbsent(std::string_view key, std::string_view value) {
    if (!value.empty()) return Set(key, value);
    if (auto it = labels_.find(key); it != labels_.end()) labels_.erase(it);
    absent_.push_back(key);
  }
  // Text for a number, valid until the next call.
  std::string_view Number(int64_t value) {
    auto [end, ec] = std::to_chars(number_, number_ + sizeof(number_), value);
    return std::string_view(number_, static_cast<size_t>(end - number_));
  }
  scheduling::Requirements Take() {
    scheduling::Requirements requirements = scheduling::Requirements::FromLabels(labels_);
    for (std::string_view key : absent_) {
      requirements.Add(scheduling::Requirement::DoesNotExist(std::string(key)));
    }
    absent_.clear();
    return requirements;
  }

 private:
  api::Labels labels_;
  std::vector<std::string_view> absent_;
  char number_[24];
};

// The offerings of an embedded row: the selected zones it is offered in × its capacity types, at
// the table's on-demand price and the model's spot price; unavailable without a price.
std::vector<cloud::Offering> EmbeddedOfferings(const AwsInstanceTypeFacts& facts,
                                               const AwsCatalogData& data, uint8_t zone_mask,
                                               const SpotPriceModel& spot) {
  const uint8_t zones = facts.zones & zone_mask;
  const int offered_capacity_types =
      ((facts.flags & kAwsFactOnDemand) ? 1 : 0) + ((facts.flags & kAwsFactSpot) ? 1 : 0);
  std::vector<cloud::Offering> offerings;
  offerings.reserve(static_cast<size_t>(std::popcount(zones)) *
                    static_cast<size_t>(offered_capacity_types));
  for (size_t i = 0; i < data.zones.size(); ++i) {
    if ((zones & (1u << i)) == 0) continue;
    const std::string_view zone = data.zones[i];
    if (facts.flags & kAwsFactOnDemand) {
      const double price = facts.on_demand_price;
      offerings.push_back(cloud::Offering{
          std::string(zone), std::string(api::kCapacityTypeOnDemand), price, price > 0});
    }
    if (facts.flags & kAwsFactSpot) {
      const double price = spot.Price(facts.name, zone, facts.on_demand_price);
      offerings.push_back(cloud::Offering{std::string(zone), std::string(api::kCapacityTypeSpot),
                                          price, price > 0});
    }
  }
  return offerings;
}

AwsZoneIds EmbeddedZoneIds(const AwsCatalogData& data) {
  AwsZoneIds ids;
  for (const char* zone : data.zones) {
    if (std::string id = AwsZoneId(zone); !id.empty()) ids.emplace(zone, std::move(id));
  }
  return ids;
}

cloud::InstanceType Build(const AwsInstanceTypeDescription& d,
                          std::vector<cloud::Offering> offerings, const AwsZoneIds& zone_ids,
                          const AwsCatalogOptions& options, const Prepared& prepared,
                          LabelScratch* scratch) {
  const AmiFamilyRules& rules = prepared.rules;
  const bool arm64 = d.arch == kAwsArchArm64;
  cloud::InstanceType type;
  type.name = d.name;

  // The zones and capacity types of the available offerings, in order of appearance (on-demand
  // before spot).
  std::vector<std::string> available_zones;
  bool on_demand_available = false;
  bool spot_available = false;
  std::vector<std::string> other_capacity_types;
  for (const cloud::Offering& offering : offerings) {
    if (!offering.available) continue;
    if (std::find(available_zones.begin(), available_zones.end(), offering.zone) ==
        available_zones.end()) {
      available_zones.push_back(offering.zone);
    }
    if (offering.capacity_type == api::kCapacityTypeOnDemand) {
      on_demand_available = true;
    } else if (offering.capacity_type == api::kCapacityTypeSpot) {
      spot_available = true;
    } else if (std::find(other_capacity_types.begin(), other_capacity_types.end(),
                         offering.capacity_type) == other_capacity_types.end()) {
      other_capacity_types.push_back(offering.capacity_type);
    }
  }
  type.offerings = std::move(offerings);

  // Capacity.
  const int64_t memory_mib = d.memory_mib - (arm64 ? 64 : 0);
  const int64_t vm_overhead_mib = static_cast<int64_t>(std::ceil(
      static_cast<double>(memory_mib * kMi) * options.vm_memory_overhead_percent / 1024 / 1024));
  const Quantity memory = Mebibytes(memory_mib - vm_overhead_mib);
  const int64_t eni_pods = AwsEniLimitedPods(d, options.reserved_enis);
  int64_t pods = prepared.max_pods.has_value()   ? *prepared.max_pods
                 : rules.eni_limited_pod_density ? eni_pods
                                                 : kWindowsMaxPods;
  if (rules.pods_per_core && prepared.pods_per_core.value_or(0) > 0) {
    pods = std::min<int64_t>(pods, int64_t{*prepared.pods_per_core} * d.vcpus);
  }
  const Quantity storage = options.instance_store_raid0 && d.storage_gb > 0
                               ? Bytes(d.storage_gb * 1000 * 1000 * 1000)
                               : prepared.root_volume;
  type.capacity.Set(api::kResourceCpu, Quantity::FromUnits(d.vcpus));
  type.capacity.Set(api::kResourceMemory, memory);
  type.capacity.Set(api::kResourcePods, Quantity::FromUnits(pods));
  type.capacity.Set(api::kResourceEphemeralStorage, storage);
  auto set_count = [&](std::string_view name, int64_t count) {
    if (count > 0) type.capacity.Set(name, Quantity::FromUnits(count));
  };
  const std::string_view gpu_vendor = d.gpu_manufacturer;
  set_count(api::kResourceNvidiaGpu, gpu_vendor == "nvidia" ? d.gpu_count : 0);
  set_count(api::kResourceAmdGpu, gpu_vendor == "amd" ? d.gpu_count : 0);
  set_count(kResourceHabanaGaudi, gpu_vendor == "habana" ? d.gpu_count : 0);
  set_count(api::kResourceNeuron, d.neuron_devices);
  set_count(kResourceNeuronCore, d.neuron_cores);
  set_count(api::kResourceEfa, d.efas);
  set_count(api::kResourcePodEni, d.branch_enis);
  if (rules.windows) set_count(kResourcePrivateIpv4, d.ipv4_per_eni - 1);

  // Overhead.
  const int64_t overhead_pods = rules.eni_limited_memory_overhead ? AwsEniLimitedPods(d, 0) : pods;
  type.kube_reserved.Set(api::kResourceCpu, Quantity::FromMilli(AwsKubeReservedMilliCpu(d.vcpus)));
  type.kube_reserved.Set(api::kResourceMemory, Mebibytes(11 * overhead_pods + 255));
  type.kube_reserved.Set(api::kResourceEphemeralStorage, Quantity::FromUnits(kGi));
  for (const auto& [name, quantity] : prepared.kube_reserved) {
    type.kube_reserved.Set(name, quantity);
  }
  type.system_reserved = prepared.system_reserved;
  type.eviction_threshold.Set(api::kResourceMemory, prepared.eviction_memory.set
                                                        ? prepared.eviction_memory.Of(memory)
                                                        : Mebibytes(100));
  type.eviction_threshold.Set(
      api::kResourceEphemeralStorage,
      prepared.eviction_nodefs.set
          ? prepared.eviction_nodefs.Of(storage)
          : Bytes(static_cast<int64_t>(std::ceil(storage.as_double() / 100 * 10))));

  // Labels.
  const InstanceTypeNameParts parts = ParseInstanceTypeName(d.name);
  const bool has_gpu = !d.gpu_name.empty();
  const bool has_accelerator = !d.accelerator_name.empty();
  LabelScratch& l = *scratch;
  l.SetOrAbsent(api::kLabelInstanceAcceleratorCount,
                has_accelerator ? l.Number(d.accelerator_count) : "");
  l.SetOrAbsent(api::kLabelInstanceAcceleratorManufacturer, d.accelerator_manufacturer);
  l.SetOrAbsent(api::kLabelInstanceAcceleratorName, d.accelerator_name);
  l.SetOrAbsent(api::kLabelInstanceCategory, parts.category);
  l.Set(api::kLabelInstanceCpu, l.Number(d.vcpus));
  l.SetOrAbsent(api::kLabelInstanceCpuManufacturer, d.cpu_manufacturer);
  l.Set(api::kLabelInstanceEncryptionInTransit, d.encryption_in_transit ? "true" : "false");
  l.SetOrAbsent(api::kLabelInstanceFamily, parts.family);
  l.SetOrAbsent(api::kLabelInstanceGeneration, parts.generation);
  l.SetOrAbsent(api::kLabelInstanceGpuCount, has_gpu ? l.Number(d.gpu_count) : "");
  l.SetOrAbsent(api::kLabelInstanceGpuManufacturer, d.gpu_manufacturer);
  l.SetOrAbsent(api::kLabelInstanceGpuMemory, has_gpu ? l.Number(d.gpu_memory_mib) : "");
  l.SetOrAbsent(api::kLabelInstanceGpuName, d.gpu_name);
  // Bare-metal types have no hypervisor: the label exists with an empty value, as upstream.
  l.Set(api::kLabelInstanceHypervisor, d.hypervisor);
  l.SetOrAbsent(api::kLabelInstanceLocalNvme, d.nvme ? l.Number(d.storage_gb) : "");
  l.Set(api::kLabelInstanceMemory, l.Number(d.memory_mib));
  l.SetOrAbsent(api::kLabelInstanceNetworkBandwidth,
                d.network_bandwidth_mbps > 0 ? l.Number(d.network_bandwidth_mbps) : "");
  l.SetOrAbsent(api::kLabelInstanceSize, parts.size);
  l.Set(api::kLabelArch, arm64 ? "arm64" : "amd64");
  l.Set(api::kLabelOs, rules.windows ? "windows" : "linux");
  l.Set(api::kLabelInstanceType, d.name);
  l.SetOrAbsent(api::kLabelWindowsBuild, rules.windows_build);
  l.Set(api::kLabelRegion, options.region);
  scheduling::Requirements& r = type.requirements;
  r = l.Take();
  std::vector<std::string> capacity_types;
  if (on_demand_available) capacity_types.emplace_back(api::kCapacityTypeOnDemand);
  if (spot_available) capacity_types.emplace_back(api::kCapacityTypeSpot);
  for (std::string& other : other_capacity_types) capacity_types.push_back(std::move(other));
  r.Add(
      scheduling::Requirement::In(std::string(api::kLabelCapacityType), std::move(capacity_types)));
  std::vector<std::string> ids;
  for (const std::string& zone : available_zones) {
    if (auto it = zone_ids.find(zone); it != zone_ids.end() && !it->second.empty()) {
      if (std::find(ids.begin(), ids.end(), it->second) == ids.end()) ids.push_back(it->second);
    }
  }
  if (!ids.empty()) {
    r.Add(scheduling::Requirement::In(std::string(api::kLabelZoneId), std::move(ids)));
  }
  r.Add(scheduling::Requirement::In(std::string(api::kLabelZone), std::move(available_zones)));

  type.exotic = has_gpu || has_accelerator || d.neuron_devices > 0 || d.bare_metal ||
                parts.size.find("metal") != std::string::npos;
  return type;
}

}  // namespace

struct AwsInstanceTypeBuilder::State {
  AwsCatalogOptions options;
  Prepared prepared;
  LabelScratch scratch;
};

AwsInstanceTypeBuilder::AwsInstanceTypeBuilder(const AwsCatalogOptions& options)
    : state_(std::make_unique<State>(State{options, Prepare(options, nullptr), LabelScratch()})) {}

AwsInstanceTypeBuilder::~AwsInstanceTypeBuilder() = default;

cloud::InstanceType AwsInstanceTypeBuilder::Build(const AwsInstanceTypeDescription& type,
                                                  std::vector<cloud::Offering> offerings,
                                                  const AwsZoneIds& zone_ids) {
  return aws::Build(type, std::move(offerings), zone_ids, state_->options, state_->prepared,
                    &state_->scratch);
}

AwsInstanceTypeDescription ToAwsInstanceTypeDescription(const AwsInstanceTypeFacts& facts) {
  const AwsCatalogData data = EmbeddedAwsCatalogData();
  const AwsAcceleratorFacts& accelerator = data.accelerators[facts.accelerator];
  return AwsInstanceTypeDescription{
      .name = facts.name,
      .vcpus = facts.vcpus,
      .memory_mib = facts.memory_mib,
      .arch = facts.arch,
      .cpu_manufacturer = data.cpu_manufacturers[facts.cpu_manufacturer],
      .hypervisor = data.hypervisors[facts.hypervisor],
      .bare_metal = (facts.flags & kAwsFactBareMetal) != 0,
      .encryption_in_transit = (facts.flags & kAwsFactEncryptionInTransit) != 0,
      .on_demand = (facts.flags & kAwsFactOnDemand) != 0,
      .spot = (facts.flags & kAwsFactSpot) != 0,
      .nvme = (facts.flags & kAwsFactNvme) != 0,
      .storage_gb = facts.storage_gb,
      .network_bandwidth_mbps = facts.network_bandwidth_mbps,
      .enis = facts.enis,
      .ipv4_per_eni = facts.ipv4_per_eni,
      .branch_enis = facts.branch_enis,
      .efas = facts.efas,
      .gpu_name = accelerator.gpu_name,
      .gpu_manufacturer = accelerator.gpu_manufacturer,
      .gpu_count = accelerator.gpu_count,
      .gpu_memory_mib = accelerator.gpu_memory_mib,
      .accelerator_name = accelerator.accelerator_name,
      .accelerator_manufacturer = accelerator.accelerator_manufacturer,
      .accelerator_count = accelerator.accelerator_count,
      .neuron_devices = accelerator.neuron_devices,
      .neuron_cores = accelerator.neuron_cores,
  };
}

const AwsInstanceTypeFacts* FindAwsInstanceTypeFacts(std::string_view name) {
  const std::span<const AwsInstanceTypeFacts> table = EmbeddedAwsCatalogData().instance_types;
  auto it = std::lower_bound(
      table.begin(), table.end(), name,
      [](const AwsInstanceTypeFacts& facts, std::string_view key) { return facts.name < key; });
  if (it == table.end() || it->name != name) return nullptr;
  return &*it;
}

InstanceTypeNameParts ParseInstanceTypeName(std::string_view name) {
  InstanceTypeNameParts parts;
  const size_t dot = name.find('.');
  if (dot != std::string_view::npos && name.find('.', dot + 1) == std::string_view::npos) {
    parts.family = name.substr(0, dot);
    parts.size = name.substr(dot + 1);
  }
  // Upstream's `(^[a-z]+)(-[0-9]+tb)?([0-9]+).*\.`: letters, an optional "-<digits>tb",
  // digits, then a dot somewhere later.
  auto is_lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0;
  while (i < name.size() && is_lower(name[i])) ++i;
  if (i == 0) return parts;
  const size_t letters = i;
  if (i < name.size() && name[i] == '-') {
    size_t j = i + 1;
    while (j < name.size() && is_digit(name[j])) ++j;
    if (j > i + 1 && name.substr(j, 2) == "tb") i = j + 2;
  }
  const size_t digits_start = i;
  while (i < name.size() && is_digit(name[i])) ++i;
  if (i == digits_start || name.find('.', i) == std::string_view::npos) return parts;
  parts.category = name.substr(0, letters);
  parts.generation = name.substr(digits_start, i - digits_start);
  return parts;
}

std::string AwsZoneId(std::string_view zone) {
  constexpr std::string_view kRegion = "us-east-1";
  if (zone.size() != kRegion.size() + 1 || zone.substr(0, kRegion.size()) != kRegion) return "";
  const char letter = zone.back();
  if (letter < 'a' || letter > 'f') return "";
  return "use1-az" + std::to_string(letter - 'a' + 1);
}

int64_t AwsEniLimitedPods(const AwsInstanceTypeFacts& facts, int reserved_enis) {
  const int64_t usable = std::max<int64_t>(int64_t{facts.enis} - reserved_enis, 0);
  if (usable == 0) return 0;
  return usable * (int64_t{facts.ipv4_per_eni} - 1) + 2;
}

int64_t AwsEniLimitedPods(const AwsInstanceTypeDescription& type, int reserved_enis) {
  const int64_t usable = std::max<int64_t>(type.enis - reserved_enis, 0);
  if (usable == 0) return 0;
  return usable * (type.ipv4_per_eni - 1) + 2;
}

int64_t AwsKubeReservedMilliCpu(int64_t vcpus) {
  struct Step {
    int64_t start;
    int64_t end;
    double fraction;
  };
  constexpr Step kSteps[] = {
      {0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, int64_t{1} << 31, 0.0025}};
  const int64_t milli = vcpus * 1000;
  int64_t reserved = 0;
  for (const Step& step : kSteps) {
    if (milli < step.start) break;
    const int64_t span = std::min(milli, step.end) - step.start;
    reserved += static_cast<int64_t>(static_cast<double>(span) * step.fraction);
  }
  return reserved;
}

Status ValidateAwsCatalogOptions(const AwsCatalogOptions& options) {
  std::optional<Error> error;
  (void)Prepare(options, &error);
  if (error.has_value()) return *error;
  return {};
}

cloud::InstanceType BuildAwsInstanceType(const AwsInstanceTypeFacts& facts,
                                         const AwsCatalogOptions& options,
                                         const SpotPriceModel& spot) {
  const AwsCatalogData data = EmbeddedAwsCatalogData();
  const Prepared prepared = Prepare(options, nullptr);
  LabelScratch scratch;
  return Build(ToAwsInstanceTypeDescription(facts),
               EmbeddedOfferings(facts, data, prepared.zone_mask, spot), EmbeddedZoneIds(data),
               options, prepared, &scratch);
}

std::vector<cloud::InstanceType> BuildAwsCatalog(const AwsCatalogOptions& options) {
  return BuildAwsCatalog(options, SpotPriceModel(options.spot_seed));
}

std::vector<cloud::InstanceType> BuildAwsCatalog(const AwsCatalogOptions& options,
                                                 const SpotPriceModel& spot) {
  const AwsCatalogData data = EmbeddedAwsCatalogData();
  const Prepared prepared = Prepare(options, nullptr);
  const AwsZoneIds zone_ids = EmbeddedZoneIds(data);
  std::vector<cloud::InstanceType> catalog;
  catalog.reserve(data.instance_types.size());
  LabelScratch scratch;
  for (const AwsInstanceTypeFacts& facts : data.instance_types) {
    if (facts.arch == kAwsArchUnsupported) continue;
    if (prepared.rules.windows && facts.arch != kAwsArchAmd64) continue;
    if ((facts.zones & prepared.zone_mask) == 0) continue;
    cloud::InstanceType type = Build(ToAwsInstanceTypeDescription(facts),
                                     EmbeddedOfferings(facts, data, prepared.zone_mask, spot),
                                     zone_ids, options, prepared, &scratch);
    const bool available = std::any_of(type.offerings.begin(), type.offerings.end(),
                                       [](const cloud::Offering& o) { return o.available; });
    if (available) catalog.push_back(std::move(type));
  }
  return catalog;
}

}  // namespace karpenter::aws
