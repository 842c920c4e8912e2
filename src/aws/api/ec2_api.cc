#include "aws/api/ec2_api.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <string_view>
#include <utility>

#include "aws/sdk/pagination.h"
#include "aws/sdk/xml_reader.h"
#include "common/quantity.h"

namespace karpenter::aws {
namespace {

constexpr std::string_view kEc2Version = "2016-11-15";

QueryRequest Ec2Request(std::string action) {
  return QueryRequest(std::move(action), std::string(kEc2Version));
}

// Tag.N.Key and Tag.N.Value, as CreateTags and DeleteTags take them.
void AddTags(QueryRequest& request, const Ec2Tags& tags) {
  int n = 0;
  for (const auto& [key, value] : tags) {
    const std::string prefix = "Tag." + std::to_string(++n) + ".";
    request.Add(prefix + "Key", key);
    request.Add(prefix + "Value", value);
  }
}

Ec2Tags ReadTags(const XmlElement& element) {
  Ec2Tags tags;
  for (const XmlElement& tag : element.Items("tagSet")) tags[tag.Text("key")] = tag.Text("value");
  return tags;
}

std::vector<std::string> ReadStrings(const XmlElement& element, std::string_view list) {
  std::vector<std::string> values;
  for (const XmlElement& item : element.Items(list)) values.push_back(item.text());
  return values;
}

std::vector<std::pair<std::string, std::string>> TagPairs(const Ec2Tags& tags) {
  return {tags.begin(), tags.end()};
}

// Sends `request` once per page, following nextToken, and hands every entry of each page's
// `list` to `each`.
Status DescribeAll(ServiceClient& client, const QueryRequest& request, std::string_view list,
                   const std::function<void(const XmlElement&)>& each) {
  return Paginate(client.service() + " " + request.action(),
                  [&](const std::string& token) -> Result<std::string> {
                    QueryRequest page = request;
                    if (!token.empty()) page.Add("NextToken", token);
                    ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client, page));
                    for (const XmlElement& item : document.root().Items(list)) each(item);
                    return document.root().Text("nextToken");
                  });
}

LaunchTemplate ReadLaunchTemplate(const XmlElement& element) {
  return LaunchTemplate{.launch_template_id = element.Text("launchTemplateId"),
                        .name = element.Text("launchTemplateName"),
                        .default_version = element.Int("defaultVersionNumber").value_or(0),
                        .latest_version = element.Int("latestVersionNumber").value_or(0),
                        .create_time = element.Text("createTime"),
                        .tags = ReadTags(element)};
}

// A decimal number ("0.75", "10.0"); 0 when missing or not a number.
double ReadDouble(const XmlElement& element, std::string_view name) {
  const std::string text = element.Text(name);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return 0;
  return value;
}

std::vector<AcceleratorDeviceInfo> ReadDevices(const XmlElement& element, std::string_view list) {
  std::vector<AcceleratorDeviceInfo> devices;
  for (const XmlElement& item : element.Items(list)) {
    devices.push_back(
        AcceleratorDeviceInfo{.name = item.Text("name"),
                              .manufacturer = item.Text("manufacturer"),
                              .count = item.Int("count").value_or(0),
                              .memory_mib = item.Child("memoryInfo").Int("sizeInMiB").value_or(0),
                              .core_count = item.Child("coreInfo").Int("count").value_or(0)});
  }
  return devices;
}

