#include "aws/nodeclass/status_conditions.h"

#include <string>

#include "api/condition.h"

namespace karpenter::aws {

bool SetStatusCondition(std::vector<api::Condition>& conditions, std::string_view type, bool status,
                        std::string_view reason, std::string_view message, TimePoint now,
                        int64_t observed_generation) {
  const std::string status_text(status ? api::kConditionTrue : api::kConditionFalse);
  for (api::Condition& condition : conditions) {
    if (condition.type != type) continue;
    if (condition.status == status_text && condition.reason == reason &&
        condition.message == message && condition.observed_generation == observed_generation) {
      return false;
    }
    if (condition.status != status_text || condition.last_transition_time.empty()) {
      condition.last_transition_time = FormatTime(now);
    }
    condition.status = status_text;
    condition.reason = std::string(reason);
    condition.message = std::string(message);
    condition.observed_generation = observed_generation;
    return true;
  }
  conditions.push_back(api::Condition{.type = std::string(type),
                                      .status = status_text,
                                      .reason = std::string(reason),
                                      .message = std::string(message),
                                      .last_transition_time = FormatTime(now),
                                      .observed_generation = observed_generation});
  return true;
}

void SetNodeClassReady(std::vector<api::Condition>& conditions, TimePoint now,
                       int64_t observed_generation) {
  std::string unready;
  for (const std::string_view type :
       {api::kConditionSubnetsReady, api::kConditionSecurityGroupsReady, api::kConditionAmisReady,
        api::kConditionInstanceProfileReady, api::kConditionCapacityReservationsReady,
        api::kConditionValidationSucceeded}) {
    if ((type == api::kConditionValidationSucceeded ||
         type == api::kConditionCapacityReservationsReady) &&
        api::FindCondition(conditions, type) == nullptr) {
      continue;
    }
    if (api::IsConditionTrue(conditions, type)) continue;
    if (!unready.empty()) unready += ", ";
    unready += std::string(type) + "=False";
  }
  if (unready.empty()) {
    SetStatusCondition(conditions, api::kConditionReady, true, api::kConditionReady, "", now,
                       observed_generation);
  } else {
    SetStatusCondition(conditions, api::kConditionReady, false, "UnhealthyDependents", unready, now,
                       observed_generation);
  }
}

}  // namespace karpenter::aws
