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
  return kube::ControllerKind(pod) != "DaemonSet";
}

bool DisruptionAudit::Protected(const kube::Object& pod) {
  if (!kube::IsPodReady(pod)) return false;
  kube::ListOptions in_namespace;
  in_namespace.namespace_ = std::string(kube::Namespace(pod));
  Result<kube::ObjectList> budgets = next().List(resources::kPodDisruptionBudgets, in_namespace);
  if (!budgets.ok() || budgets->items.empty()) return false;
  std::vector<kube::SharedObject> pods;
  for (const kube::SharedObject& budget : budgets->items) {
    if (!kube::SelectsPod(*budget, pod)) continue;
    if (pods.empty()) {
      Result<kube::ObjectList> listed = next().List(resources::kPods, in_namespace);
      if (!listed.ok()) return false;
      pods = std::move(listed->items);
    }
    Result<kube::DisruptionBudgetStatus> status = kube::ComputeDisruptionBudget(*budget, pods);
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
    return next().Delete(resource, namespace_, name, options);
  }
  Result<kube::Object> pod = next().Get(resource, namespace_, name);
  const bool counts = pod.ok() && kube::DeletionTimestamp(*pod).empty() && Counts(*pod);
  const bool violates = counts && Protected(*pod);
  Status deleted = next().Delete(resource, namespace_, name, options);
  if (deleted.ok() && counts) {
    ++pods_disrupted_;
    if (violates) ++pdb_violations_;
  }
  return deleted;
}

Status DisruptionAudit::Evict(std::string_view namespace_, std::string_view pod_name,
                              const kube::DeleteOptions& options) {
  Result<kube::Object> pod = next().Get(resources::kPods, namespace_, pod_name);
  Status evicted = next().Evict(namespace_, pod_name, options);
  if (evicted.ok() && pod.ok() && kube::DeletionTimestamp(*pod).empty() && Counts(*pod)) {
    ++pods_disrupted_;
  }
  return evicted;
}

}  // namespace karpenter::simulate