InstanceTypeInfo ReadInstanceType(const XmlElement& element) {
  const XmlElement network = element.Child("networkInfo");
  InstanceTypeInfo info;
  info.name = element.Text("instanceType");
  info.vcpus = element.Child("vCpuInfo").Int("defaultVCpus").value_or(0);
  info.memory_mib = element.Child("memoryInfo").Int("sizeInMiB").value_or(0);
  info.architectures = ReadStrings(element.Child("processorInfo"), "supportedArchitectures");
  info.usage_classes = ReadStrings(element, "supportedUsageClasses");
  info.max_enis = network.Int("maximumNetworkInterfaces").value_or(0);
  info.ipv4_per_eni = network.Int("ipv4AddressesPerInterface").value_or(0);
  info.local_storage_gb = element.Child("instanceStorageInfo").Int("totalSizeInGB").value_or(0);
  info.efa_max_interfaces = network.Child("efaInfo").Int("maximumEfaInterfaces").value_or(0);
  info.hypervisor = element.Text("hypervisor");
  info.bare_metal = element.Bool("bareMetal").value_or(false);
  info.current_generation = element.Bool("currentGeneration").value_or(false);
  info.cpu_manufacturer = element.Child("processorInfo").Text("manufacturer");
  info.virtualization_types = ReadStrings(element, "supportedVirtualizationTypes");
  const int64_t default_card = network.Int("defaultNetworkCardIndex").value_or(0);
  for (const XmlElement& card : network.Items("networkCards")) {
    const int64_t index = card.Int("networkCardIndex").value_or(0);
    if (index == default_card) {
      info.default_network_card_max_enis = card.Int("maximumNetworkInterfaces").value_or(0);
    }
    if (index == 0) info.network_bandwidth_gbps = ReadDouble(card, "baselineBandwidthInGbps");
  }
  info.encryption_in_transit = network.Bool("encryptionInTransitSupported").value_or(false);
  info.nvme_support = element.Child("instanceStorageInfo").Text("nvmeSupport");
  info.gpus = ReadDevices(element.Child("gpuInfo"), "gpus");
  info.neuron_devices = ReadDevices(element.Child("neuronInfo"), "neuronDevices");
  info.inference_accelerators =
      ReadDevices(element.Child("inferenceAcceleratorInfo"), "accelerators");
  for (const XmlElement& gpu : element.Child("gpuInfo").Items("gpus")) {
    if (info.gpu_name.empty()) {
      info.gpu_name = gpu.Text("name");
      info.gpu_manufacturer = gpu.Text("manufacturer");
    }
    const int64_t count = gpu.Int("count").value_or(0);
    info.gpu_count += count;
    info.gpu_memory_mib += count * gpu.Child("memoryInfo").Int("sizeInMiB").value_or(0);
  }
  return info;
}

// EBS sizes are whole GiB: a size that is not is rounded up, as upstream does.
int64_t VolumeGib(const Quantity& size) {
  constexpr int64_t kGi = int64_t{1} << 30;
  const int64_t bytes = size.units_ceil();
  return bytes / kGi + (bytes % kGi != 0 ? 1 : 0);
}

void AddBlockDeviceMappings(QueryRequest& request, std::string_view prefix,
                            const std::vector<api::BlockDeviceMapping>& mappings) {
  auto flag = [](bool value) { return value ? "true" : "false"; };
  for (size_t i = 0; i < mappings.size(); ++i) {
    const api::BlockDeviceMapping& mapping = mappings[i];
    const std::string at = fmt::format("{}BlockDeviceMapping.{}.", prefix, i + 1);
    if (!mapping.device_name.empty()) request.Add(at + "DeviceName", mapping.device_name);
    if (!mapping.ebs.has_value()) continue;
    const api::BlockDevice& ebs = *mapping.ebs;
    if (ebs.delete_on_termination) {
      request.Add(at + "Ebs.DeleteOnTermination", flag(*ebs.delete_on_termination));
    }
    if (ebs.encrypted) request.Add(at + "Ebs.Encrypted", flag(*ebs.encrypted));
    if (!ebs.volume_type.empty()) request.Add(at + "Ebs.VolumeType", ebs.volume_type);
    if (ebs.iops) request.Add(at + "Ebs.Iops", std::to_string(*ebs.iops));
    if (ebs.throughput) request.Add(at + "Ebs.Throughput", std::to_string(*ebs.throughput));
    if (!ebs.kms_key_id.empty()) request.Add(at + "Ebs.KmsKeyId", ebs.kms_key_id);
    if (!ebs.snapshot_id.empty()) request.Add(at + "Ebs.SnapshotId", ebs.snapshot_id);
    if (ebs.volume_size) {
      request.Add(at + "Ebs.VolumeSize", std::to_string(VolumeGib(*ebs.volume_size)));
    }
  }
}

