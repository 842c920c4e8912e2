#include "api/ec2nodeclass.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace karpenter::api {
std::optional<std::string_view> AmiFamilyOfAlias(std::string_view alias_family) {
  // Alias families ("al2023@latest", "bottlerocket@v1.20.0") and the amiFamily each stands for.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kAliasFamilies = {{
      {"al2", "AL2"},
      {"al2023", "AL2023"},
      {"bottlerocket", "Bottlerocket"},
      {"windows2019", "Windows2019"},
      {"windows2022", "Windows2022"},
      {"windows2025", "Windows2025"},
  }};
  for (const auto& [name, ami_family] : kAliasFamilies) {
    if (name == alias_family) return ami_family;
  }
  return std::nullopt;
}

std::string EC2NodeClass::EffectiveAmiFamily() const {
  if (!spec.ami_family.empty()) return spec.ami_family;
  for (const AmiSelectorTerm& term : spec.ami_selector_terms) {
    if (term.alias.empty()) continue;
    const std::string_view alias = term.alias;
    if (auto family = AmiFamilyOfAlias(alias.substr(0, alias.find('@')))) {
      return std::string(*family);
    }
  }
  return "";
}

namespace {

constexpr int64_t kGi = int64_t{1} << 30;

BlockDeviceMapping DefaultVolume(std::string device, int64_t gib) {
  BlockDeviceMapping mapping;
  mapping.device_name = std::move(device);
  BlockDevice& ebs = mapping.ebs.emplace();
  ebs.encrypted = true;
  ebs.volume_type = "gp3";
  ebs.volume_size = Quantity::FromUnits(gib * kGi);
  return mapping;
}

bool IsWindowsFamily(std::string_view family) { return family.starts_with("Windows"); }

// The device pods' ephemeral storage lives on, for families with a fixed one.
std::string_view DataDevice(std::string_view family) {
  if (family == "Bottlerocket") return "/dev/xvdb";
  if (IsWindowsFamily(family)) return "/dev/sda1";
  return "/dev/xvda";
}

}  // namespace

std::vector<BlockDeviceMapping> EC2NodeClass::LaunchBlockDeviceMappings() const {
  if (!spec.block_device_mappings.empty()) return spec.block_device_mappings;
  const std::string family = EffectiveAmiFamily();
  if (family == "Custom") return {};
  if (family == "Bottlerocket") {
    return {DefaultVolume("/dev/xvda", 4), DefaultVolume("/dev/xvdb", 20)};
  }
  if (IsWindowsFamily(family)) return {DefaultVolume("/dev/sda1", 50)};
  return {DefaultVolume("/dev/xvda", 20)};
}

std::optional<Quantity> EC2NodeClass::EphemeralVolumeSize() const {
  const std::vector<BlockDeviceMapping>& mappings = spec.block_device_mappings;
  if (mappings.empty()) return std::nullopt;
  auto size_of = [](const BlockDeviceMapping& mapping) -> std::optional<Quantity> {
    return mapping.ebs.has_value() ? mapping.ebs->volume_size : std::nullopt;
  };
  for (const BlockDeviceMapping& mapping : mappings) {
    if (mapping.root_volume && size_of(mapping).has_value()) return size_of(mapping);
  }
  const std::string family = EffectiveAmiFamily();
  if (family == "Custom") return size_of(mappings.back());
  for (const BlockDeviceMapping& mapping : mappings) {
    if (mapping.device_name == DataDevice(family)) return size_of(mapping);
  }
  return std::nullopt;
}

}  // namespace karpenter::api
