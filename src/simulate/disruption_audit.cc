#include "simulate/disruption_audit.h"

#include <string>
#include <vector>

#include "kube/disruption_budget.h"

namespace karpenter::simulate {
namespace {

namespace resources = kube::resources;

}  // namespace

bool DisruptionAudit::Counts(const kube::Object& pod) {
  if (kube::StringAt(pod, {"spec", "nodeName"}).empty()) return false;
  const std::string_view phase = kube::StringAt(pod, {"status", "phase"});
  if (phase == "Succeeded" || phase == "Failed") return false;
  const kube::Object* owners = kube::Find(pod, {"metadata", "ownerReferences"});
  if (owners != nullptr && owners->is_array()) {
    for (const kube::Object& owner : *owners) {
      if (owner.value("controller", false) && owner.value("kind", "") == "DaemonSet") return false;
    }
  }
  return true;
}

bool DisruptionAudit::Protected(const kube::Object& pod) {
  if (!kube::IsPodReady(pod)) return false;
  kube::ListOptions in_namespace;
  in_namespace.namespace_ = std::string(kube::Namespace(pod));
  Result<kube::ObjectList> budgets = store_.List(resources::kPodDisruptionBudgets, in_namespace);
  if (!budgets.ok() || budgets->items.empty()) return false;
  std::vector<kube::Object> pods;
  for (const kube::Object& budget : budgets->items) {
    if (!kube::SelectsPod(budget, pod)) continue;
    if (pods.empty()) {
      Result<kube::ObjectList> listed = store_.List(resources::kPods, in_namespace);
      if (!listed.ok()) return false;
      pods = std::move(listed->items);
    }
    Result<kube::DisruptionBudgetStatus> status = kube::ComputeDisruptionBudget(budget, pods);
    if (status.ok() && status->disruptions_allowed <= 0) return true;
  }
  return false;
}

void DisruptionAudit::RecordLoss(const kube::Object& pod) {
  if (!Counts(pod)) return;
  ++pods_disrupted_;
  if (Protected(pod)) ++pdb_violations_;
}

Status DisruptionAudit::Delete(const kube::Resource& resource, std::string_view namespace_,
                               std::string_view name, const kube::DeleteOptions& options) {
  if (resource.plural != resources::kPods.plural) {
    return store_.Delete(resource, namespace_, name, options);
  }
  Result<kube::Object> pod = store_.Get(resource, namespace_, name);
  const bool counts = pod.ok() && kube::DeletionTimestamp(*pod).empty() && Counts(*pod);
  const bool violates = counts && Protected(*pod);
  Status deleted = store_.Delete(resource, namespace_, name, options);
  if (deleted.ok() && counts) {
    ++pods_disrupted_;
    if (violates) ++pdb_violations_;
  }
  return deleted;
}

Status DisruptionAudit::Evict(std::string_view namespace_, std::string_view pod_name,
                              const kube::DeleteOptions& options) {
  Result<kube::Object> pod = store_.Get(resources::kPods, namespace_, pod_name);
  Status evicted = store_.Evict(namespace_, pod_name, options);
  if (evicted.ok() && pod.ok() && kube::DeletionTimestamp(*pod).empty() && Counts(*pod)) {
    ++pods_disrupted_;
  }
  return evicted;
}

}  // namespace karpenter::simulate
