#pragma once
// Interrupted NodeClaims (upstream-reference §7): when the cloud warns that an instance is going (a
// spot interruption, scheduled maintenance, the instance stopping), its NodeClaim is marked
// DisruptionReason=Interrupted and deleted. Its Node is cordoned at once, but the drain holds
// back for a while: provisioning plans the pods of a Node being deleted as pending, and the drain
// starts once those pods fit on Nodes that are ready — a replacement comes up first — or once
// the hold runs out, leaving the rest of the warning for the pods to stop.

#include <chrono>
#include <optional>
#include <string_view>

#include "api/nodeclaim.h"
#include "common/clock.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"
#include "kube/object.h"

namespace karpenter::controllers {

// Half of a spot instance's two-minute warning.
inline constexpr std::chrono::seconds kInterruptionDrainHold(60);

// Marks `claim` DisruptionReason=Interrupted (`message` says why) and deletes it. A NodeClaim
// already being deleted is left as it is.
Status DeleteInterruptedNodeClaim(kube::Client& client, const kube::Object& claim,
                                  std::string_view message, TimePoint now);

// How long the drain of `node_name`, the Node of the interrupted `claim`, should still wait for
// its pods' new capacity; nullopt to drain now (the pods fit on ready Nodes, the hold is over, or
// `claim` was not interrupted).
std::optional<std::chrono::milliseconds> InterruptedDrainWait(const ClusterCache& cluster,
                                                              const api::NodeClaim& claim,
                                                              std::string_view node_name,
                                                              TimePoint now);

}  // namespace karpenter::controllers
