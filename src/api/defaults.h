#pragma once
// Defaulting, as the API server applies it when an object is created (reference section 1 for the
// Karpenter kinds; the core rules that matter for scheduling for the others). Decoding applies the
// defaults to every object that decoded and validated cleanly.

#include <chrono>
#include <string_view>

#include "api/capacity_buffer.h"
#include "api/ec2nodeclass.h"
#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodeoverlay.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/storage.h"
#include "api/workloads.h"
#include "common/duration.h"

namespace karpenter::api {

inline constexpr std::string_view kDefaultNamespace = "default";
inline constexpr Duration kDefaultExpireAfter = Duration::Of(std::chrono::hours(720));
inline constexpr std::string_view kDefaultBudgetNodes = "10%";

// NodePool: expireAfter 720h, one budget of 10% when none is given. (consolidationPolicy
// WhenEmptyOrUnderutilized and consolidateAfter 0s are the field initializers.)
void ApplyDefaults(NodePool& pool);
// NodeClaim: expireAfter 720h.
void ApplyDefaults(NodeClaim& claim);
// EC2NodeClass: metadataOptions (httpEndpoint enabled, httpProtocolIPv6 disabled, hop limit 1,
// httpTokens required) are the field initializers; nothing else has a default.
void ApplyDefaults(EC2NodeClass& node_class);

// Containers that set a limit but no request for a resource request the limit.
void ApplyDefaults(PodSpec& spec);
// Namespaced objects without a namespace live in "default".
void ApplyDefaults(Pod& pod);
void ApplyDefaults(Workload& workload);  // also: the pod template's namespace is the workload's
void ApplyDefaults(PodDisruptionBudget& pdb);
void ApplyDefaults(PersistentVolumeClaim& claim);
inline void ApplyDefaults(Node& /*node*/) {}
inline void ApplyDefaults(PersistentVolume& /*volume*/) {}
inline void ApplyDefaults(StorageClass& /*storage_class*/) {}
inline void ApplyDefaults(NodeOverlay& /*overlay*/) {}
void ApplyDefaults(PodTemplateObject& pod_template);
void ApplyDefaults(CapacityBuffer& buffer);

}  // namespace karpenter::api
