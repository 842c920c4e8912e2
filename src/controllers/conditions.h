#pragma once
// Status conditions (metav1.Condition) on the JSON of an object: set one, read one. Setting keeps
// lastTransitionTime when the status does not change, as the API conventions ask.

#include <optional>
#include <string_view>

#include "common/clock.h"
#include "common/result.h"
#include "kube/client.h"
#include "kube/object.h"

namespace karpenter::controllers {

// Sets condition `type` in `conditions` (a JSON array, created when null). Returns whether
// anything changed.
bool SetCondition(kube::Object& conditions, std::string_view type, bool status,
                  std::string_view reason, std::string_view message, TimePoint now,
                  int64_t observed_generation);
// The same with the status as written: "True", "False" or "Unknown".
bool SetConditionStatus(kube::Object& conditions, std::string_view type, std::string_view status,
                        std::string_view reason, std::string_view message, TimePoint now,
                        int64_t observed_generation);

// Removes condition `type` from `conditions`. Returns whether it was there.
bool RemoveCondition(kube::Object& conditions, std::string_view type);

// A copy of object.status.conditions; an empty array when there is none.
kube::Object ConditionsOf(const kube::Object& object);

// When condition `type` of `object` last changed status; nullopt when absent or unreadable.
std::optional<TimePoint> ConditionTransitionTime(const kube::Object& object, std::string_view type);

// Merges `status` into the status subresource of `object` (of `resource`), only if
// the object is still at the resourceVersion it was read at: the patch replaces arrays such as
// status.conditions whole, so it must not land on a newer object (a stale read is a 409).
Status PatchStatus(kube::Client& client, const kube::Resource& resource, const kube::Object& object,
                   kube::Object status);
// The same, giving the object as the patch left it (for a write that follows at its version).
Result<kube::Object> PatchedStatus(kube::Client& client, const kube::Resource& resource,
                                   const kube::Object& object, kube::Object status);

// The status ("True", "False", "Unknown") of condition `type` in object.status.conditions; empty
// when absent.
std::string_view ConditionStatus(const kube::Object& object, std::string_view type);

}  // namespace karpenter::controllers
