#include "simulate/preemption.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

#include "api/labels.h"

namespace karpenter::simulate {
namespace {

// Nodes whose victims are weighed for one pod: kube-scheduler weighs a sample too, and each
// costs a scheduling pass per pod of lower priority on it.
constexpr size_t kMaxCandidates = 8;

int32_t PriorityOf(const api::Pod& pod) { return pod.spec.priority.value_or(0); }

// Whether `pinned` fits where `pass` says, on the one node it is held to.
bool Fits(const api::Pod& pinned, provisioning::SchedulerInput& pass) {
  pass.pods = {&pinned};
  return !provisioning::Schedule(pass).existing.empty();
}

struct Candidate {
  size_t node;
  std::vector<const api::Pod*> victims;
  int violations;
  int32_t highest;  // the most important victim's priority
  int64_t sum;      // of the victims' priorities
};

}  // namespace

std::optional<Preemption> FindPreemption(const api::Pod& preemptor,
                                         provisioning::SchedulerInput& pass,
                                         const BudgetViolations& violations) {
  if (preemptor.spec.preemption_policy == "Never") return std::nullopt;
  const int32_t priority = PriorityOf(preemptor);
  const api::ResourceList wanted = api::SchedulingRequests(preemptor.spec);
  const std::vector<const api::Pod*> pending = std::move(pass.pods);
  api::Pod pinned = preemptor;
  // Held to the node it names, if it names one.
  const auto named = preemptor.spec.node_selector.find(std::string(api::kLabelHostname));
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < pass.existing_nodes.size() && candidates.size() < kMaxCandidates; ++i) {
    provisioning::ExistingNode& node = pass.existing_nodes[i];
    if (named != preemptor.spec.node_selector.end() && named->second != node.name) continue;
    std::vector<const api::Pod*> lower;
    std::vector<const api::Pod*> kept;
    api::ResourceList used = wanted;
    for (const api::Pod* pod : node.pods) {
      // Another preemptor's room (nominated here, not bound) is no victim; of lower priority, it
      // yields. A pod being bound here now is no victim either.
      const bool bound = !pod->spec.node_name.empty();
      if (!bound && pod->status.nominated_node_name == node.name && PriorityOf(*pod) < priority) {
        continue;
      }
      // A pod already on its way out is nobody's victim, and still holds its room.
      if (bound && PriorityOf(*pod) < priority && pod->metadata.deletion_timestamp.empty()) {
        lower.push_back(pod);
      } else {
        kept.push_back(pod);
        used += api::SchedulingRequests(pod->spec);
      }
    }
    if (lower.empty() || !used.FitsIn(node.allocatable)) continue;
    const std::vector<const api::Pod*> all = std::exchange(node.pods, kept);
    const auto requested = std::exchange(node.requested, std::nullopt);
    const auto host_ports = std::exchange(node.host_ports, std::nullopt);
    pinned.spec.node_selector[std::string(api::kLabelHostname)] = node.name;
    if (Fits(pinned, pass)) {
      // Back they come while the pod still fits: those a budget protects first, then the most
      // important.
      std::vector<std::pair<bool, const api::Pod*>> order;
      order.reserve(lower.size());
      for (const api::Pod* pod : lower) order.emplace_back(violations({pod}) > 0, pod);
      std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return std::tuple(a.first, PriorityOf(*a.second)) >
               std::tuple(b.first, PriorityOf(*b.second));
      });
      Candidate candidate{i, {}, 0, std::numeric_limits<int32_t>::min(), 0};
      for (const auto& [protected_pod, pod] : order) {
        node.pods.push_back(pod);
        if (Fits(pinned, pass)) continue;
        node.pods.pop_back();
        candidate.victims.push_back(pod);
        candidate.highest = std::max(candidate.highest, PriorityOf(*pod));
        candidate.sum += PriorityOf(*pod);
      }
      if (!candidate.victims.empty()) {
        candidate.violations = violations(candidate.victims);
        candidates.push_back(std::move(candidate));
      }
    }
    node.pods = all;
    node.requested = requested;
    node.host_ports = host_ports;
  }
  pass.pods = pending;
  if (candidates.empty()) return std::nullopt;
  const Candidate& best = *std::min_element(
      candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return std::tuple(a.violations, a.highest, a.sum, a.victims.size(), a.node) <
               std::tuple(b.violations, b.highest, b.sum, b.victims.size(), b.node);
      });
  return Preemption{pass.existing_nodes[best.node].name, best.victims};
}

}  // namespace karpenter::simulate
