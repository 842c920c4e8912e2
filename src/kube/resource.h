#pragma once
// The kinds of object the API serves, named by group, version and plural resource name.

#include <string>
#include <string_view>

namespace karpenter::kube {

struct Resource {
  std::string_view group;    // "" for the core group
  std::string_view version;  // "v1"
  std::string_view plural;   // "pods": the path segment
  std::string_view kind;     // "Pod"
  bool namespaced = false;

  // "v1" for the core group, "apps/v1" otherwise.
  std::string ApiVersion() const;
  bool operator==(const Resource&) const = default;
};

namespace resources {
inline constexpr Resource kNamespaces{"", "v1", "namespaces", "Namespace", false};
inline constexpr Resource kPods{"", "v1", "pods", "Pod", true};
inline constexpr Resource kNodes{"", "v1", "nodes", "Node", false};
inline constexpr Resource kConfigMaps{"", "v1", "configmaps", "ConfigMap", true};
inline constexpr Resource kEvents{"", "v1", "events", "Event", true};
inline constexpr Resource kPersistentVolumes{"", "v1", "persistentvolumes", "PersistentVolume",
                                             false};
inline constexpr Resource kPersistentVolumeClaims{"", "v1", "persistentvolumeclaims",
                                                  "PersistentVolumeClaim", true};
inline constexpr Resource kDaemonSets{"apps", "v1", "daemonsets", "DaemonSet", true};
inline constexpr Resource kDeployments{"apps", "v1", "deployments", "Deployment", true};
inline constexpr Resource kReplicaSets{"apps", "v1", "replicasets", "ReplicaSet", true};
inline constexpr Resource kStatefulSets{"apps", "v1", "statefulsets", "StatefulSet", true};
inline constexpr Resource kJobs{"batch", "v1", "jobs", "Job", true};
inline constexpr Resource kPodDisruptionBudgets{"policy", "v1", "poddisruptionbudgets",
                                                "PodDisruptionBudget", true};
inline constexpr Resource kStorageClasses{"storage.k8s.io", "v1", "storageclasses", "StorageClass",
                                          false};
inline constexpr Resource kVolumeAttachments{"storage.k8s.io", "v1", "volumeattachments",
                                             "VolumeAttachment", false};
inline constexpr Resource kPriorityClasses{"scheduling.k8s.io", "v1", "priorityclasses",
                                           "PriorityClass", false};
inline constexpr Resource kLeases{"coordination.k8s.io", "v1", "leases", "Lease", true};
inline constexpr Resource kCustomResourceDefinitions{
    "apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false};
inline constexpr Resource kNodePools{"karpenter.sh", "v1", "nodepools", "NodePool", false};
inline constexpr Resource kNodeClaims{"karpenter.sh", "v1", "nodeclaims", "NodeClaim", false};
inline constexpr Resource kEC2NodeClasses{"karpenter.k8s.aws", "v1", "ec2nodeclasses",
                                          "EC2NodeClass", false};
inline constexpr Resource kPodTemplates{"", "v1", "podtemplates", "PodTemplate", true};
inline constexpr Resource kCapacityBuffers{"autoscaling.x-k8s.io", "v1beta1", "capacitybuffers",
                                           "CapacityBuffer", true};
inline constexpr Resource kNodeOverlays{"karpenter.sh", "v1alpha1", "nodeoverlays", "NodeOverlay",
                                        false};
}  // namespace resources

// Whether objects of `resource` have a status subresource: writes to the object ignore its
// status, and writes to /status change only the status.
bool HasStatusSubresource(const Resource& resource);

}  // namespace karpenter::kube
