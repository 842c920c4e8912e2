#pragma once
// The life of a NodeClaim (reference §9): launch its machine through the CloudProvider, register
// the Node that machine's kubelet creates (matched by providerID: sync labels and taints, drop
// karpenter.sh/unregistered, own it), mark it initialized once the Node is Ready with its startup
// taints gone, and on deletion taint the Node karpenter.sh/disrupted and drain it (termination.h),
// then terminate the machine and remove the Node before releasing the finalizer. A NodeClaim whose
// machine never registers is deleted after the registration TTL; one whose Node is being deleted
// (`kubectl delete node`) is deleted too, so that the Node is drained and its machine terminated.

#include <chrono>
#include <optional>
#include <string_view>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "controllers/termination.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::controllers {

struct LifecycleOptions {
  std::chrono::milliseconds registration_ttl{std::chrono::minutes(15)};
};

class NodeClaimLifecycle {
 public:
  NodeClaimLifecycle(ClusterCache& cluster, kube::Client& client, cloud::CloudProvider& cloud,
                     kube::EventRecorder& events, const Clock& clock, Logger logger,
                     LifecycleOptions options);

  // Moves the NodeClaim `name` one or more steps forward. Returns when to look again without a
  // change to watch for (nullopt: only when the NodeClaim or its Node changes).
  Result<std::optional<std::chrono::milliseconds>> Reconcile(std::string_view name);

 private:
  using Requeue = Result<std::optional<std::chrono::milliseconds>>;
  Requeue Step(const kube::Object& object, const api::NodeClaim& claim);
  Requeue Launch(const kube::Object& object, const api::NodeClaim& claim);
  Requeue Register(const kube::Object& object, const api::NodeClaim& claim);
  Requeue Initialize(const kube::Object& object, const api::NodeClaim& claim);
  Requeue Finalize(const kube::Object& object, const api::NodeClaim& claim);
  bool InstanceGone(const kube::Object& node, std::string_view provider_id);

  ClusterCache& cluster_;
  kube::Client& client_;
  cloud::CloudProvider& cloud_;
  kube::EventRecorder& events_;
  const Clock& clock_;
  Logger logger_;
  const LifecycleOptions options_;
  NodeDrainer drainer_;
};

}  // namespace karpenter::controllers
