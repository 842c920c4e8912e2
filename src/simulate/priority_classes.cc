#include "simulate/priority_classes.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace karpenter::simulate {
namespace {

struct Seen {
  std::optional<int64_t> priority;  // as a pod of the input carries it
  std::string policy;
};

}  // namespace

std::vector<std::string> AddMissingPriorityClasses(std::vector<kube::Object>& objects) {
  std::set<std::string, std::less<>> defined = {"system-cluster-critical", "system-node-critical"};
  std::map<std::string, Seen, std::less<>> named;
  for (const kube::Object& object : objects) {
    if (!object.is_object()) continue;
    if (kube::StringAt(object, {"kind"}) == "PriorityClass") {
      defined.emplace(kube::Name(object));
      continue;
    }
    // A Pod's spec, a workload's template, a PodTemplate's template.
    for (const kube::Object* spec :
         {kube::Find(object, {"spec"}), kube::Find(object, {"spec", "template", "spec"}),
          kube::Find(object, {"template", "spec"})}) {
      if (spec == nullptr) continue;
      const std::string_view name = kube::StringAt(*spec, {"priorityClassName"});
      if (name.empty()) continue;
      Seen& seen = named[std::string(name)];
      const auto priority = spec->find("priority");
      if (!seen.priority && priority != spec->end() && priority->is_number_integer()) {
        seen.priority = priority->get<int64_t>();
        seen.policy = kube::StringAt(*spec, {"preemptionPolicy"});
      }
    }
  }
  std::vector<std::string> assumed;
  for (const auto& [name, seen] : named) {
    if (defined.contains(name)) continue;
    kube::Object priority_class = {{"apiVersion", "scheduling.k8s.io/v1"},
                                   {"kind", "PriorityClass"},
                                   {"metadata", {{"name", name}}},
                                   {"value", seen.priority.value_or(0)}};
    if (!seen.policy.empty()) priority_class["preemptionPolicy"] = seen.policy;
    objects.push_back(std::move(priority_class));
    if (!seen.priority) assumed.push_back(name);
  }
  return assumed;
}

}  // namespace karpenter::simulate
