#include "scheduling/pod_constraints.h"

#include <algorithm>

namespace karpenter::scheduling {
namespace {

template <class T>
void SortHeaviestFirst(std::vector<T>& terms) {
  std::stable_sort(terms.begin(), terms.end(),
                   [](const T& a, const T& b) { return a.weight > b.weight; });
}

}  // namespace

PodConstraints::PodConstraints(const api::Pod& pod, Requirements volume_requirements,
                               bool ignore_preferences)
    : pod_(&pod),
      requests_(api::SchedulingRequests(pod.spec)),
      host_ports_(HostPortsOf(pod.spec)),
      volume_requirements_(std::move(volume_requirements)),
      schedule_anyway_relaxed_(ignore_preferences) {
  const auto& affinity = pod.spec.affinity;
  if (!ignore_preferences && affinity && affinity->node_affinity) {
    preferred_node_ = affinity->node_affinity->preferred;
    SortHeaviestFirst(preferred_node_);
  }
  if (!ignore_preferences && affinity && affinity->pod_affinity) {
    preferred_affinity_ = affinity->pod_affinity->preferred;
    SortHeaviestFirst(preferred_affinity_);
  }
  if (!ignore_preferences && affinity && affinity->pod_anti_affinity) {
    preferred_anti_affinity_ = affinity->pod_anti_affinity->preferred;
    SortHeaviestFirst(preferred_anti_affinity_);
  }
  Rebuild();
}

void PodConstraints::Rebuild() {
  requirements_ = Requirements::FromLabels(pod_->spec.node_selector);
  const auto& affinity = pod_->spec.affinity;
  if (affinity && affinity->node_affinity) {
    const auto& required = affinity->node_affinity->required;
    if (required && required_term_ < required->size()) {
      for (const auto& r : (*required)[required_term_].match_expressions) {
        requirements_.Add(Requirement::FromNodeSelector(r));
      }
    } else if (required && !required->empty()) {
      // Every ORed term is exhausted: keep the last so the pod stays constrained.
      for (const auto& r : required->back().match_expressions) {
        requirements_.Add(Requirement::FromNodeSelector(r));
      }
    }
  }
  if (!preferred_node_.empty()) {
    for (const auto& r : preferred_node_.front().preference.match_expressions) {
      requirements_.Add(Requirement::FromNodeSelector(r));
    }
  }
  requirements_.Add(volume_requirements_);

  affinity_.clear();
  anti_affinity_.clear();
  if (affinity && affinity->pod_affinity) affinity_ = affinity->pod_affinity->required;
  if (affinity && affinity->pod_anti_affinity) {
    anti_affinity_ = affinity->pod_anti_affinity->required;
  }
  for (const auto& w : preferred_affinity_) affinity_.push_back(w.term);
  required_anti_affinity_ = anti_affinity_.size();
  for (const auto& w : preferred_anti_affinity_) anti_affinity_.push_back(w.term);

  spreads_.clear();
  for (const auto& s : pod_->spec.topology_spread_constraints) {
    if (s.when_unsatisfiable == api::UnsatisfiableConstraintAction::kScheduleAnyway &&
        schedule_anyway_relaxed_) {
      continue;
    }
    spreads_.push_back(s);
  }
}

bool PodConstraints::Relax() {
  const auto& affinity = pod_->spec.affinity;
  const auto* required = affinity && affinity->node_affinity && affinity->node_affinity->required
                             ? &*affinity->node_affinity->required
                             : nullptr;
  if (required != nullptr && required_term_ + 1 < required->size()) {
    ++required_term_;
  } else if (!preferred_affinity_.empty()) {
    preferred_affinity_.erase(preferred_affinity_.begin());
  } else if (!preferred_anti_affinity_.empty()) {
    preferred_anti_affinity_.erase(preferred_anti_affinity_.begin());
  } else if (!preferred_node_.empty()) {
    preferred_node_.erase(preferred_node_.begin());
  } else if (!schedule_anyway_relaxed_ &&
             std::any_of(spreads_.begin(), spreads_.end(), [](const auto& s) {
               return s.when_unsatisfiable == api::UnsatisfiableConstraintAction::kScheduleAnyway;
             })) {
    schedule_anyway_relaxed_ = true;
  } else {
    return false;
  }
  Rebuild();
  return true;
}

}  // namespace karpenter::scheduling
