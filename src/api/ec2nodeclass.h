#pragma once
// karpenter.k8s.aws/v1 EC2NodeClass: how AWS capacity is launched.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/condition.h"
#include "api/node_selector.h"
#include "api/object_meta.h"
#include "common/quantity.h"

namespace karpenter::api {

struct SelectorTerm {  // subnets and security groups
  Labels tags;
  std::string id;
  std::string name;  // security groups only
};

struct AmiSelectorTerm {
  std::string alias;
  Labels tags;
  std::string id;
  std::string name;
  std::string owner;
  std::string ssm_parameter;
};

// Selects On-Demand Capacity Reservations: by id alone, or by tags and/or match criteria, narrowed
// by the owning account. Terms are ORed (each is its own query), as upstream's code does.
struct CapacityReservationSelectorTerm {
  Labels tags = {};  // a value of "*" matches any value of that key
  std::string id = {};
  std::string owner_id = {};
  std::string instance_match_criteria = {};  // "open" or "targeted"; "" for any
};

struct KubeletConfiguration {
  std::optional<int32_t> max_pods;
  std::optional<int32_t> pods_per_core;
  Labels system_reserved;
  Labels kube_reserved;
  Labels eviction_hard;
  Labels eviction_soft;
  Labels eviction_soft_grace_period;
  std::optional<int32_t> eviction_max_pod_grace_period;
  std::optional<int32_t> image_gc_high_threshold_percent;
  std::optional<int32_t> image_gc_low_threshold_percent;
  std::optional<bool> cpu_cfs_quota;
  std::vector<std::string> cluster_dns;
};

struct BlockDevice {
  std::optional<bool> delete_on_termination;
  std::optional<bool> encrypted;
  std::optional<int64_t> iops;
  std::string kms_key_id;
  std::string snapshot_id;
  std::optional<int64_t> throughput;
  std::optional<Quantity> volume_size;
  std::string volume_type;
};

struct BlockDeviceMapping {
  std::string device_name;
  std::optional<BlockDevice> ebs;
  bool root_volume = false;
};

struct MetadataOptions {
  std::string http_endpoint = "enabled";
  std::string http_protocol_ipv6 = "disabled";
  int32_t http_put_response_hop_limit = 1;
  std::string http_tokens = "required";
};

struct EC2NodeClassSpec {
  std::vector<SelectorTerm> subnet_selector_terms;
  std::vector<SelectorTerm> security_group_selector_terms;
  std::vector<AmiSelectorTerm> ami_selector_terms;
  std::string ami_family;
  std::string role;
  std::string instance_profile;
  Labels tags;
  std::optional<KubeletConfiguration> kubelet;
  std::vector<BlockDeviceMapping> block_device_mappings;
  std::string instance_store_policy;
  MetadataOptions metadata_options;
  std::string user_data;
  std::optional<bool> associate_public_ip_address;
  std::optional<bool> detailed_monitoring;
  std::string context;
  std::vector<CapacityReservationSelectorTerm> capacity_reservation_selector_terms;
};

// Status entries: what the selector terms resolved to.
struct SubnetStatus {
  std::string id;
  std::string zone;
  std::string zone_id;
};

struct SecurityGroupStatus {
  std::string id;
  std::string name;
};

struct AmiStatus {
  std::string id;
  std::string name;
  std::vector<NodeSelectorRequirement> requirements;
  bool deprecated = false;  // chosen only because nothing else matched its requirements
};

// A selected capacity reservation (status.capacityReservations).
struct CapacityReservationStatus {
  std::string id;
  std::string instance_type;
  std::string owner_id;
  std::string zone;                          // availabilityZone
  std::string instance_match_criteria;       // "open" or "targeted"
  std::string reservation_type = "default";  // "default" or "capacity-block"
  std::string state = "active";              // "active" or "expiring"
  std::string end_time;                      // RFC 3339; "" when it does not end
};

// The amiFamily an alias family stands for ("al2023" -> "AL2023"), or nullopt when unknown.
std::optional<std::string_view> AmiFamilyOfAlias(std::string_view alias_family);

struct EC2NodeClass {
  ObjectMeta metadata;
  EC2NodeClassSpec spec;
  struct Status {
    std::vector<Condition> conditions;
    std::string instance_profile;
    std::vector<SubnetStatus> subnets;  // most free IPs first
    std::vector<SecurityGroupStatus> security_groups;
    std::vector<AmiStatus> amis;
    std::vector<CapacityReservationStatus> capacity_reservations;  // by id
  } status;

  // The family that shapes the user data, default volumes and overhead: spec.amiFamily when set
  // (with an alias it is that alias's family or Custom), else the alias's family, as upstream.
  std::string EffectiveAmiFamily() const;
  // The volumes an instance launches with: spec.blockDeviceMappings when given, else the AMI
  // family's defaults (docs/upstream-reference.md §6): /dev/xvda 20Gi for AL2 and AL2023,
  // /dev/xvda 4Gi (the OS) and /dev/xvdb 20Gi (the data) for Bottlerocket, /dev/sda1 50Gi for
  // Windows, all gp3 and encrypted; none for Custom (the AMI's own).
  std::vector<BlockDeviceMapping> LaunchBlockDeviceMappings() const;
  // The size of the volume pods' ephemeral storage lives on, when the mappings say: the one
  // marked rootVolume, else the family's data device (/dev/xvdb for Bottlerocket, /dev/sda1 for
  // Windows, else /dev/xvda), else for Custom the last mapping. Nullopt: the family's default.
  std::optional<Quantity> EphemeralVolumeSize() const;
};

}  // namespace karpenter::api