// What an instance launches with, as CreateLaunchTemplate's LaunchTemplateData (prefix
// "LaunchTemplateData.") or RunInstances's own parameters (prefix ""): the two name them alike.
void AddLaunchData(QueryRequest& request, const std::string& prefix,
                   const LaunchTemplateInput& input) {
  request.Add(prefix + "ImageId", input.image_id);
  // The primary interface is always given, as upstream does, so the security groups go on it
  // (EC2 refuses them in both places).
  const std::string interface = prefix + "NetworkInterface.1.";
  if (input.associate_public_ip_address.has_value()) {
    request.Add(interface + "AssociatePublicIpAddress",
                *input.associate_public_ip_address ? "true" : "false");
  }
  request.Add(interface + "DeviceIndex", "0")
      .AddList(interface + "SecurityGroupId", input.security_group_ids);
  AddBlockDeviceMappings(request, prefix, input.block_device_mappings);
  request.Add(prefix + "Monitoring.Enabled", input.detailed_monitoring ? "true" : "false")
      .Add(prefix + "MetadataOptions.HttpEndpoint", input.metadata.http_endpoint)
      .Add(prefix + "MetadataOptions.HttpTokens", input.metadata.http_tokens)
      .Add(prefix + "MetadataOptions.HttpPutResponseHopLimit",
           std::to_string(input.metadata.http_put_response_hop_limit))
      .Add(prefix + "MetadataOptions.HttpProtocolIpv6", input.metadata.http_protocol_ipv6)
      // Karpenter's tag keys are not valid instance metadata tag names: an account default that
      // turns metadata tags on would fail the launch.
      .Add(prefix + "MetadataOptions.InstanceMetadataTags", "disabled");
  if (!input.instance_profile.empty()) {
    request.Add(prefix + "IamInstanceProfile.Name", input.instance_profile);
  }
  if (!input.user_data_base64.empty()) request.Add(prefix + "UserData", input.user_data_base64);
  if (!input.capacity_reservation_preference.empty()) {
    request.Add(prefix + "CapacityReservationSpecification.CapacityReservationPreference",
                input.capacity_reservation_preference);
  }
  if (!input.capacity_reservation_id.empty()) {
    request.Add(
        prefix + "CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId",
        input.capacity_reservation_id);
  }
}

// The CreateLaunchTemplate request for `input`.
QueryRequest LaunchTemplateRequest(const LaunchTemplateInput& input) {
  QueryRequest request = Ec2Request("CreateLaunchTemplate");
  request.Add("LaunchTemplateName", input.name);
  AddLaunchData(request, "LaunchTemplateData.", input);
  if (!input.tags.empty()) {
    request.AddTagSpecifications({{"launch-template", TagPairs(input.tags)}});
    request.AddTagSpecifications({{"network-interface", TagPairs(input.tags)}},
                                 "LaunchTemplateData.TagSpecification");
  }
  return request;
}

// A DryRun request's verdict: EC2 answers DryRunOperation when the call would have succeeded.
Status DryRunVerdict(const Result<XmlDocument>& answer, std::string_view action) {
  if (answer.ok()) {
    return Error(fmt::format("ec2 {}: a DryRun request was carried out", action));
  }
  if (answer.error().reason == "DryRunOperation") return {};
  return answer.error();
}

