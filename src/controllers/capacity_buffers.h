#pragma once
// CapacityBuffers (the CapacityBuffer gate; docs/upstream-reference.md §19): spare room kept ready
// for pods that must start without waiting for a node. Every 30 s (and when a buffer changes) each
// buffer is resolved — its PodTemplate, or its Deployment, StatefulSet or ReplicaSet (that
// workload's pod template and replicas) — and its replica count computed (api::BufferReplicas);
// its status says so (ReadyForProvisioning, replicas, podTemplateRef, podTemplateGeneration).
// Provisioning then plans for that many copies of the pod as if they were pending — they exist
// only in memory, are never bound and may be displaced by any real pod — and writes each buffer's
// Provisioning condition (FitsExistingCapacity, or RequiresNewCapacity while room is launching).
// Consolidation sees the copies that fit existing Nodes as pods of those Nodes, so it keeps their
// room: a Node holding buffer room is not empty, and moving it must place the copies too.

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/capacity_buffer.h"
#include "api/manifest.h"
#include "api/pod.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/spec_changes.h"
#include "kube/client.h"
#include "provisioning/scheduler.h"

namespace karpenter::controllers {

// Its name in the controller-runtime series and logs, as upstream's.
inline constexpr std::string_view kControllerCapacityBuffer = "capacitybuffer";

// What marks a buffer's copies of its pod (upstream's keys).
inline constexpr std::string_view kAnnotationBufferPod = "karpenter.sh/capacity-buffer-fake-pod";
inline constexpr std::string_view kLabelBufferName = "karpenter.sh/capacity-buffer-name";
inline constexpr std::string_view kLabelBufferNamespace = "karpenter.sh/capacity-buffer-namespace";

// A buffer's conditions: whether its pod resolved, and whether its room exists.
inline constexpr std::string_view kConditionReadyForProvisioning = "ReadyForProvisioning";
inline constexpr std::string_view kConditionProvisioning = "Provisioning";

// Whether `pod` is a buffer's copy (never a real pod).
bool IsBufferPod(const api::Pod& pod);

class CapacityBuffers {
 public:
  static constexpr std::chrono::seconds kResync{30};

  // Registers a handler on the buffers' informer: construct before it starts. All must outlive
  // this.
  CapacityBuffers(ClusterCache& cluster, kube::Client& client, const Clock& clock, Logger logger);

  // Resolves every buffer and writes its status; a buffer whose pod does not resolve is not
  // provisioned for (its ReadyForProvisioning says why). Fails when a status could not be
  // written, after trying them all.
  Status Reconcile();
  // Whether a buffer was added, changed or deleted since the last Reconcile began.
  bool InputsChanged() const { return changes_.Changed(); }
  // Whether any buffer asks for room now.
  bool Wanted() const;

  // Unbound copies of every ready buffer's pod, for a provisioning pass.
  std::vector<std::shared_ptr<const api::Pod>> PendingCopies() const;
  // What a provisioning pass, whose pods included PendingCopies(), made of them: each buffer's
  // Provisioning condition, and which existing Nodes keep their room. Fails when a status could
  // not be written.
  Status RecordPass(const provisioning::SchedulerResult& scheduled);
  // The copies the last pass placed on existing capacity, bound to its Nodes (those placed on a
  // NodeClaim in flight, to its Node once it has one).
  std::vector<std::shared_ptr<const api::Pod>> BoundCopies() const;

 private:
  struct Buffer {
    kube::Object object;
    bool ready = false;
    int32_t replicas = 0;
    std::vector<std::shared_ptr<const api::Pod>> copies;
  };
  // The buffer's pod template and (for a workload) its replicas, or why not: reason in the error.
  struct ResolvedPod {
    api::PodTemplate pod;
    std::optional<int32_t> workload_replicas;
    std::optional<std::string> template_name;
    std::optional<int64_t> template_generation;
  };
  Result<ResolvedPod> Resolve(const api::CapacityBuffer& buffer);
  Result<api::Manifest> Read(const kube::Resource& resource, const std::string& namespace_,
                             const std::string& name, std::string_view missing);
  // Merges `status` into the buffer's when it differs.
  Status WriteStatus(const kube::Object& object, const kube::Object& status);

  ClusterCache& cluster_;
  kube::Client& client_;
  const Clock& clock_;
  Logger logger_;
  SpecChanges changes_;
  // Controller thread only.
  std::map<std::string, Buffer, std::less<>> buffers_;  // by "namespace/name"
  struct Placed {
    std::shared_ptr<const api::Pod> copy;
    std::string target;  // a Node's or an in-flight NodeClaim's name
  };
  std::vector<Placed> placed_;
};

}  // namespace karpenter::controllers
