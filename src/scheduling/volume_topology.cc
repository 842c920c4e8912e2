#include "scheduling/volume_topology.h"

#include <algorithm>

namespace karpenter::scheduling {
namespace {

const api::StorageClass* FindClass(const StorageState& storage,
                                   const std::optional<std::string>& name) {
  for (const auto* sc : storage.classes) {
    if (name ? sc->metadata.name == *name : sc->is_default) return sc;
  }
  return nullptr;
}

void AddFirstTerm(const std::vector<api::NodeSelectorTerm>& terms, Requirements& out) {
  if (terms.empty()) return;
  for (const auto& r : terms.front().match_expressions) out.Add(Requirement::FromNodeSelector(r));
}

void AddClassTopology(const api::StorageClass* sc, Requirements& out) {
  if (sc != nullptr && sc->volume_binding_mode == "WaitForFirstConsumer") {
    AddFirstTerm(sc->allowed_topologies, out);
  }
}

}  // namespace

Requirements VolumeRequirements(const api::Pod& pod, const StorageState& storage) {
  Requirements out;
  for (const auto& volume : pod.spec.volumes) {
    if (volume.ephemeral) {
      AddClassTopology(FindClass(storage, volume.ephemeral_storage_class.empty()
                                              ? std::nullopt
                                              : std::optional(volume.ephemeral_storage_class)),
                       out);
      continue;
    }
    if (volume.persistent_volume_claim.empty()) continue;
    auto claim = std::find_if(storage.claims.begin(), storage.claims.end(), [&](const auto* c) {
      return c->metadata.name == volume.persistent_volume_claim &&
             c->metadata.namespace_ == pod.metadata.namespace_;
    });
    if (claim == storage.claims.end()) continue;
    const api::PersistentVolumeClaim& pvc = **claim;
    if (!pvc.volume_name.empty()) {
      auto pv = std::find_if(storage.volumes.begin(), storage.volumes.end(),
                             [&](const auto* v) { return v->metadata.name == pvc.volume_name; });
      if (pv != storage.volumes.end()) AddFirstTerm((*pv)->node_affinity, out);
      continue;
    }
    AddClassTopology(FindClass(storage, pvc.storage_class_name), out);
  }
  return out;
}

}  // namespace karpenter::scheduling
