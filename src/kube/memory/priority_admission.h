#pragma once
// The API server's Priority admission plugin, which every pod passes on creation: spec.priority
// and spec.preemptionPolicy come from the pod's PriorityClass (one of the two system classes every
// cluster has, or a stored one), or from the class marked globalDefault when it names none (0 and
// PreemptLowerPriority without one). A class that does not exist, or a priority or policy the pod
// gives that its class does not, is refused, as the server refuses it. And the checks the server
// makes of a PriorityClass itself.

#include <optional>

#include "common/result.h"
#include "kube/object.h"

namespace karpenter::kube::memory {

// Fills in `pod`'s priority, policy (and the default class's name); the error (403) when the pod
// is refused. `named_class`: the stored class spec.priorityClassName names, or null;
// `default_class`: the stored class with globalDefault, or null.
std::optional<Error> AdmitPodPriority(Object& pod, const Object* named_class,
                                      const Object* default_class);

// Why the server refuses to store `priority_class` (422, or 403 for a second default class), or
// nullopt. `default_class`: the stored class with globalDefault other than this one, or null.
std::optional<Error> PriorityClassError(const Object& priority_class, const Object* default_class);

}  // namespace karpenter::kube::memory
