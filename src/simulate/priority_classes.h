#pragma once
// The PriorityClasses a simulation's pods need. The simulated API server gives each pod its
// class's priority and refuses a pod whose class it does not know, as a real one does; but a
// cluster's snapshot (`kubectl get pods -o json`) carries each pod's priority without the classes,
// and manifests name classes defined elsewhere. So each class a pod or pod template names that is
// neither in the input nor one of the system classes is added: with the priority and preemption
// policy the input's pods carry for it, or at 0 when no pod tells.

#include <string>
#include <vector>

#include "kube/object.h"

namespace karpenter::simulate {

// Appends the missing PriorityClasses to `objects`; returns the names of those taken as 0.
std::vector<std::string> AddMissingPriorityClasses(std::vector<kube::Object>& objects);

}  // namespace karpenter::simulate
