#include "simulate/disruption_budget_controller.h"

#include <algorithm>
#include <tuple>
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
  cluster_.pods().AddHandler(
      [this](kube::WatchEventType type, const Object& pod) { ObservePod(type, pod); });
  cluster_.disruption_budgets().AddHandler(
      [this](kube::WatchEventType type, const Object& budget) { ObserveBudget(type, budget); });
}

void DisruptionBudgetController::Count(const Member& member, int sign) {
  for (size_t index : member.budgets) {
    Budget& budget = budgets_[index];
    budget.expected += sign;
    if (member.healthy) budget.healthy += sign;
    dirty_.insert(index);
  }
}

void DisruptionBudgetController::ObservePod(kube::WatchEventType type, const Object& pod) {
  std::string key = kube::Key(pod);
  const auto found = members_.find(key);
  Member now;
  if (type != kube::WatchEventType::kDeleted) {
    now.healthy = kube::DeletionTimestamp(pod).empty() && kube::IsPodReady(pod);
    if (const auto in = namespaces_.find(kube::Namespace(pod)); in != namespaces_.end()) {
      for (size_t index : in->second) {
        const std::optional<kube::LabelSelector>& selector = budgets_[index].selector;
        if (selector && selector->Matches(pod)) now.budgets.push_back(index);
      }
    }
  }
  if (found != members_.end()) {
    if (found->second == now) return;
    Count(found->second, -1);
  }
  Count(now, 1);
  if (type == kube::WatchEventType::kDeleted) {
    if (found != members_.end()) members_.erase(found);
  } else if (found != members_.end()) {
    found->second = std::move(now);
  } else {
    members_.emplace(std::move(key), std::move(now));
  }
}

void DisruptionBudgetController::ObserveBudget(kube::WatchEventType type, const Object& object) {
  const std::string key = kube::Key(object);
  auto found = budget_index_.find(key);
  if (type == kube::WatchEventType::kDeleted) {
    if (found == budget_index_.end()) return;
    const size_t index = found->second;
    budget_index_.erase(found);
    std::erase(namespaces_[budgets_[index].namespace_], index);
    for (auto& [pod, member] : members_) std::erase(member.budgets, index);
    dirty_.erase(index);
    return;
  }
  if (found == budget_index_.end()) {
    found = budget_index_.emplace(key, budgets_.size()).first;
    budgets_.push_back({std::string(kube::Namespace(object)), std::string(kube::Name(object)), -1,
                        std::nullopt, 0, 0});
    namespaces_[budgets_.back().namespace_].push_back(found->second);
  }
  const size_t index = found->second;
  // Its own status writes, and the evictions charging it, leave the spec alone: only a new
  // generation can select other pods.
  dirty_.insert(index);
  const int64_t generation = kube::Generation(object);
  if (budgets_[index].generation == generation) return;
  Budget& budget = budgets_[index];
  // A budget seen before may have selected pods it no longer does; a new one selected none.
  const bool reselect = budget.generation != -1;
  budget.generation = generation;
  budget.selector = kube::BudgetSelector(object);
  budget.expected = 0;
  budget.healthy = 0;
  cluster_.pods().VisitIndexed(controllers::kIndexPodsByNamespace, budget.namespace_,
                               [&](const std::vector<const Object*>& pods) {
                                 for (const Object* pod : pods) {
                                   const bool selected =
                                       budget.selector && budget.selector->Matches(*pod);
                                   if (!selected && !reselect) continue;
                                   const auto member = members_.find(kube::Key(*pod));
                                   if (member == members_.end()) {
                                     continue;  // its own event counts it
                                   }
                                   std::erase(member->second.budgets, index);
                                   if (!selected) continue;
                                   member->second.budgets.push_back(index);
                                   ++budget.expected;
                                   if (member->second.healthy) ++budget.healthy;
                                 }
                               });
}

Result<size_t> DisruptionBudgetController::Run() {
  if (dirty_.empty()) return size_t{0};
  // In namespace and name order: the writes, and so the simulation, do not depend on the order
  // of events.
  std::vector<const Budget*> dirty;
  for (size_t index : dirty_) dirty.push_back(&budgets_[index]);
  dirty_.clear();
  std::sort(dirty.begin(), dirty.end(), [](const Budget* a, const Budget* b) {
    return std::tie(a->namespace_, a->name) < std::tie(b->namespace_, b->name);
  });
  size_t written = 0;
  for (const Budget* budget : dirty) {
    const std::optional<Object> object =
        cluster_.disruption_budgets().Get(kube::Key(budget->namespace_, budget->name));
    if (!object) continue;
    Result<kube::DisruptionBudgetStatus> status =
        kube::DisruptionBudgetFromCounts(*object, budget->expected, budget->healthy);
    if (!status.ok()) continue;  // an invalid budget: nothing to write
    Object wanted = StatusOf(*status, kube::Generation(*object));
    if (Reports(*object, wanted)) continue;
    Result<Object> patched = client_.Patch(
        kube::resources::kPodDisruptionBudgets, budget->namespace_, budget->name,
        kube::PatchType::kMerge, {{"status", std::move(wanted)}}, kube::Subresource::kStatus);
    if (!patched.ok() && patched.error().status != 404) return patched.error();
    ++written;
  }
  return written;
}

}  // namespace karpenter::simulate
