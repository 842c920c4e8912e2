// Decoders for the Karpenter kinds: NodePool and NodeClaim (karpenter.sh/v1), NodeOverlay
// (karpenter.sh/v1alpha1) and EC2NodeClass (karpenter.k8s.aws/v1); and for the CapacityBuffer
// (autoscaling.x-k8s.io/v1beta1) Karpenter provisions for. Decoding checks types, enums and
// spellings; ValidateNodePool & co. check the rest before the object is kept.

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/decode_internal.h"
#include "api/validation.h"

namespace karpenter::api::decode_internal {
namespace {

// For upstream EC2NodeClass fields not implemented here (docs/differences-from-upstream.md).
constexpr std::string_view kNotSupportedYet =
    "not supported by this controller yet: remove it (docs/differences-from-upstream.md)";

constexpr std::pair<std::string_view, ConsolidationPolicy> kConsolidationPolicies[] = {
    {"WhenEmptyOrUnderutilized", ConsolidationPolicy::kWhenEmptyOrUnderutilized},
    {"WhenEmpty", ConsolidationPolicy::kWhenEmpty},
    {"Balanced", ConsolidationPolicy::kBalanced},
};

constexpr std::pair<std::string_view, DisruptionReason> kDisruptionReasons[] = {
    {"Underutilized", DisruptionReason::kUnderutilized},
    {"Empty", DisruptionReason::kEmpty},
    {"Drifted", DisruptionReason::kDrifted},
};

NodeClaimSpec DecodeNodeClaimSpec(const Reader& spec) {
  NodeClaimSpec out;
  if (!spec.Object()) return out;
  if (Reader requirements = spec["requirements"]; requirements.Required()) {
    out.requirements = requirements.List<NodeSelectorRequirement>(DecodeNodeSelectorRequirement);
  }
  out.resource_requests = spec["resources"]["requests"].Resources();
  out.taints = spec["taints"].List<Taint>(DecodeTaint);
  out.startup_taints = spec["startupTaints"].List<Taint>(DecodeTaint);
  out.expire_after = spec["expireAfter"].DurationValue(DurationSyntax::kExpiry);
  out.termination_grace_period =
      spec["terminationGracePeriod"].DurationValue(DurationSyntax::kGracePeriod);
  if (Reader ref = spec["nodeClassRef"]; ref.Required() && ref.Object()) {
    out.node_class_ref.group = ref["group"].StringOr();
    out.node_class_ref.kind = ref["kind"].StringOr();
    out.node_class_ref.name = ref["name"].StringOr();
  }
  return out;
}

Budget DecodeBudget(const Reader& budget) {
  Budget out;
  if (!budget.Object()) return out;
  if (Reader nodes = budget["nodes"]; nodes.present()) out.nodes = nodes.StringOr();
  out.reasons = budget["reasons"].List<DisruptionReason>([](const Reader& reason) {
    return reason.Enum("disruption reason", kDisruptionReasons)
        .value_or(DisruptionReason::kUnderutilized);
  });
  out.schedule = budget["schedule"].StringOr();
  out.duration = budget["duration"].DurationValue(DurationSyntax::kBudgetWindow);
  return out;
}

Disruption DecodeDisruption(const Reader& disruption) {
  Disruption out;
  if (!disruption.Object()) return out;
  out.consolidation_policy = disruption["consolidationPolicy"]
                                 .Enum("consolidation policy", kConsolidationPolicies)
                                 .value_or(ConsolidationPolicy::kWhenEmptyOrUnderutilized);
  out.consolidation_threshold = disruption["consolidationThreshold"].Int32();
  out.consolidate_after =
      disruption["consolidateAfter"].DurationValue(DurationSyntax::kExpiry).value_or(Duration());
  out.budgets = disruption["budgets"].List<Budget>(DecodeBudget);
  return out;
}

// Fields the CRD requires to be non-empty when present (`role: ""` is not "no role").
std::string NonEmptyString(const Reader& field) {
  std::string text = field.StringOr();
  if (text.empty() && field.present() && field.json()->is_string()) field.Error("may not be empty");
  return text;
}

SelectorTerm DecodeSelectorTerm(const Reader& term, bool has_name) {
  SelectorTerm out;
  if (!term.Object()) return out;
  out.tags = term["tags"].StringMap();
  out.id = term["id"].StringOr();
  if (has_name) out.name = term["name"].StringOr();
  return out;
}

AmiSelectorTerm DecodeAmiSelectorTerm(const Reader& term) {
  AmiSelectorTerm out;
  if (!term.Object()) return out;
  out.alias = term["alias"].StringOr();
  out.tags = term["tags"].StringMap();
  out.id = term["id"].StringOr();
  out.name = term["name"].StringOr();
  out.owner = term["owner"].StringOr();
  out.ssm_parameter = term["ssmParameter"].StringOr();
  return out;
}

KubeletConfiguration DecodeKubelet(const Reader& kubelet) {
  KubeletConfiguration out;
  out.max_pods = kubelet["maxPods"].Int32();
  out.pods_per_core = kubelet["podsPerCore"].Int32();
  out.system_reserved = kubelet["systemReserved"].StringMap();
  out.kube_reserved = kubelet["kubeReserved"].StringMap();
  out.eviction_hard = kubelet["evictionHard"].StringMap();
  out.eviction_soft = kubelet["evictionSoft"].StringMap();
  out.eviction_soft_grace_period = kubelet["evictionSoftGracePeriod"].StringMap();
  out.eviction_max_pod_grace_period = kubelet["evictionMaxPodGracePeriod"].Int32();
  out.image_gc_high_threshold_percent = kubelet["imageGCHighThresholdPercent"].Int32();
  out.image_gc_low_threshold_percent = kubelet["imageGCLowThresholdPercent"].Int32();
  out.cpu_cfs_quota = kubelet["cpuCFSQuota"].Bool();
  out.cluster_dns = kubelet["clusterDNS"].StringList();
  return out;
}

BlockDevice DecodeBlockDevice(const Reader& ebs) {
  BlockDevice out;
  out.delete_on_termination = ebs["deleteOnTermination"].Bool();
  out.encrypted = ebs["encrypted"].Bool();
  out.iops = ebs["iops"].Int();
  out.kms_key_id = ebs["kmsKeyID"].StringOr();
  out.snapshot_id = ebs["snapshotID"].StringOr();
  out.throughput = ebs["throughput"].Int();
  if (Reader size = ebs["volumeSize"]; size.present()) {
    if (std::optional<std::string> text = size.String()) {
      if (Status syntax = CheckVolumeSizeSyntax(*text); !syntax.ok()) {
        size.Error(fmt::format("invalid volume size \"{}\": {}", *text, syntax.error().message));
      } else {
        out.volume_size = size.QuantityValue();
      }
    }
  }
  out.volume_type = ebs["volumeType"].StringOr();
  if (Reader rate = ebs["volumeInitializationRate"]; rate.present()) rate.Error(kNotSupportedYet);
  return out;
}

BlockDeviceMapping DecodeBlockDeviceMapping(const Reader& mapping) {
  BlockDeviceMapping out;
  if (!mapping.Object()) return out;
  out.device_name = mapping["deviceName"].StringOr();
  if (Reader ebs = mapping["ebs"]; ebs.Object()) out.ebs = DecodeBlockDevice(ebs);
  out.root_volume = mapping["rootVolume"].Bool().value_or(false);
  return out;
}

void DecodeMetadataOptions(const Reader& options, MetadataOptions& out) {
  if (!options.Object()) return;
  out.http_endpoint = options["httpEndpoint"].StringOr(out.http_endpoint);
  out.http_protocol_ipv6 = options["httpProtocolIPv6"].StringOr(out.http_protocol_ipv6);
  out.http_put_response_hop_limit =
      options["httpPutResponseHopLimit"].Int32().value_or(out.http_put_response_hop_limit);
  out.http_tokens = options["httpTokens"].StringOr(out.http_tokens);
}

EC2NodeClassSpec DecodeEC2NodeClassSpec(const Reader& spec) {
  EC2NodeClassSpec out;
  if (!spec.Object()) return out;
  const auto terms = [](bool has_name) {
    return [has_name](const Reader& term) { return DecodeSelectorTerm(term, has_name); };
  };
  if (Reader subnets = spec["subnetSelectorTerms"]; subnets.Required()) {
    out.subnet_selector_terms = subnets.List<SelectorTerm>(terms(false));
  }
  if (Reader groups = spec["securityGroupSelectorTerms"]; groups.Required()) {
    out.security_group_selector_terms = groups.List<SelectorTerm>(terms(true));
  }
  if (Reader amis = spec["amiSelectorTerms"]; amis.Required()) {
    out.ami_selector_terms = amis.List<AmiSelectorTerm>(DecodeAmiSelectorTerm);
  }
  out.ami_family = spec["amiFamily"].StringOr();
  out.role = NonEmptyString(spec["role"]);
  out.instance_profile = NonEmptyString(spec["instanceProfile"]);
  out.tags = spec["tags"].StringMap();
  if (Reader kubelet = spec["kubelet"]; kubelet.Object()) out.kubelet = DecodeKubelet(kubelet);
  out.block_device_mappings =
      spec["blockDeviceMappings"].List<BlockDeviceMapping>(DecodeBlockDeviceMapping);
  out.instance_store_policy = spec["instanceStorePolicy"].StringOr();
  DecodeMetadataOptions(spec["metadataOptions"], out.metadata_options);
  out.user_data = spec["userData"].StringOr();
  out.associate_public_ip_address = spec["associatePublicIPAddress"].Bool();
  out.detailed_monitoring = spec["detailedMonitoring"].Bool();
  out.context = spec["context"].StringOr();
  out.capacity_reservation_selector_terms =
      spec["capacityReservationSelectorTerms"].List<CapacityReservationSelectorTerm>(
          [](const Reader& term) {
            CapacityReservationSelectorTerm out;
            if (!term.Object()) return out;
            out.tags = term["tags"].StringMap();
            out.id = term["id"].StringOr();
            out.owner_id = term["ownerID"].StringOr();
            out.instance_match_criteria = term["instanceMatchCriteria"].StringOr();
            return out;
          });
  // Upstream's fields this controller cannot honour yet: refused, never silently dropped.
  for (const char* field : {"networkInterfaces", "placementGroupSelector", "ipPrefixCount",
                            "connectionTracking", "cpuOptions"}) {
    if (Reader unsupported = spec[field]; unsupported.present()) {
      unsupported.Error(kNotSupportedYet);
    }
  }
  // Nitro Enclaves: disabled, as without the field, is what every launch does already.
  if (Reader enclave = spec["enclaveOptions"]; enclave.Object()) {
    if (Reader enabled = enclave["enabled"]; enabled.Required() && enabled.Bool().value_or(false)) {
      enabled.Error(kNotSupportedYet);
    }
  }
  return out;
}

}  // namespace

void DecodeNodePool(const Reader& object, Problems& problems, Manifest& out) {
  NodePool pool;
  pool.metadata = DecodeObjectMeta(object["metadata"]);
  if (const Reader spec = object["spec"]; spec.Required() && spec.Object()) {
    if (Reader claim = spec["template"]; claim.Required() && claim.Object()) {
      if (Reader meta = claim["metadata"]; meta.Object()) {
        pool.spec.template_.metadata.labels = meta["labels"].StringMap();
        pool.spec.template_.metadata.annotations = meta["annotations"].StringMap();
      }
      if (Reader claim_spec = claim["spec"]; claim_spec.Required()) {
        pool.spec.template_.spec = DecodeNodeClaimSpec(claim_spec);
      }
    }
    pool.spec.disruption = DecodeDisruption(spec["disruption"]);
    if (Reader limits = spec["limits"]; limits.present()) {
      pool.spec.limits = limits.Resources();
      limits.Entries([&](std::string_view name, const Reader&) {
        pool.spec.limited_resources.emplace_back(name);
      });
    }
    pool.spec.weight = spec["weight"].Int32();
    pool.spec.replicas = spec["replicas"].Int(0);
  }
  if (Reader status = object["status"]; status.Object()) {
    pool.status.resources = status["resources"].Resources();
    pool.status.nodes =
        status["nodes"].Int(0).value_or(pool.status.resources.Get("nodes").units_ceil());
    pool.status.conditions = status["conditions"].List<Condition>(DecodeCondition);
  }
  Accept(std::move(pool), problems, out.node_pools, ValidateNodePool);
}

void DecodeNodeClaim(const Reader& object, Problems& problems, Manifest& out) {
  NodeClaim claim;
  claim.metadata = DecodeObjectMeta(object["metadata"]);
  if (Reader spec = object["spec"]; spec.Required()) claim.spec = DecodeNodeClaimSpec(spec);
  if (Reader status = object["status"]; status.Object()) {
    claim.status.provider_id = status["providerID"].StringOr();
    claim.status.image_id = status["imageID"].StringOr();
    claim.status.node_name = status["nodeName"].StringOr();
    claim.status.capacity = status["capacity"].Resources();
    claim.status.allocatable = status["allocatable"].Resources();
    claim.status.last_pod_event_time = status["lastPodEventTime"].StringOr();
    claim.status.conditions = status["conditions"].List<Condition>(DecodeCondition);
  }
  Accept(std::move(claim), problems, out.node_claims, ValidateNodeClaim);
}

void DecodeEC2NodeClass(const Reader& object, Problems& problems, Manifest& out) {
  EC2NodeClass node_class;
  node_class.metadata = DecodeObjectMeta(object["metadata"]);
  if (Reader spec = object["spec"]; spec.Required()) {
    node_class.spec = DecodeEC2NodeClassSpec(spec);
  }
  if (Reader status = object["status"]; status.Object()) {
    EC2NodeClass::Status& resolved = node_class.status;
    resolved.conditions = status["conditions"].List<Condition>(DecodeCondition);
    resolved.instance_profile = status["instanceProfile"].StringOr();
    resolved.subnets = status["subnets"].List<SubnetStatus>([](const Reader& subnet) {
      return SubnetStatus{subnet["id"].StringOr(), subnet["zone"].StringOr(),
                          subnet["zoneID"].StringOr()};
    });
    resolved.security_groups =
        status["securityGroups"].List<SecurityGroupStatus>([](const Reader& group) {
          return SecurityGroupStatus{group["id"].StringOr(), group["name"].StringOr()};
        });
    resolved.amis = status["amis"].List<AmiStatus>([](const Reader& ami) {
      return AmiStatus{
          ami["id"].StringOr(), ami["name"].StringOr(),
          ami["requirements"].List<NodeSelectorRequirement>(DecodeNodeSelectorRequirement),
          ami["deprecated"].Bool().value_or(false)};
    });
    resolved.capacity_reservations = status["capacityReservations"].List<CapacityReservationStatus>(
        [](const Reader& reservation) {
          CapacityReservationStatus out;
          out.id = reservation["id"].StringOr();
          out.instance_type = reservation["instanceType"].StringOr();
          out.owner_id = reservation["ownerID"].StringOr();
          out.zone = reservation["availabilityZone"].StringOr();
          out.instance_match_criteria = reservation["instanceMatchCriteria"].StringOr();
          out.reservation_type = reservation["reservationType"].StringOr(out.reservation_type);
          out.state = reservation["state"].StringOr(out.state);
          out.end_time = reservation["endTime"].StringOr();
          return out;
        });
  }
  Accept(std::move(node_class), problems, out.node_classes, ValidateEC2NodeClass);
}

void DecodeNodeOverlay(const Reader& object, Problems& problems, Manifest& out) {
  NodeOverlay overlay;
  overlay.metadata = DecodeObjectMeta(object["metadata"]);
  if (const Reader spec = object["spec"]; spec.Required() && spec.Object()) {
    overlay.spec.weight = spec["weight"].Int32();
    if (Reader requirements = spec["requirements"]; requirements.Required()) {
      overlay.spec.requirements =
          requirements.List<NodeSelectorRequirement>(DecodeNodeSelectorRequirement);
    }
    if (Reader price = spec["price"]; price.present()) overlay.spec.price = price.StringOr();
    if (Reader adjustment = spec["priceAdjustment"]; adjustment.present()) {
      overlay.spec.price_adjustment = adjustment.StringOr();
    }
    if (Reader capacity = spec["capacity"]; capacity.present()) {
      overlay.spec.capacity = capacity.Resources();
      // Checked here, by name: a zero amount (`cpu: 0`) leaves no trace in the ResourceList.
      capacity.Entries([](std::string_view name, const Reader& amount) {
        if (IsOverlayRestrictedResource(name)) {
          amount.Error(fmt::format("{} may not be overlaid: every node reports it itself", name));
        }
      });
    }
  }
  if (Reader status = object["status"]; status.Object()) {
    overlay.status.conditions = status["conditions"].List<Condition>(DecodeCondition);
  }
  Accept(std::move(overlay), problems, out.node_overlays, ValidateNodeOverlay);
}

void DecodeCapacityBuffer(const Reader& object, Problems& problems, Manifest& out) {
  CapacityBuffer buffer;
  buffer.metadata = DecodeObjectMeta(object["metadata"]);
  if (const Reader spec = object["spec"]; spec.Required() && spec.Object()) {
    if (Reader strategy = spec["provisioningStrategy"]; strategy.present()) {
      buffer.spec.provisioning_strategy = strategy.StringOr();
    }
    if (Reader ref = spec["podTemplateRef"]; ref.present() && ref.Object()) {
      if (Reader name = ref["name"]; name.Required())
        buffer.spec.pod_template_ref = NonEmptyString(name);
    }
    if (Reader ref = spec["scalableRef"]; ref.present() && ref.Object()) {
      ScalableReference scalable;
      scalable.api_group = ref["apiGroup"].StringOr();
      if (Reader kind = ref["kind"]; kind.Required()) scalable.kind = NonEmptyString(kind);
      if (Reader name = ref["name"]; name.Required()) scalable.name = NonEmptyString(name);
      buffer.spec.scalable_ref = std::move(scalable);
    }
    if (std::optional<int64_t> replicas = spec["replicas"].Int(0, INT32_MAX)) {
      buffer.spec.replicas = static_cast<int32_t>(*replicas);
    }
    if (std::optional<int64_t> percentage = spec["percentage"].Int(0, INT32_MAX)) {
      buffer.spec.percentage = static_cast<int32_t>(*percentage);
    }
    if (Reader limits = spec["limits"]; limits.present()) {
      buffer.spec.limits = limits.Resources();
      limits.Entries([&](std::string_view name, const Reader&) {
        buffer.spec.limited_resources.emplace_back(name);
      });
    }
  }
  Accept(std::move(buffer), problems, out.capacity_buffers, ValidateCapacityBuffer);
}

}  // namespace karpenter::api::decode_internal