QueryRequest FleetRequest(const FleetInput& input) {
  QueryRequest request = Ec2Request("CreateFleet");
  if (!input.context.empty()) request.Add("Context", input.context);
  request.Add("Type", "instant")
      .Add("TargetCapacitySpecification.TotalTargetCapacity", std::to_string(input.target_capacity))
      .Add("TargetCapacitySpecification.DefaultTargetCapacityType",
           CapacityTypeName(input.capacity_type));
  for (size_t i = 0; i < input.launch_templates.size(); ++i) {
    const FleetLaunchTemplateConfig& config = input.launch_templates[i];
    const std::string prefix = "LaunchTemplateConfigs." + std::to_string(i + 1) + ".";
    request.Add(prefix + "LaunchTemplateSpecification.LaunchTemplateName",
                config.launch_template_name);
    request.Add(prefix + "LaunchTemplateSpecification.Version", "$Latest");
    for (size_t j = 0; j < config.overrides.size(); ++j) {
      const FleetOverride& override = config.overrides[j];
      const std::string at = prefix + "Overrides." + std::to_string(j + 1) + ".";
      request.Add(at + "InstanceType", override.instance_type);
      request.Add(at + "SubnetId", override.subnet_id);
      if (!override.zone.empty()) request.Add(at + "AvailabilityZone", override.zone);
      if (override.priority) request.Add(at + "Priority", std::to_string(*override.priority));
    }
  }
  if (!input.allocation_strategy.empty()) {
    request.Add(input.capacity_type == CapacityType::kSpot ? "SpotOptions.AllocationStrategy"
                                                           : "OnDemandOptions.AllocationStrategy",
                input.allocation_strategy);
  }
  if (!input.tags.empty()) {
    std::vector<QueryTagSpecification> specifications;
    for (const std::string& type : input.tagged_resource_types) {
      specifications.push_back({type, TagPairs(input.tags)});
    }
    request.AddTagSpecifications(specifications);
  }
  return request;
}

Instance ReadInstance(const XmlElement& element) {
  std::string lifecycle = element.Text("instanceLifecycle");
  if (lifecycle.empty()) lifecycle = CapacityTypeName(CapacityType::kOnDemand);
  const std::string launch_time = element.Text("launchTime");
  std::vector<std::string> groups;
  for (const XmlElement& group : element.Items("groupSet")) groups.push_back(group.Text("groupId"));
  return Instance{.instance_id = element.Text("instanceId"),
                  .instance_type = element.Text("instanceType"),
                  .zone = element.Child("placement").Text("availabilityZone"),
                  .subnet_id = element.Text("subnetId"),
                  .image_id = element.Text("imageId"),
                  .state = element.Child("instanceState").Text("name"),
                  .launch_time = ParseTime(launch_time),
                  .tags = ReadTags(element),
                  .lifecycle = std::move(lifecycle),
                  .private_dns_name = element.Text("privateDnsName"),
                  .security_group_ids = std::move(groups),
                  .capacity_reservation_id = element.Text("capacityReservationId")};
}

}  // namespace

std::string CapacityTypeName(CapacityType type) {
  return type == CapacityType::kSpot ? "spot" : "on-demand";
}

Result<std::vector<Subnet>> Ec2Api::DescribeSubnets(const std::vector<QueryFilter>& filters) {
  QueryRequest request = Ec2Request("DescribeSubnets");
  request.AddFilters(filters);
  std::vector<Subnet> subnets;
  Status status = DescribeAll(client_, request, "subnetSet", [&](const XmlElement& item) {
    subnets.push_back(
        Subnet{.subnet_id = item.Text("subnetId"),
               .zone = item.Text("availabilityZone"),
               .zone_id = item.Text("availabilityZoneId"),
               .available_ip_address_count = item.Int("availableIpAddressCount").value_or(0),
               .vpc_id = item.Text("vpcId"),
               .tags = ReadTags(item),
               .map_public_ip_on_launch = item.Bool("mapPublicIpOnLaunch").value_or(false)});
  });
  if (!status.ok()) return status.error();
  return subnets;
}

