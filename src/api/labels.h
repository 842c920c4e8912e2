#pragma once
// Well-known label, annotation and taint keys of Kubernetes, Karpenter and its AWS provider.

#include <array>
#include <string_view>

namespace karpenter::api {

inline constexpr std::string_view kLabelNodePool = "karpenter.sh/nodepool";
inline constexpr std::string_view kLabelCapacityType = "karpenter.sh/capacity-type";
inline constexpr std::string_view kLabelInstanceType = "node.kubernetes.io/instance-type";
inline constexpr std::string_view kLabelZone = "topology.kubernetes.io/zone";
inline constexpr std::string_view kLabelRegion = "topology.kubernetes.io/region";
inline constexpr std::string_view kLabelZoneId = "topology.k8s.aws/zone-id";
inline constexpr std::string_view kLabelArch = "kubernetes.io/arch";
inline constexpr std::string_view kLabelOs = "kubernetes.io/os";
inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelWindowsBuild = "node.kubernetes.io/windows-build";
inline constexpr std::string_view kLabelRegistered = "karpenter.sh/registered";
inline constexpr std::string_view kLabelInitialized = "karpenter.sh/initialized";
inline constexpr std::string_view kLabelNodeClass = "karpenter.k8s.aws/ec2nodeclass";
inline constexpr std::string_view kLabelNodeGroup = "eks.amazonaws.com/nodegroup";
inline constexpr std::string_view kLabelEksCapacityType = "eks.amazonaws.com/capacityType";

inline constexpr std::string_view kLabelInstanceCategory = "karpenter.k8s.aws/instance-category";
inline constexpr std::string_view kLabelInstanceFamily = "karpenter.k8s.aws/instance-family";
inline constexpr std::string_view kLabelInstanceGeneration =
    "karpenter.k8s.aws/instance-generation";
inline constexpr std::string_view kLabelInstanceSize = "karpenter.k8s.aws/instance-size";
inline constexpr std::string_view kLabelInstanceCpu = "karpenter.k8s.aws/instance-cpu";
inline constexpr std::string_view kLabelInstanceCpuManufacturer =
    "karpenter.k8s.aws/instance-cpu-manufacturer";
inline constexpr std::string_view kLabelInstanceMemory = "karpenter.k8s.aws/instance-memory";
inline constexpr std::string_view kLabelInstanceHypervisor =
    "karpenter.k8s.aws/instance-hypervisor";
inline constexpr std::string_view kLabelInstanceEncryptionInTransit =
    "karpenter.k8s.aws/instance-encryption-in-transit-supported";
inline constexpr std::string_view kLabelInstanceNetworkBandwidth =
    "karpenter.k8s.aws/instance-network-bandwidth";
inline constexpr std::string_view kLabelInstanceLocalNvme = "karpenter.k8s.aws/instance-local-nvme";
inline constexpr std::string_view kLabelInstanceGpuName = "karpenter.k8s.aws/instance-gpu-name";
inline constexpr std::string_view kLabelInstanceGpuManufacturer =
    "karpenter.k8s.aws/instance-gpu-manufacturer";
inline constexpr std::string_view kLabelInstanceGpuCount = "karpenter.k8s.aws/instance-gpu-count";
inline constexpr std::string_view kLabelInstanceGpuMemory = "karpenter.k8s.aws/instance-gpu-memory";
inline constexpr std::string_view kLabelInstanceAcceleratorName =
    "karpenter.k8s.aws/instance-accelerator-name";
inline constexpr std::string_view kLabelInstanceAcceleratorManufacturer =
    "karpenter.k8s.aws/instance-accelerator-manufacturer";
inline constexpr std::string_view kLabelInstanceAcceleratorCount =
    "karpenter.k8s.aws/instance-accelerator-count";
// The On-Demand Capacity Reservation a reserved node runs in, and its type ("default" or
// "capacity-block"); only reserved nodes carry them.
inline constexpr std::string_view kLabelCapacityReservationId =
    "karpenter.k8s.aws/capacity-reservation-id";
inline constexpr std::string_view kLabelCapacityReservationType =
    "karpenter.k8s.aws/capacity-reservation-type";

// The labels a NodePool may require without the instance types defining them (they are known for
// every offering), and the labels of upstream's per-node series (controllers/state_metrics.h).
inline constexpr std::array<std::string_view, 29> kWellKnownLabels = {
    kLabelNodePool,
    kLabelCapacityType,
    kLabelInstanceType,
    kLabelZone,
    kLabelRegion,
    kLabelZoneId,
    kLabelArch,
    kLabelOs,
    kLabelWindowsBuild,
    kLabelInstanceCategory,
    kLabelInstanceFamily,
    kLabelInstanceGeneration,
    kLabelInstanceSize,
    kLabelInstanceCpu,
    kLabelInstanceCpuManufacturer,
    kLabelInstanceMemory,
    kLabelInstanceHypervisor,
    kLabelInstanceEncryptionInTransit,
    kLabelInstanceNetworkBandwidth,
    kLabelInstanceLocalNvme,
    kLabelInstanceGpuName,
    kLabelInstanceGpuManufacturer,
    kLabelInstanceGpuCount,
    kLabelInstanceGpuMemory,
    kLabelInstanceAcceleratorName,
    kLabelInstanceAcceleratorManufacturer,
    kLabelInstanceAcceleratorCount,
    kLabelCapacityReservationId,
    kLabelCapacityReservationType,
};

inline constexpr std::string_view kCapacityTypeOnDemand = "on-demand";
inline constexpr std::string_view kCapacityTypeSpot = "spot";
inline constexpr std::string_view kCapacityTypeReserved = "reserved";

inline constexpr std::string_view kAnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt";
// On a pod: how much its ReplicaSet prefers to keep it on scale-down (an int32); disruption weighs
// it too.
inline constexpr std::string_view kAnnotationPodDeletionCost =
    "controller.kubernetes.io/pod-deletion-cost";
// On a NodeClaim launched with a minValues lowered (MIN_VALUES_POLICY=BestEffort): "true".
inline constexpr std::string_view kAnnotationMinValuesRelaxed =
    "karpenter.sh/nodeclaim-min-values-relaxed";
// When a NodeClaim being deleted stops waiting for its drain: set by node repair to the moment it
// repairs (upstream also writes deletion + terminationGracePeriod here; we compute that instead).
inline constexpr std::string_view kAnnotationNodeClaimTerminationTimestamp =
    "karpenter.sh/nodeclaim-termination-timestamp";
inline constexpr std::string_view kTaintUnregistered = "karpenter.sh/unregistered";
inline constexpr std::string_view kTaintDisrupted = "karpenter.sh/disrupted";
// Held by NodeClaims and Nodes until their machine is gone.
inline constexpr std::string_view kFinalizerTermination = "karpenter.sh/termination";

inline constexpr std::string_view kResourceNvidiaGpu = "nvidia.com/gpu";
inline constexpr std::string_view kResourceAmdGpu = "amd.com/gpu";
inline constexpr std::string_view kResourceNeuron = "aws.amazon.com/neuron";
inline constexpr std::string_view kResourceEfa = "vpc.amazonaws.com/efa";
inline constexpr std::string_view kResourcePodEni = "vpc.amazonaws.com/pod-eni";

}  // namespace karpenter::api
