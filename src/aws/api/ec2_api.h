#pragma once
// The EC2 calls the AWS provider makes, typed: discovery of subnets, security groups, images and
// instance types; launch templates; CreateFleet launches; and the instances' lifecycle. Describe
// calls follow NextToken to the last page. Errors name the operation; those EC2 returns carry its
// error code as the reason.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/ec2nodeclass.h"
#include "aws/sdk/query_protocol.h"
#include "aws/sdk/service_client.h"
#include "common/clock.h"
#include "common/result.h"

namespace karpenter::aws {

using Ec2Tags = std::map<std::string, std::string>;

struct Subnet {
  std::string subnet_id;
  std::string zone;     // "us-west-2a"
  std::string zone_id;  // "usw2-az2": the same physical zone in every account
  int64_t available_ip_address_count = 0;
  std::string vpc_id;
  Ec2Tags tags;
  bool map_public_ip_on_launch = false;  // instances launched here get a public IPv4 address
};

struct SecurityGroup {
  std::string group_id;
  std::string group_name;
  std::string vpc_id;
  Ec2Tags tags;
};

struct Image {
  std::string image_id;
  std::string name;
  std::string architecture;   // "x86_64", "arm64"
  std::string creation_date;  // ISO 8601, as EC2 gives it; sorts by time
  std::string state;          // "available", "pending", …
  Ec2Tags tags;
  std::string deprecation_time;  // ISO 8601; "" when it is not (to be) deprecated
};

// Which images DescribeImages returns: those matching all of the given criteria, deprecated ones
// included (the resolver prefers others, as upstream).
struct ImageQuery {
  std::vector<std::string> owners;  // account ids, "self", "amazon"
  std::vector<std::string> image_ids;
  std::vector<QueryFilter> filters;
};

// A kind of GPU, Neuron device or inference accelerator of an instance type.
struct AcceleratorDeviceInfo {
  std::string name;          // "T4", "Inferentia2", as EC2 names it
  std::string manufacturer;  // "NVIDIA", "AWS"
  int64_t count = 0;
  int64_t memory_mib = 0;  // per device, 0 when not reported
  int64_t core_count = 0;  // per device (Neuron), 0 when not reported
};

struct InstanceTypeInfo {
  std::string name;  // "m5.large"
  int64_t vcpus = 0;
  int64_t memory_mib = 0;
  std::vector<std::string> architectures;
  std::vector<std::string> usage_classes;  // "on-demand", "spot"
  int64_t max_enis = 0;
  int64_t ipv4_per_eni = 0;
  int64_t gpu_count = 0;  // summed over the GPU kinds; the name is the first kind's
  std::string gpu_name;
  std::string gpu_manufacturer;
  int64_t gpu_memory_mib = 0;
  int64_t local_storage_gb = 0;  // instance store, 0 without
  int64_t efa_max_interfaces = 0;
  std::string hypervisor;  // "nitro", "xen"; empty on bare metal
  bool bare_metal = false;
  bool current_generation = false;
  std::string cpu_manufacturer;                   // "Intel", "AMD", "AWS", as EC2 names it
  std::vector<std::string> virtualization_types;  // "hvm", "paravirtual"
  int64_t default_network_card_max_enis = 0;      // of the default network card; 0 = unknown
  double network_bandwidth_gbps = 0;              // baseline of network card 0
  bool encryption_in_transit = false;
  std::string nvme_support;  // of the instance store: "required", "supported", "unsupported"
  std::vector<AcceleratorDeviceInfo> gpus;
  std::vector<AcceleratorDeviceInfo> neuron_devices;
  std::vector<AcceleratorDeviceInfo> inference_accelerators;
};

// The latest spot price of an instance type in a zone.
struct SpotPrice {
  std::string instance_type;
  std::string zone;
  double price = 0;  // USD per hour
  std::optional<TimePoint> timestamp;
  std::string product_description;  // "Linux/UNIX", "Linux/UNIX (Amazon VPC)"
};

// An On-Demand Capacity Reservation as DescribeCapacityReservations reports it.
struct CapacityReservation {
  std::string id;
  std::string owner_id;
  std::string instance_type;
  std::string instance_platform;  // "Linux/UNIX", "Windows", …
  std::string zone;
  std::string tenancy;                  // "default", "dedicated"
  std::string instance_match_criteria;  // "open", "targeted"
  std::string reservation_type;         // "default", "capacity-block"
  std::string state;                    // "active", "expired", "cancelled", …
  int64_t total_instance_count = 0;
  int64_t available_instance_count = 0;
  std::optional<TimePoint> end_date;  // nullopt: it does not end
  Ec2Tags tags;
};

struct InstanceTypeOffering {
  std::string instance_type;
  std::string zone;
};

struct LaunchTemplateInput {
  std::string name;
  std::string image_id;
  std::string instance_profile;  // the profile's name
  std::vector<std::string> security_group_ids;
  std::string user_data_base64;
  // On the launch template, and on the network interfaces launched from it: a fleet's own tag
  // specifications cannot tag those, and the scoped policy lets a launch create only tagged ones.
  Ec2Tags tags;
  api::MetadataOptions metadata;                               // the EC2NodeClass's, as given
  std::vector<api::BlockDeviceMapping> block_device_mappings;  // none: the AMI's own
  bool detailed_monitoring = false;
  // Whether the primary network interface gets a public IPv4 address; unset: the subnet decides.
  std::optional<bool> associate_public_ip_address;
  // CapacityReservationSpecification (docs/upstream-reference.md §6, capacity reservations):
  // "capacity-reservations-only" with the reservation a reserved launch goes into, "none" to keep
  // other launches out of open reservations, "" to send nothing (EC2's default, open).
  std::string capacity_reservation_preference;
  std::string capacity_reservation_id;
};

struct LaunchTemplate {
  std::string launch_template_id;
  std::string name;
  int64_t default_version = 0;
  int64_t latest_version = 0;
  std::string create_time;
  Ec2Tags tags;
};

enum class CapacityType { kOnDemand, kSpot };
// "on-demand" or "spot", as EC2 names lifecycles and target capacity types.
std::string CapacityTypeName(CapacityType type);

// One candidate of a fleet request: an instance type in a subnet (and that subnet's zone).
struct FleetOverride {
  std::string instance_type;
  std::string subnet_id;
  std::string zone;
  std::optional<double> priority;  // for the "prioritized" allocation strategy

