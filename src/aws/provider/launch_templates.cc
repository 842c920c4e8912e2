#include "aws/provider/launch_templates.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "aws/sdk/sigv4.h"

namespace karpenter::aws {
namespace {

constexpr std::string_view kAlreadyExists = "InvalidLaunchTemplateName.AlreadyExistsException";
constexpr size_t kHashLength = 20;  // hex digits of SHA-256: collisions are not a concern

// Appends `field` length-prefixed, so no two contents serialize alike.
void AppendField(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

}  // namespace

std::string LaunchTemplateName(const LaunchTemplateInput& input) {
  std::string content;
  AppendField(content, input.image_id);
  AppendField(content, input.instance_profile);
  std::vector<std::string> groups = input.security_group_ids;
  std::sort(groups.begin(), groups.end());
  for (const std::string& group : groups) AppendField(content, group);
  AppendField(content, "|");
  AppendField(content, input.user_data_base64);
  for (const auto& [key, value] : input.tags) {  // a std::map: sorted
    AppendField(content, key);
    AppendField(content, value);
  }
  AppendField(content, "|");
  const api::MetadataOptions& metadata = input.metadata;
  AppendField(content, metadata.http_endpoint);
  AppendField(content, metadata.http_protocol_ipv6);
  AppendField(content, std::to_string(metadata.http_put_response_hop_limit));
  AppendField(content, metadata.http_tokens);
  AppendField(content, "|");
  auto optional = [](const auto& value) {
    return value.has_value() ? fmt::format("{}", *value) : std::string("-");
  };
  for (const api::BlockDeviceMapping& mapping : input.block_device_mappings) {
    AppendField(content, mapping.device_name);
    AppendField(content, mapping.root_volume ? "root" : "");
    if (!mapping.ebs.has_value()) {
      AppendField(content, "-");
      continue;
    }
    const api::BlockDevice& ebs = *mapping.ebs;
    AppendField(content, optional(ebs.delete_on_termination));
    AppendField(content, optional(ebs.encrypted));
    AppendField(content, optional(ebs.iops));
    AppendField(content, ebs.kms_key_id);
    AppendField(content, ebs.snapshot_id);
    AppendField(content, optional(ebs.throughput));
    AppendField(content, ebs.volume_size ? ebs.volume_size->ToString() : "-");
    AppendField(content, ebs.volume_type);
  }
  AppendField(content, "|");
  AppendField(content, input.detailed_monitoring ? "monitored" : "");
  AppendField(content, optional(input.associate_public_ip_address));
  // Older templates (no reservation fields) keep their names.
  if (!input.capacity_reservation_preference.empty()) {
    AppendField(content, "|");
    AppendField(content, input.capacity_reservation_preference);
    AppendField(content, input.capacity_reservation_id);
  }
  return std::string(kLaunchTemplateNamePrefix) + Sha256Hex(content).substr(0, kHashLength);
}

LaunchTemplates::LaunchTemplates(Ec2Api& ec2, std::string cluster_name, const Clock& clock)
    : ec2_(ec2),
      cluster_name_(std::move(cluster_name)),
      clock_(clock),
      started_(clock.Monotonic()) {}

LaunchTemplateInput LaunchTemplates::Completed(LaunchTemplateInput input,
                                               std::string_view node_class) const {
  input.tags[std::string(kTagCluster)] = cluster_name_;
  input.tags[std::string(kTagNodeClass)] = std::string(node_class);
  input.name = LaunchTemplateName(input);
  return input;
}

Result<std::string> LaunchTemplates::Ensure(LaunchTemplateInput input,
                                            std::string_view node_class) {
  input = Completed(std::move(input), node_class);
  if (const auto known = last_used_.find(input.name); known != last_used_.end()) {
    known->second = clock_.Monotonic();
    return input.name;
  }
  Result<LaunchTemplate> created = ec2_.CreateLaunchTemplate(input);
  if (!created.ok() && created.error().reason != kAlreadyExists) return created.error();
  last_used_[input.name] = clock_.Monotonic();
  return input.name;
}

void LaunchTemplates::Forget(std::string_view name) {
  if (const auto it = last_used_.find(name); it != last_used_.end()) last_used_.erase(it);
}

Result<int> LaunchTemplates::DeleteForNodeClass(std::string_view node_class) {
  return DeleteIf(node_class, [](const std::string&) { return true; });
}

Result<int> LaunchTemplates::DeleteUnused(std::string_view node_class,
                                          std::chrono::milliseconds idle) {
  const MonoTime cutoff = clock_.Monotonic() - idle;
  return DeleteIf(node_class, [&](const std::string& name) {
    const auto used = last_used_.find(name);
    return (used == last_used_.end() ? started_ : used->second) <= cutoff;
  });
}

Result<int> LaunchTemplates::DeleteIf(std::string_view node_class,
                                      const std::function<bool(const std::string& name)>& unused) {
  ASSIGN_OR_RETURN(std::vector<LaunchTemplate> templates,
                   ec2_.DescribeLaunchTemplates(
                       {{"tag:" + std::string(kTagCluster), {cluster_name_}},
                        {"tag:" + std::string(kTagNodeClass), {std::string(node_class)}}}));
  int deleted = 0;
  for (const LaunchTemplate& found : templates) {
    if (!found.name.starts_with(kLaunchTemplateNamePrefix) || !unused(found.name)) continue;
    Status status = ec2_.DeleteLaunchTemplate(found.name);
    if (!status.ok()) return status.error();
    Forget(found.name);
    ++deleted;
  }
  return deleted;
}

}  // namespace karpenter::aws