Result<std::vector<CapacityReservation>> Ec2Api::DescribeCapacityReservations(
    const std::vector<std::string>& ids, const std::vector<QueryFilter>& filters) {
  QueryRequest request = Ec2Request("DescribeCapacityReservations");
  request.AddList("CapacityReservationId", ids);
  request.AddFilters(filters);
  // EC2 refuses MaxResults beside ids; without ids, the largest page it allows.
  if (ids.empty()) request.Add("MaxResults", "1000");
  std::vector<CapacityReservation> reservations;
  Status status =
      DescribeAll(client_, request, "capacityReservationSet", [&](const XmlElement& item) {
        const std::string end_date = item.Text("endDate");
        reservations.push_back(CapacityReservation{
            .id = item.Text("capacityReservationId"),
            .owner_id = item.Text("ownerId"),
            .instance_type = item.Text("instanceType"),
            .instance_platform = item.Text("instancePlatform"),
            .zone = item.Text("availabilityZone"),
            .tenancy = item.Text("tenancy"),
            .instance_match_criteria = item.Text("instanceMatchCriteria"),
            .reservation_type = item.Text("reservationType"),
            .state = item.Text("state"),
            .total_instance_count = item.Int("totalInstanceCount").value_or(0),
            .available_instance_count = item.Int("availableInstanceCount").value_or(0),
            .end_date = end_date.empty() ? std::nullopt : ParseTime(end_date),
            .tags = ReadTags(item)});
      });
  if (!status.ok()) return status.error();
  return reservations;
}

Result<std::vector<SecurityGroup>> Ec2Api::DescribeSecurityGroups(
    const std::vector<QueryFilter>& filters) {
  QueryRequest request = Ec2Request("DescribeSecurityGroups");
  request.AddFilters(filters);
  std::vector<SecurityGroup> groups;
  Status status = DescribeAll(client_, request, "securityGroupInfo", [&](const XmlElement& item) {
    groups.push_back(SecurityGroup{.group_id = item.Text("groupId"),
                                   .group_name = item.Text("groupName"),
                                   .vpc_id = item.Text("vpcId"),
                                   .tags = ReadTags(item)});
  });
  if (!status.ok()) return status.error();
  return groups;
}

Result<std::vector<Image>> Ec2Api::DescribeImages(const ImageQuery& query) {
  QueryRequest request = Ec2Request("DescribeImages");
  request.AddList("Owner", query.owners);
  request.AddList("ImageId", query.image_ids);
  request.AddFilters(query.filters);
  request.Add("IncludeDeprecated", "true");
  std::vector<Image> images;
  Status status = DescribeAll(client_, request, "imagesSet", [&](const XmlElement& item) {
    images.push_back(Image{.image_id = item.Text("imageId"),
                           .name = item.Text("name"),
                           .architecture = item.Text("architecture"),
                           .creation_date = item.Text("creationDate"),
                           .state = item.Text("imageState"),
                           .tags = ReadTags(item),
                           .deprecation_time = item.Text("deprecationTime")});
  });
  if (!status.ok()) return status.error();
  return images;
}

Result<std::vector<InstanceTypeInfo>> Ec2Api::DescribeInstanceTypes(
    const std::vector<std::string>& names) {
  QueryRequest request = Ec2Request("DescribeInstanceTypes");
  request.AddList("InstanceType", names);
  std::vector<InstanceTypeInfo> types;
  Status status = DescribeAll(client_, request, "instanceTypeSet", [&](const XmlElement& item) {
    types.push_back(ReadInstanceType(item));
  });
  if (!status.ok()) return status.error();
  return types;
}

Result<std::vector<InstanceTypeOffering>> Ec2Api::DescribeInstanceTypeOfferings(
    const std::vector<QueryFilter>& filters) {
  QueryRequest request = Ec2Request("DescribeInstanceTypeOfferings");
  request.Add("LocationType", "availability-zone");
  request.AddFilters(filters);
  std::vector<InstanceTypeOffering> offerings;
  Status status =
      DescribeAll(client_, request, "instanceTypeOfferingSet", [&](const XmlElement& item) {
        offerings.push_back(InstanceTypeOffering{.instance_type = item.Text("instanceType"),
                                                 .zone = item.Text("location")});
      });
  if (!status.ok()) return status.error();
  return offerings;
}