  bool operator==(const FleetOverride&) const = default;
};

struct FleetLaunchTemplateConfig {
  std::string launch_template_name;  // at its $Latest version
  std::vector<FleetOverride> overrides;

  bool operator==(const FleetLaunchTemplateConfig&) const = default;
};

struct FleetInput {
  std::vector<FleetLaunchTemplateConfig> launch_templates;
  int target_capacity = 1;
  CapacityType capacity_type = CapacityType::kOnDemand;
  // "lowest-price" or "prioritized" on demand; "price-capacity-optimized", … for spot.
  std::string allocation_strategy;
  Ec2Tags tags;
  std::string context;  // the EC2NodeClass's spec.context (reserved capacity contexts)
  // The resources that get `tags`: the instances, their volumes and the fleet request.
  std::vector<std::string> tagged_resource_types = {"instance", "volume", "fleet"};

  // Equal requests launch interchangeable instances: one request can launch them together.
  bool operator==(const FleetInput&) const = default;
};

// The zone and subnet are those of the override that launched the instance, as the request named
// them: the zone is empty when that override named none.
struct FleetInstance {
  std::string instance_id;
  std::string instance_type;
  std::string zone;
  std::string subnet_id;
  std::string lifecycle;  // "on-demand", "spot"
};

// One candidate EC2 could not launch; Karpenter marks such offerings unavailable for a while.
struct FleetError {
  std::string code;  // "InsufficientInstanceCapacity", …
  std::string message;
  std::string instance_type;
  std::string zone;
  std::string subnet_id;
  std::string lifecycle;
};

struct FleetResult {
  std::string fleet_id;
  std::vector<FleetInstance> instances;
  std::vector<FleetError> errors;
};

struct Instance {
  std::string instance_id;
  std::string instance_type;
  std::string zone;
  std::string subnet_id;
  std::string image_id;
  std::string state;  // "pending", "running", "shutting-down", "terminated", …
  std::optional<TimePoint> launch_time;
  Ec2Tags tags;
  std::string lifecycle;  // "on-demand" or "spot" (EC2 omits it for on-demand)
  std::string private_dns_name;
  std::vector<std::string> security_group_ids;
  std::string capacity_reservation_id;  // the reservation it runs in; "" when none
};

struct InstanceStateChange {
  std::string instance_id;
  std::string previous_state;
  std::string current_state;
};

// Not thread-safe, as its ServiceClient is not.
class Ec2Api {
 public:
  // `client` is the ec2 ServiceClient (AwsClients::ec2()) and must outlive this.
  explicit Ec2Api(ServiceClient& client) : client_(client) {}

