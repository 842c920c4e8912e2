#pragma once
// Shared pieces of the manifest decoders (decode.cc dispatches by kind; decode_core.cc decodes core
// and workload objects, decode_karpenter.cc the Karpenter ones). Not part of the public API.

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/condition.h"
#include "api/defaults.h"
#include "api/field_reader.h"
#include "api/label_selector.h"
#include "api/manifest.h"
#include "api/node_selector.h"
#include "api/object_meta.h"
#include "api/pod.h"
#include "api/taint.h"

namespace karpenter::api::decode_internal {

// Decodes `object` (the whole document) into `out`, reporting problems through the readers.
using DecodeFn = void (*)(const Reader& object, Problems& problems, Manifest& out);

// Shared field groups.
ObjectMeta DecodeObjectMeta(const Reader& meta);
Taint DecodeTaint(const Reader& taint);
std::optional<TaintEffect> DecodeTaintEffect(const Reader& effect);
NodeSelectorRequirement DecodeNodeSelectorRequirement(const Reader& requirement);
NodeSelectorTerm DecodeNodeSelectorTerm(const Reader& term);
LabelSelector DecodeLabelSelector(const Reader& selector);
std::optional<LabelSelector> DecodeOptionalLabelSelector(const Reader& selector);
Condition DecodeCondition(const Reader& condition);
PodSpec DecodePodSpec(const Reader& spec);

// Keeps `object` when no problem was found: runs `validate` (if any), then applies defaults.
template <class T>
void Accept(T&& object, Problems& problems, std::vector<std::decay_t<T>>& out,
            std::vector<std::string> (*validate)(const std::decay_t<T>&) = nullptr) {
  if (!problems.empty()) return;
  if (validate != nullptr) {
    for (const std::string& line : validate(object)) problems.Add({}, line);
    if (!problems.empty()) return;
  }
  ApplyDefaults(object);
  out.push_back(std::forward<T>(object));
}

// Per-kind decoders.
void DecodePod(const Reader& object, Problems& problems, Manifest& out);
void DecodeNode(const Reader& object, Problems& problems, Manifest& out);
void DecodePodDisruptionBudget(const Reader& object, Problems& problems, Manifest& out);
void DecodeDeployment(const Reader& object, Problems& problems, Manifest& out);
void DecodeReplicaSet(const Reader& object, Problems& problems, Manifest& out);
void DecodeStatefulSet(const Reader& object, Problems& problems, Manifest& out);
void DecodeDaemonSet(const Reader& object, Problems& problems, Manifest& out);
void DecodeJob(const Reader& object, Problems& problems, Manifest& out);
void DecodePersistentVolume(const Reader& object, Problems& problems, Manifest& out);
void DecodePersistentVolumeClaim(const Reader& object, Problems& problems, Manifest& out);
void DecodeStorageClass(const Reader& object, Problems& problems, Manifest& out);
void DecodeNodePool(const Reader& object, Problems& problems, Manifest& out);
void DecodeNodeClaim(const Reader& object, Problems& problems, Manifest& out);
void DecodeEC2NodeClass(const Reader& object, Problems& problems, Manifest& out);
void DecodeNodeOverlay(const Reader& object, Problems& problems, Manifest& out);
void DecodePodTemplate(const Reader& object, Problems& problems, Manifest& out);
void DecodeCapacityBuffer(const Reader& object, Problems& problems, Manifest& out);

}  // namespace karpenter::api::decode_internal
