#include "controllers/conditions.h"

#include <string>
#include <utility>

#include "api/condition.h"

namespace karpenter::controllers {

bool SetCondition(kube::Object& conditions, std::string_view type, bool status,
                  std::string_view reason, std::string_view message, TimePoint now,
                  int64_t observed_generation) {
  return SetConditionStatus(conditions, type, status ? api::kConditionTrue : api::kConditionFalse,
                            reason, message, now, observed_generation);
}

bool SetConditionStatus(kube::Object& conditions, std::string_view type,
                        std::string_view status_text, std::string_view reason,
                        std::string_view message, TimePoint now, int64_t observed_generation) {
  if (!conditions.is_array()) conditions = kube::Object::array();
  for (kube::Object& condition : conditions) {
    if (!condition.is_object() || kube::StringAt(condition, {"type"}) != type) continue;
    const kube::Object* generation = kube::Find(condition, {"observedGeneration"});
    if (kube::StringAt(condition, {"status"}) == status_text &&
        kube::StringAt(condition, {"reason"}) == reason &&
        kube::StringAt(condition, {"message"}) == message && generation != nullptr &&
        *generation == observed_generation) {
      return false;
    }
    if (kube::StringAt(condition, {"status"}) != status_text) {
      condition["lastTransitionTime"] = FormatTime(now);
    }
    condition["status"] = std::string(status_text);
    condition["reason"] = std::string(reason);
    condition["message"] = std::string(message);
    condition["observedGeneration"] = observed_generation;
    return true;
  }
  conditions.push_back({{"type", std::string(type)},
                        {"status", status_text},
                        {"reason", std::string(reason)},
                        {"message", std::string(message)},
                        {"lastTransitionTime", FormatTime(now)},
                        {"observedGeneration", observed_generation}});
  return true;
}

bool RemoveCondition(kube::Object& conditions, std::string_view type) {
  if (!conditions.is_array()) return false;
  for (auto it = conditions.begin(); it != conditions.end(); ++it) {
    if (it->is_object() && kube::StringAt(*it, {"type"}) == type) {
      conditions.erase(it);
      return true;
    }
  }
  return false;
}

kube::Object ConditionsOf(const kube::Object& object) {
  const kube::Object* conditions = kube::Find(object, {"status", "conditions"});
  return conditions != nullptr && conditions->is_array() ? *conditions : kube::Object::array();
}

std::optional<TimePoint> ConditionTransitionTime(const kube::Object& object,
                                                 std::string_view type) {
  for (const kube::Object& condition : ConditionsOf(object)) {
    if (kube::StringAt(condition, {"type"}) == type) {
      return ParseTime(kube::StringAt(condition, {"lastTransitionTime"}));
    }
  }
  return std::nullopt;
}

Result<kube::Object> PatchedStatus(kube::Client& client, const kube::Resource& resource,
                                   const kube::Object& object, kube::Object status) {
  return client.Patch(
      resource, resource.namespaced ? kube::Namespace(object) : "", kube::Name(object),
      kube::PatchType::kMerge,
      kube::Object{{"metadata", {{"resourceVersion", std::string(kube::ResourceVersion(object))}}},
                   {"status", std::move(status)}},
      kube::Subresource::kStatus);
}

Status PatchStatus(kube::Client& client, const kube::Resource& resource, const kube::Object& object,
                   kube::Object status) {
  RETURN_IF_ERROR(PatchedStatus(client, resource, object, std::move(status)));
  return {};
}

std::string_view ConditionStatus(const kube::Object& object, std::string_view type) {
  const auto status = object.find("status");
  if (status == object.end() || !status->is_object()) return {};
  const auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return {};
  for (const kube::Object& condition : *conditions) {
    const auto found = condition.find("type");
    if (found == condition.end() || !found->is_string() || *found != type) continue;
    const auto value = condition.find("status");
    if (value == condition.end() || !value->is_string()) return {};
    return value->get_ref<const std::string&>();
  }
  return {};
}

}  // namespace karpenter::controllers