  Result<std::vector<Subnet>> DescribeSubnets(const std::vector<QueryFilter>& filters);
  Result<std::vector<SecurityGroup>> DescribeSecurityGroups(
      const std::vector<QueryFilter>& filters);
  Result<std::vector<Image>> DescribeImages(const ImageQuery& query);
  // All types when `names` is empty.
  Result<std::vector<InstanceTypeInfo>> DescribeInstanceTypes(
      const std::vector<std::string>& names = {});
  // Which types each availability zone of the region offers (those matching `filters`).
  Result<std::vector<InstanceTypeOffering>> DescribeInstanceTypeOfferings(
      const std::vector<QueryFilter>& filters = {});

  // The spot prices in effect from `start_time` on for the given product descriptions (and
  // types; all when empty), reduced to the latest per (instance type, zone), sorted by both.
  Result<std::vector<SpotPrice>> DescribeSpotPriceHistory(
      TimePoint start_time, const std::vector<std::string>& product_descriptions = {"Linux/UNIX"},
      const std::vector<std::string>& instance_types = {});

  // The reservations with these ids (none: all) that match `filters`.
  Result<std::vector<CapacityReservation>> DescribeCapacityReservations(
      const std::vector<std::string>& ids, const std::vector<QueryFilter>& filters);

  Result<LaunchTemplate> CreateLaunchTemplate(const LaunchTemplateInput& input);
  Result<std::vector<LaunchTemplate>> DescribeLaunchTemplates(
      const std::vector<QueryFilter>& filters);
  Status DeleteLaunchTemplate(const std::string& name);

  // An "instant" fleet: launches synchronously and reports what it launched and what it could
  // not. The call succeeds when EC2 accepted the request, even if it launched nothing.
  Result<FleetResult> CreateFleet(const FleetInput& input);
  // Whether EC2 would authorize these calls (DryRun): OK when it answers DryRunOperation, the
  // error (UnauthorizedOperation, …) otherwise. CreateLaunchTemplate is asked exactly as
  // CreateLaunchTemplate would send it; RunInstances launches one `instance_type` in `subnet_id`
  // with `launch`'s data, tagging the instance, its volumes and interface with launch.tags.
  Status DryRunCreateFleet(const FleetInput& input);
  Status DryRunCreateLaunchTemplate(const LaunchTemplateInput& input);
  Status DryRunRunInstances(const LaunchTemplateInput& launch, std::string_view instance_type,
                            std::string_view subnet_id);

  Result<std::vector<Instance>> DescribeInstances(const std::vector<std::string>& instance_ids,
                                                  const std::vector<QueryFilter>& filters = {});
  Result<std::vector<InstanceStateChange>> TerminateInstances(
      const std::vector<std::string>& instance_ids);
  Status CreateTags(const std::vector<std::string>& resource_ids, const Ec2Tags& tags);
  // Removes the tags from the resources: each only where it has that value (EC2 leaves a tag whose
  // value differs).
  Status DeleteTags(const std::vector<std::string>& resource_ids, const Ec2Tags& tags);
  // The instance's user data as EC2 keeps it (base64); empty when it has none.
  Result<std::string> DescribeInstanceUserData(const std::string& instance_id);

 private:
  ServiceClient& client_;
};

}  // namespace karpenter::aws
