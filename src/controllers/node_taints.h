#pragma once
// Adding and removing a taint on a Node, only if the Node is still at the resourceVersion it was
// read at (spec.taints is replaced whole; a stale read is a 409 and the caller reads again).

#include "api/taint.h"
#include "common/result.h"
#include "kube/client.h"

namespace karpenter::controllers {

// The taint disruption and termination put on a node they are about to empty.
api::Taint DisruptedTaint();

// Whether `node` (a Node object) carries a taint with `taint`'s key and effect.
bool HasTaint(const kube::Object& node, const api::Taint& taint);

// Adds `taint` to `node` unless it is there.
Status AddTaint(kube::Client& client, const kube::Object& node, const api::Taint& taint);

// Removes every taint with `taint`'s key and effect from `node`.
Status RemoveTaint(kube::Client& client, const kube::Object& node, const api::Taint& taint);

}  // namespace karpenter::controllers
