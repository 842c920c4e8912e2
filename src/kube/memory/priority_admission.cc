#include "kube/memory/priority_admission.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "kube/memory/api_errors.h"

namespace karpenter::kube::memory {
namespace {

constexpr std::string_view kPreemptLowerPriority = "PreemptLowerPriority";
// What users may give a class; above it only the system classes.
constexpr int64_t kHighestUserDefinablePriority = 1000000000;

struct SystemClass {
  std::string_view name;
  int32_t value;
};
constexpr SystemClass kSystemClasses[] = {{"system-node-critical", 2000001000},
                                          {"system-cluster-critical", 2000000000}};

// A class's value (0 when absent, as the server reads it) and policy.
int32_t ValueOf(const Object& priority_class) {
  const auto value = priority_class.find("value");
  return value != priority_class.end() && value->is_number_integer() ? value->get<int32_t>() : 0;
}
std::string PolicyOf(const Object& priority_class) {
  const std::string_view policy = StringAt(priority_class, {"preemptionPolicy"});
  return std::string(policy.empty() ? kPreemptLowerPriority : policy);
}

}  // namespace

std::optional<Error> AdmitPodPriority(Object& pod, const Object* named_class,
                                      const Object* default_class) {
  const auto found = pod.find("spec");
  if (found == pod.end() || !found->is_object()) return std::nullopt;  // validation refuses it
  Object& spec = *found;
  std::string name(StringAt(pod, {"spec", "priorityClassName"}));
  int32_t priority = 0;
  std::string policy(kPreemptLowerPriority);
  if (name.empty()) {
    if (default_class != nullptr) {
      name = std::string(Name(*default_class));
      priority = ValueOf(*default_class);
      policy = PolicyOf(*default_class);
      spec["priorityClassName"] = name;
    }
  } else if (named_class != nullptr) {
    priority = ValueOf(*named_class);
    policy = PolicyOf(*named_class);
  } else {
    bool system = false;
    for (const SystemClass& known : kSystemClasses) {
      if (known.name != name) continue;
      priority = known.value;
      system = true;
    }
    if (!system) {
      return Forbidden(resources::kPods, Name(pod),
                       fmt::format("no PriorityClass with name {} was found", name));
    }
  }
  if (const auto given = spec.find("priority");
      given != spec.end() && !given->is_null() &&
      !(given->is_number_integer() && given->get<int64_t>() == priority)) {
    return Forbidden(resources::kPods, Name(pod),
                     fmt::format("the integer value of priority ({}) must not be provided in pod "
                                 "spec; priority admission controller computed {} from the given "
                                 "PriorityClass name",
                                 given->dump(), priority));
  }
  if (const auto given = spec.find("preemptionPolicy");
      given != spec.end() && !given->is_null() && *given != policy) {
    return Forbidden(
        resources::kPods, Name(pod),
        fmt::format("the string value of PreemptionPolicy ({}) must not be provided "
                    "in pod spec; priority admission controller computed {} from the "
                    "given PriorityClass name",
                    given->is_string() ? given->get<std::string>() : given->dump(), policy));
  }
  spec["priority"] = priority;
  spec["preemptionPolicy"] = policy;
  return std::nullopt;
}

std::optional<Error> PriorityClassError(const Object& priority_class, const Object* default_class) {
  const std::string_view name = Name(priority_class);
  if (name.starts_with("system-")) {
    return Invalid(resources::kPriorityClasses, name,
                   InvalidValue("metadata.name", std::string(name),
                                "priority class names with 'system-' prefix are reserved"));
  }
  if (const auto value = priority_class.find("value");
      value != priority_class.end() && !value->is_number_integer()) {
    return Invalid(resources::kPriorityClasses, name,
                   InvalidValue("value", *value, "must be an integer"));
  }
  if (ValueOf(priority_class) > kHighestUserDefinablePriority) {
    return Invalid(resources::kPriorityClasses, name,
                   ForbiddenField("value", fmt::format("maximum allowed value of a user defined "
                                                       "priority is {}",
                                                       kHighestUserDefinablePriority)));
  }
  const std::string policy = PolicyOf(priority_class);
  if (policy != kPreemptLowerPriority && policy != "Never") {
    return Invalid(resources::kPriorityClasses, name,
                   fmt::format("preemptionPolicy: Unsupported value: \"{}\": supported values: "
                               "\"Never\", \"PreemptLowerPriority\"",
                               policy));
  }
  const auto global_default = priority_class.find("globalDefault");
  if (default_class != nullptr && global_default != priority_class.end() &&
      *global_default == true) {
    return Forbidden(resources::kPriorityClasses, name,
                     fmt::format("PriorityClass {} is already marked as default. Only one default "
                                 "can exist",
                                 Name(*default_class)));
  }
  return std::nullopt;
}

}  // namespace karpenter::kube::memory
