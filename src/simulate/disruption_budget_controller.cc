#include "simulate/disruption_budget_controller.h"

#include <algorithm>
#include <map>
#include <string_view>
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
  std::sort(budgets.begin(), budgets.end(), [](const Object& a, const Object& b) {
    return kube::Namespace(a) < kube::Namespace(b);
  });
  // (budget, status) to write, decided with the pods in place, written after.
  std::vector<std::pair<const Object*, Object>> writes;
  for (auto first = budgets.begin(); first != budgets.end();) {
    const std::string_view namespace_ = kube::Namespace(*first);
    const auto last = std::find_if(first, budgets.end(), [&](const Object& budget) {
      return kube::Namespace(budget) != namespace_;
    });
    cluster_.pods().VisitIndexed(
        controllers::kIndexPodsByNamespace, namespace_,
        [&](const std::vector<const Object*>& pods) {
          // Most selectors name a label value (matchLabels): bucket the namespace's pods by
          // label once, so a budget only looks at pods that could match.
          std::map<std::pair<std::string_view, std::string_view>, std::vector<const Object*>>
              by_label;
          for (const Object* pod : pods) {
            const Object* labels = kube::Find(*pod, {"metadata", "labels"});
            if (labels == nullptr || !labels->is_object()) continue;
            for (const auto& [key, value] : labels->items()) {
              if (value.is_string()) {
                by_label[{key, value.get_ref<const std::string&>()}].push_back(pod);
              }
            }
          }
          static const std::vector<const Object*> kNone;
          for (auto budget = first; budget != last; ++budget) {
            const std::vector<const Object*>* candidates = &pods;
            const Object* match = kube::Find(*budget, {"spec", "selector", "matchLabels"});
            if (match != nullptr && match->is_object() && !match->empty() &&
                match->begin()->is_string()) {
              const auto bucket = by_label.find(
                  {match->begin().key(), match->begin()->get_ref<const std::string&>()});
              candidates = bucket == by_label.end() ? &kNone : &bucket->second;
            }
            Result<kube::DisruptionBudgetStatus> status =
                kube::ComputeDisruptionBudget(*budget, *candidates);
            if (!status.ok()) continue;  // an invalid budget: nothing to write
            Object wanted = StatusOf(*status, kube::Generation(*budget));
            if (!Reports(*budget, wanted)) writes.emplace_back(&*budget, std::move(wanted));
          }
        });
    first = last;
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