Result<std::vector<SpotPrice>> Ec2Api::DescribeSpotPriceHistory(
    TimePoint start_time, const std::vector<std::string>& product_descriptions,
    const std::vector<std::string>& instance_types) {
  QueryRequest request = Ec2Request("DescribeSpotPriceHistory");
  request.Add("StartTime", FormatTime(start_time));
  request.AddList("ProductDescription", product_descriptions);
  request.AddList("InstanceType", instance_types);
  std::map<std::pair<std::string, std::string>, SpotPrice> latest;
  Status status = DescribeAll(client_, request, "spotPriceHistorySet", [&](const XmlElement& item) {
    SpotPrice price{.instance_type = item.Text("instanceType"),
                    .zone = item.Text("availabilityZone"),
                    .price = ReadDouble(item, "spotPrice"),
                    .timestamp = ParseTime(item.Text("timestamp")),
                    .product_description = item.Text("productDescription")};
    if (price.instance_type.empty() || price.zone.empty() || !(price.price > 0)) return;
    auto key = std::make_pair(price.instance_type, price.zone);
    auto it = latest.find(key);
    if (it == latest.end()) {
      latest.emplace(std::move(key), std::move(price));
    } else if (price.timestamp.value_or(TimePoint()) > it->second.timestamp.value_or(TimePoint())) {
      it->second = std::move(price);
    }
  });
  if (!status.ok()) return status.error();
  std::vector<SpotPrice> prices;
  prices.reserve(latest.size());
  for (auto& [key, price] : latest) prices.push_back(std::move(price));
  return prices;
}

Result<LaunchTemplate> Ec2Api::CreateLaunchTemplate(const LaunchTemplateInput& input) {
  ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client_, LaunchTemplateRequest(input)));
  const XmlElement created = document.root().Child("launchTemplate");
  if (created.Text("launchTemplateId").empty()) {
    return Error{"ec2 CreateLaunchTemplate " + input.name +
                 ": the answer has no launchTemplate.launchTemplateId"};
  }
  return ReadLaunchTemplate(created);
}

Result<std::vector<LaunchTemplate>> Ec2Api::DescribeLaunchTemplates(
    const std::vector<QueryFilter>& filters) {
  QueryRequest request = Ec2Request("DescribeLaunchTemplates");
  request.AddFilters(filters);
  // The largest page EC2 allows: fewer round trips (and moto, which does not paginate this call,
  // would otherwise answer only its default 15).
  request.Add("MaxResults", "200");
  std::vector<LaunchTemplate> templates;
  Status status = DescribeAll(client_, request, "launchTemplates", [&](const XmlElement& item) {
    templates.push_back(ReadLaunchTemplate(item));
  });
  if (!status.ok()) return status.error();
  return templates;
}

Status Ec2Api::DeleteLaunchTemplate(const std::string& name) {
  QueryRequest request = Ec2Request("DeleteLaunchTemplate");
  request.Add("LaunchTemplateName", name);
  ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client_, request));
  return {};
}

Status Ec2Api::DryRunCreateFleet(const FleetInput& input) {
  QueryRequest request = FleetRequest(input);
  request.Add("DryRun", "true");
  return DryRunVerdict(CallQuery(client_, request), "CreateFleet");
}

Status Ec2Api::DryRunCreateLaunchTemplate(const LaunchTemplateInput& input) {
  QueryRequest request = LaunchTemplateRequest(input);
  request.Add("DryRun", "true");
  return DryRunVerdict(CallQuery(client_, request), "CreateLaunchTemplate");
}

Status Ec2Api::DryRunRunInstances(const LaunchTemplateInput& launch, std::string_view instance_type,
                                  std::string_view subnet_id) {
  QueryRequest request = Ec2Request("RunInstances");
  AddLaunchData(request, "", launch);
  request.Add("InstanceType", std::string(instance_type))
      .Add("MinCount", "1")
      .Add("MaxCount", "1")
      .Add("NetworkInterface.1.SubnetId", std::string(subnet_id))
      .Add("DryRun", "true");
  if (!launch.tags.empty()) {
    request.AddTagSpecifications({{"instance", TagPairs(launch.tags)},
                                  {"volume", TagPairs(launch.tags)},
                                  {"network-interface", TagPairs(launch.tags)}});
  }
  return DryRunVerdict(CallQuery(client_, request), "RunInstances");
}

