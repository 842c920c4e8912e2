#pragma once
// Status conditions (metav1.Condition) on the JSON of an object: set one, read one. Setting keeps
// lastTransitionTime when the status does not change, as the API conventions ask.

#include <string_view>

#include "common/clock.h"
#include "kube/object.h"

namespace karpenter::controllers {

// Sets condition `type` in `conditions` (a JSON array, created when null). Returns whether
// anything changed.
bool SetCondition(kube::Object& conditions, std::string_view type, bool status,
                  std::string_view reason, std::string_view message, TimePoint now,
                  int64_t observed_generation);

// The status ("True", "False", "Unknown") of condition `type` in object.status.conditions; empty
// when absent.
std::string_view ConditionStatus(const kube::Object& object, std::string_view type);

}  // namespace karpenter::controllers
