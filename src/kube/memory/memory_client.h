#pragma once
// kube::Client as an in-process store with the API server's semantics, for tests and `simulate`:
// resourceVersions, conflicts, the status subresource, generations, finalizers, selectors,
// watches that resume from a resourceVersion, and evictions that honour PodDisruptionBudgets.
// The same contract test suite runs against it and against a real API server.
//
// Deterministic: uids and resourceVersions come from counters, generateName suffixes from a
// seeded generator and timestamps from the Clock, so the same calls give byte-identical objects.
// Thread-safe.
//
// Deliberate simplifications, since no controllers or kubelets run here:
// - A deleted Pod is removed at once, as if its kubelet confirmed at once (after the MODIFIED event
//   that sets its deletionTimestamp, as on the server), unless finalizers hold it. Grace periods
//   are ignored: deletionGracePeriodSeconds is always 0.
// - Evict decides by a PodDisruptionBudget's status when a controller wrote one for its current
//   generation (and charges the eviction to it, as the server does); otherwise it computes the
//   budget from the current pods (disruption_budget.h), since no controller runs here.
// - Events expire an hour after creation (the API server's default --event-ttl), checked when an
//   Event is created.
// - Deleting a Namespace deletes its objects at once (a cluster's namespace controller does it
//   a moment later), and removes it once they are gone.
// - No garbage collection of dependents, no defaulting, normalising (the server drops empty maps
//   and unknown fields) or schema validation beyond metadata (a Pod gets status.phase Pending but
//   no qosClass), no managedFields.
// - Writes to /status change only status (real built-in kinds also take metadata changes there).
// - Watches never send bookmarks and never close. An empty resourceVersion watches from now; "0"
//   starts with the current objects as ADDED events, like the server.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "common/clock.h"
#include "kube/client.h"

namespace karpenter::kube::memory {

struct MemoryClientOptions {
  // Events kept for watches that start from an older resourceVersion; older ones get 410.
  size_t history_limit = 10000;
  // Whether events past the limit stay until every live watch has read them, so a watch that
  // falls behind never gets 410 and its informer never relists (the simulator, whose informers
  // all keep up eventually); otherwise it gets 410 like from a real API server.
  bool hold_history_for_watches = false;
  uint64_t seed = 1;  // of generateName suffixes
  // Events are deleted this long after their creation (kube-apiserver's --event-ttl).
  std::chrono::milliseconds event_ttl{std::chrono::hours(1)};
};

class Store;

class MemoryClient final : public Client {
 public:
  // Starts with the namespaces default, kube-system, kube-public and kube-node-lease. `clock`
  // must outlive the client.
  explicit MemoryClient(const Clock& clock, MemoryClientOptions options = {});

  Result<Object> Get(const Resource& resource, std::string_view namespace_,
                     std::string_view name) override;
  Result<ObjectList> List(const Resource& resource, const ListOptions& options) override;
  // Watches stay valid after the client is destroyed (they then see no new events).
  Result<std::unique_ptr<Watch>> StartWatch(const Resource& resource,
                                            const WatchOptions& options) override;
  Result<Object> Create(const Resource& resource, const Object& object,
                        const WriteOptions& options) override;
  Result<Object> Update(const Resource& resource, const Object& object,
                        Subresource subresource) override;
  Result<Object> Patch(const Resource& resource, std::string_view namespace_, std::string_view name,
                       PatchType type, const Object& patch, Subresource subresource) override;
  Status Delete(const Resource& resource, std::string_view namespace_, std::string_view name,
                const DeleteOptions& options) override;
  Status Evict(std::string_view namespace_, std::string_view pod_name,
               const DeleteOptions& options) override;

  // Stores `object` as a cluster snapshot holds it, the way restoring etcd would rather than
  // through a client's create: server-set metadata (uid, resourceVersion, creationTimestamp,
  // managedFields) is set afresh, and a Pod or a Node keeps its status (bound and running, Ready,
  // as its kubelet reported it), in one write. Create's checks apply. For seeding `simulate`.
  Result<SharedObject> Restore(const Resource& resource, Object object);

 private:
  std::shared_ptr<Store> store_;  // shared with open watches
};

}  // namespace karpenter::kube::memory
