#pragma once
// Owner references with blockOwnerDeletion, as NodeClaims (to their NodePool) and Nodes (to their
// NodeClaim) carry them. Where the API server enforces OwnerReferencesPermissionEnforcement (the
// test cluster does), setting one needs `update` on the owner's finalizers subresource; the
// server's refusal does not name that grant ("cannot set blockOwnerDeletion ...: , <nil>"), so the
// controller's error does.

#include <string_view>

#include "common/result.h"
#include "kube/object.h"

namespace karpenter::controllers {

// {apiVersion karpenter.sh/v1, kind, name, uid, blockOwnerDeletion: true}.
kube::Object BlockingOwnerReference(std::string_view kind, std::string_view name,
                                    std::string_view uid);

// `error` with, when it is that refusal, the grant it lacks: update on `owner_plural`/finalizers
// in API group karpenter.sh.
Error ExplainOwnerReferenceDenial(Error error, std::string_view owner_plural);

}  // namespace karpenter::controllers