Result<FleetResult> Ec2Api::CreateFleet(const FleetInput& input) {
  const QueryRequest request = FleetRequest(input);
  ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client_, request));

  const XmlElement root = document.root();
  FleetResult result;
  result.fleet_id = root.Text("fleetId");
  for (const XmlElement& launched : root.Items("fleetInstanceSet")) {
    const XmlElement override = launched.Child("launchTemplateAndOverrides").Child("overrides");
    for (const std::string& id : ReadStrings(launched, "instanceIds")) {
      result.instances.push_back(FleetInstance{.instance_id = id,
                                               .instance_type = launched.Text("instanceType"),
                                               .zone = override.Text("availabilityZone"),
                                               .subnet_id = override.Text("subnetId"),
                                               .lifecycle = launched.Text("lifecycle")});
    }
  }
  for (const XmlElement& failed : root.Items("errorSet")) {
    const XmlElement override = failed.Child("launchTemplateAndOverrides").Child("overrides");
    result.errors.push_back(FleetError{.code = failed.Text("errorCode"),
                                       .message = failed.Text("errorMessage"),
                                       .instance_type = override.Text("instanceType"),
                                       .zone = override.Text("availabilityZone"),
                                       .subnet_id = override.Text("subnetId"),
                                       .lifecycle = failed.Text("lifecycle")});
  }
  return result;
}

Result<std::vector<Instance>> Ec2Api::DescribeInstances(
    const std::vector<std::string>& instance_ids, const std::vector<QueryFilter>& filters) {
  QueryRequest request = Ec2Request("DescribeInstances");
  request.AddList("InstanceId", instance_ids);
  request.AddFilters(filters);
  std::vector<Instance> instances;
  Status status = DescribeAll(client_, request, "reservationSet", [&](const XmlElement& item) {
    for (const XmlElement& instance : item.Items("instancesSet")) {
      instances.push_back(ReadInstance(instance));
    }
  });
  if (!status.ok()) return status.error();
  return instances;
}

Result<std::vector<InstanceStateChange>> Ec2Api::TerminateInstances(
    const std::vector<std::string>& instance_ids) {
  QueryRequest request = Ec2Request("TerminateInstances");
  request.AddList("InstanceId", instance_ids);
  ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client_, request));
  std::vector<InstanceStateChange> changes;
  for (const XmlElement& item : document.root().Items("instancesSet")) {
    changes.push_back(
        InstanceStateChange{.instance_id = item.Text("instanceId"),
                            .previous_state = item.Child("previousState").Text("name"),
                            .current_state = item.Child("currentState").Text("name")});
  }
  return changes;
}

Status Ec2Api::CreateTags(const std::vector<std::string>& resource_ids, const Ec2Tags& tags) {
  QueryRequest request = Ec2Request("CreateTags");
  request.AddList("ResourceId", resource_ids);
  AddTags(request, tags);
  RETURN_IF_ERROR(CallQuery(client_, request));
  return {};
}

Status Ec2Api::DeleteTags(const std::vector<std::string>& resource_ids, const Ec2Tags& tags) {
  QueryRequest request = Ec2Request("DeleteTags");
  request.AddList("ResourceId", resource_ids);
  AddTags(request, tags);
  RETURN_IF_ERROR(CallQuery(client_, request));
  return {};
}

Result<std::string> Ec2Api::DescribeInstanceUserData(const std::string& instance_id) {
  QueryRequest request = Ec2Request("DescribeInstanceAttribute");
  request.Add("InstanceId", instance_id);
  request.Add("Attribute", "userData");
  ASSIGN_OR_RETURN(XmlDocument document, CallQuery(client_, request));
  return document.root().Child("userData").Text("value");
}

}  // namespace karpenter::aws
