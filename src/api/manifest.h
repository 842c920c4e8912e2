#pragma once
// A set of decoded objects, as read from manifest files or a cluster snapshot, and the loader.
// Every problem names the file, the object (Kind/namespace/name) and the field path.

#include <string>
#include <string_view>
#include <vector>

#include "api/capacity_buffer.h"
#include "api/ec2nodeclass.h"
#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodeoverlay.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/storage.h"
#include "api/workloads.h"
#include "common/json.h"
#include "common/result.h"

namespace karpenter::api {

struct Manifest {
  std::vector<NodePool> node_pools;
  std::vector<NodeClaim> node_claims;
  std::vector<EC2NodeClass> node_classes;
  std::vector<NodeOverlay> node_overlays;
  std::vector<Pod> pods;
  std::vector<Node> nodes;
  std::vector<Workload> workloads;  // Deployments, ReplicaSets, StatefulSets, Jobs, DaemonSets
  std::vector<PodTemplateObject> pod_templates;
  std::vector<CapacityBuffer> capacity_buffers;
  std::vector<PodDisruptionBudget> pdbs;
  std::vector<PersistentVolume> persistent_volumes;
  std::vector<PersistentVolumeClaim> persistent_volume_claims;
  std::vector<StorageClass> storage_classes;
  std::vector<std::string> ignored;  // "Kind/namespace/name" of objects we do not model

  void Append(Manifest&& other);
};

// Decodes YAML (one or many documents) or JSON (an object or a `kind: List`) text. `source` names
// the file in errors. Decoding stops at nothing: every object is tried and every problem reported,
// one per line in the returned errors; objects with errors are left out of the Manifest.
struct DecodeOutcome {
  Manifest manifest;
  std::vector<std::string> errors;
};
DecodeOutcome DecodeManifest(std::string_view text, std::string_view source);

// Decodes one object already parsed as JSON (a list item or watch event from the API server).
DecodeOutcome DecodeObject(const Json& object, std::string_view source);

// Reads and decodes a file; a read failure is one error naming the file.
DecodeOutcome LoadManifestFile(const std::string& path);

}  // namespace karpenter::api
