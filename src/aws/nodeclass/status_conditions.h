#pragma once
// Setting metav1.Conditions on a typed status: lastTransitionTime moves only when the status
// changes, so a condition re-asserted every reconcile keeps the time it became what it is.

#include <cstdint>
#include <string_view>
#include <vector>

#include "api/condition.h"
#include "common/clock.h"

namespace karpenter::aws {

// Sets condition `type` in `conditions` (appended when absent). Returns whether anything changed.
bool SetStatusCondition(std::vector<api::Condition>& conditions, std::string_view type, bool status,
                        std::string_view reason, std::string_view message, TimePoint now,
                        int64_t observed_generation);

// Sets an EC2NodeClass's Ready from what it sums up: SubnetsReady, SecurityGroupsReady,
// AMIsReady, InstanceProfileReady, and CapacityReservationsReady and ValidationSucceeded once
// they are set (the first only with the ReservedCapacity gate on). True when all are
// True; else False, naming those that are not ("AMIsReady=False, …").
void SetNodeClassReady(std::vector<api::Condition>& conditions, TimePoint now,
                       int64_t observed_generation);

}  // namespace karpenter::aws
