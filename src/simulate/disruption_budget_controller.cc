#include "simulate/disruption_budget_controller.h"

#include <utility>
#include <vector>

#include "kube/disruption_budget.h"

namespace karpenter::simulate {
namespace {

using kube::Object;

Object StatusOf(const kube::DisruptionBudgetStatus& status, int64_t generation) {
  return {{"observedGeneration", generation},
          {"expectedPods", status.expected_pods},
          {"currentHealthy", status.current_healthy},
          {"desiredHealthy", status.desired_healthy},
          {"disruptionsAllowed", status.disruptions_allowed}};
}

// Whether `budget` already reports every field of `status`.
bool Reports(const Object& budget, const Object& status) {
  const Object* current = kube::Find(budget, {"status"});
  if (current == nullptr || !current->is_object()) return false;
  for (const auto& [field, value] : status.items()) {
    const auto it = current->find(field);
    if (it == current->end() || *it != value) return false;
  }
  return true;
}

}  // namespace

DisruptionBudgetController::DisruptionBudgetController(kube::Client& client,
                                                       controllers::ClusterCache& cluster)
    : client_(client), cluster_(cluster) {
  auto mark = [this](kube::WatchEventType, const Object& object) {
    dirty_.emplace(kube::Namespace(object));
  };
  cluster_.pods().AddHandler(mark);
  cluster_.disruption_budgets().AddHandler(mark);
}

Result<size_t> DisruptionBudgetController::Run() {
  if (dirty_.empty()) return size_t{0};
  std::vector<Object> budgets;
  cluster_.disruption_budgets().ForEach([&](const Object& budget) {
    if (dirty_.contains(kube::Namespace(budget))) budgets.push_back(budget);
  });
  dirty_.clear();
  // (namespace, name, status) to write, decided with the pods in place, written after.
  std::vector<std::pair<const Object*, Object>> writes;
  for (const Object& budget : budgets) {
    cluster_.pods().VisitIndexed(
        controllers::kIndexPodsByNamespace, kube::Namespace(budget),
        [&](const std::vector<const Object*>& pods) {
          Result<kube::DisruptionBudgetStatus> status = kube::ComputeDisruptionBudget(budget, pods);
          if (!status.ok()) return;  // an invalid budget: the controller reports, writes nothing
          Object wanted = StatusOf(*status, kube::Generation(budget));
          if (!Reports(budget, wanted)) writes.emplace_back(&budget, std::move(wanted));
        });
  }
  for (auto& [budget, status] : writes) {
    Result<Object> written = client_.Patch(
        kube::resources::kPodDisruptionBudgets, kube::Namespace(*budget), kube::Name(*budget),
        kube::PatchType::kMerge, {{"status", std::move(status)}}, kube::Subresource::kStatus);
    if (!written.ok() && written.error().status != 404) return written.error();
  }
  return writes.size();
}

}  // namespace karpenter::simulate
