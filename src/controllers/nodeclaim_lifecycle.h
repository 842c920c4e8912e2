#pragma once
// The life of a NodeClaim (upstream-reference §9): launch its machine through the CloudProvider
// (those due together in one CreateAll call, so the cloud can launch equal ones with one request),
// register the Node that machine's kubelet creates (matched by providerID: sync labels and taints,
// drop karpenter.sh/unregistered, own it), mark it initialized once the Node is Ready with its
// startup taints gone, and on deletion taint the Node karpenter.sh/disrupted and drain it
// (termination.h; an interrupted one once its pods have somewhere to go, interruption.h), then
// terminate the machine and remove the Node before releasing the finalizer. A NodeClaim whose
// machine never registers is deleted after the registration TTL; one whose Node is being deleted
// (`kubectl delete node`) is deleted too, so that the Node is drained and its machine terminated.
// A NodeClaim whose provider ID is someone else's (another cloud's scheme, written without the
// Launched condition this controller records, or an instance the cloud says this cluster does not
// own) gets a ForeignProviderID Event and is left alone: its Node is not adopted, drained or
// deleted, its machine never terminated, and its deletion only releases the finalizer.

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/metrics.h"
#include "controllers/registration_health.h"
#include "controllers/termination.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::controllers {

struct LifecycleOptions {
  std::chrono::milliseconds registration_ttl{std::chrono::minutes(15)};
  // How many NodeClaims of one Reconcile call step at once (their API writes overlap instead of
  // waiting for each other: a wave of new Nodes registers in seconds, not one write after
  // another). One: every NodeClaim in turn, in order, as a simulation on a virtual clock needs.
  // Deletions step one at a time whatever it is (their drains share state).
  size_t workers = 1;
};

class NodeClaimLifecycle {
 public:
  // `health` hears of every registration and of every failure to launch or register.
  NodeClaimLifecycle(ClusterCache& cluster, kube::Client& client, cloud::CloudProvider& cloud,
                     kube::EventRecorder& events, Metrics& metrics, const Clock& clock,
                     Logger logger, LifecycleOptions options, RegistrationHealth& health);

  // When to look at a NodeClaim again without a change to watch for (nullopt: only when the
  // NodeClaim or its Node changes).
  using Requeue = Result<std::optional<std::chrono::milliseconds>>;

  // Moves each NodeClaim of `names` one or more steps forward: first launches the machines of all
  // those not launched yet (and not being deleted) with one CloudProvider::CreateAll call, then
  // records those launches and steps the others, up to `options.workers` at once (the deleted
  // ones after the rest, one at a time, when that is more than one). Returns when to look at each
  // again, parallel to `names`.
  std::vector<Requeue> Reconcile(std::span<const std::string> names);

 private:
  // Every step but the launch.
  Requeue Step(const kube::Object& object, const api::NodeClaim& claim);
  // Records the launched machine on the NodeClaim, or what launching it met.
  Requeue RecordLaunch(const kube::Object& object, const api::NodeClaim& claim,
                       const Result<cloud::Instance>& instance);
  Requeue Register(const kube::Object& object, const api::NodeClaim& claim);
  Requeue Initialize(const kube::Object& object, const api::NodeClaim& claim);
  Requeue Finalize(const kube::Object& object, const api::NodeClaim& claim);
  bool InstanceGone(const kube::Object& node, std::string_view provider_id);
  // Why the NodeClaim's provider ID is not this controller's to act on; empty when it is (or there
  // is none yet).
  std::string ForeignReason(const kube::Object& object, const api::NodeClaim& claim) const;
  // The Event and log line of a foreign NodeClaim.
  void ReportForeign(const kube::Object& object, const api::NodeClaim& claim,
                     const std::string& why);
  // Releases the termination finalizer: true when released, false when the NodeClaim was gone.
  Result<bool> ReleaseFinalizer(const kube::Object& object, const std::string& name);

  ClusterCache& cluster_;
  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  kube::EventRecorder& events_;
  Metrics& metrics_;
  const Clock& clock_;
  Logger logger_;
  const LifecycleOptions options_;
  RegistrationHealth& health_;
  NodeDrainer drainer_;
};

}  // namespace karpenter::controllers
