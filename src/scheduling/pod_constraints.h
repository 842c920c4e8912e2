#pragma once
// What the scheduler needs of one pending pod, computed once: effective requests, host ports, node
// requirements, and the affinity/spread terms currently in force. Preferences start as required
// and are relaxed one step at a time (upstream-reference §8) when the pod does not fit.

#include <string>
#include <vector>

#include "api/pod.h"
#include "scheduling/host_ports.h"
#include "scheduling/requirements.h"

namespace karpenter::scheduling {

class PodConstraints {
 public:
  // With `ignore_preferences` (PREFERENCE_POLICY=Ignore), the pod's preferred affinities and
  // ScheduleAnyway spreads are left out from the start.
  PodConstraints(const api::Pod& pod, Requirements volume_requirements,
                 bool ignore_preferences = false);

  const api::Pod& pod() const { return *pod_; }
  const api::ResourceList& requests() const { return requests_; }
  const std::vector<HostPort>& host_ports() const { return host_ports_; }
  const Requirements& requirements() const { return requirements_; }
  // Required terms plus the preferred ones not yet relaxed.
  const std::vector<api::PodAffinityTerm>& affinity() const { return affinity_; }
  const std::vector<api::PodAffinityTerm>& anti_affinity() const { return anti_affinity_; }
  // How many leading terms of anti_affinity() are required (the rest are preferences). Only
  // required anti-affinity keeps other pods away once this pod runs.
  size_t required_anti_affinity() const { return required_anti_affinity_; }
  const std::vector<api::TopologySpreadConstraint>& spreads() const { return spreads_; }

  // Drops one preference, in upstream's order: an ORed required node-affinity term, the heaviest
  // preferred pod affinity term, the heaviest preferred anti-affinity term, the heaviest preferred
  // node-affinity term, then every ScheduleAnyway spread. Returns false when nothing is left to
  // relax.
  bool Relax();

 private:
  void Rebuild();

  const api::Pod* pod_;
  api::ResourceList requests_;
  std::vector<HostPort> host_ports_;
  Requirements volume_requirements_;
  Requirements requirements_;

  size_t required_term_ = 0;
  std::vector<api::PreferredSchedulingTerm> preferred_node_;      // heaviest first
  std::vector<api::WeightedPodAffinityTerm> preferred_affinity_;  // heaviest first
  std::vector<api::WeightedPodAffinityTerm> preferred_anti_affinity_;
  bool schedule_anyway_relaxed_ = false;

  std::vector<api::PodAffinityTerm> affinity_;
  std::vector<api::PodAffinityTerm> anti_affinity_;
  size_t required_anti_affinity_ = 0;
  std::vector<api::TopologySpreadConstraint> spreads_;
};

}  // namespace karpenter::scheduling
