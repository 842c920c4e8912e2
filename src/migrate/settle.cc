#include "migrate/settle.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kube/object.h"
#include "migrate/name_list.h"

namespace karpenter::migrate {
namespace {

bool Pending(const kube::Object& pod) {
  const std::string_view phase = kube::StringAt(pod, {"status", "phase"});
  if (phase == "Succeeded" || phase == "Failed") return false;
  return phase == "Pending" || kube::StringAt(pod, {"spec", "nodeName"}).empty();
}

int64_t Status(const kube::Object& budget, std::string_view field) {
  const kube::Object* value = kube::Find(budget, {"status", field});
  return value != nullptr && value->is_number_integer() ? value->get<int64_t>() : 0;
}

}  // namespace

SettleBaseline Baseline(const ClusterObjects& objects) {
  SettleBaseline out;
  for (const kube::SharedObject& pod : objects.pods) {
    if (Pending(*pod)) out.pending.insert(std::string(kube::Uid(*pod)));
  }
  for (const kube::SharedObject& budget : objects.budgets) {
    if (Status(*budget, "disruptionsAllowed") == 0) out.blocked_budgets.insert(kube::Key(*budget));
  }
  return out;
}

std::vector<std::string> Unsettled(const ClusterObjects& objects, const std::string& node_group,
                                   int64_t desired, const SettleBaseline& baseline) {
  std::vector<std::string> out;
  int64_t nodes = 0;
  for (const kube::SharedObject& node : objects.nodes) {
    if (kube::Label(*node, kLabelNodeGroup) == node_group) ++nodes;
  }
  if (nodes > desired) {
    out.push_back(
        fmt::format("node group {} still has {} nodes (desired {})", node_group, nodes, desired));
  }
  std::vector<std::string> pending;
  for (const kube::SharedObject& pod : objects.pods) {
    if (Pending(*pod) && !baseline.pending.contains(kube::Uid(*pod))) {
      pending.push_back(kube::Key(*pod));
    }
  }
  if (!pending.empty()) {
    out.push_back(
        fmt::format("{} pods are not running again: {}", pending.size(), NameList(pending)));
  }
  for (const kube::SharedObject& budget : objects.budgets) {
    const int64_t healthy = Status(*budget, "currentHealthy");
    const int64_t wanted = Status(*budget, "desiredHealthy");
    if (healthy < wanted) {
      out.push_back(fmt::format("PodDisruptionBudget {} has {} healthy pods of the {} it needs",
                                kube::Key(*budget), healthy, wanted));
    } else if (Status(*budget, "disruptionsAllowed") == 0 &&
               !baseline.blocked_budgets.contains(kube::Key(*budget))) {
      out.push_back(
          fmt::format("PodDisruptionBudget {} allows no disruption now", kube::Key(*budget)));
    }
  }
  return out;
}

}  // namespace karpenter::migrate
