#pragma once
// Topology spread, pod affinity and pod anti-affinity (reference §8). Pods with equal constraints
// share one TopologyGroup that counts the pods its selector matches per domain (a value of the
// topology key: a zone, a hostname, …). For a candidate node or planned NodeClaim, Narrow() picks
// the domain the pod may take and pins the candidate's requirements to it; Record() counts the pod
// once placed.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/pod.h"
#include "common/result.h"
#include "scheduling/pod_constraints.h"
#include "scheduling/requirements.h"

namespace karpenter::scheduling {

enum class TopologyType { kSpread, kAffinity, kAntiAffinity };

struct TopologyGroup {
  TopologyType type = TopologyType::kSpread;
  std::string key;
  std::optional<api::LabelSelector> selector;  // nullopt selects nothing
  bool all_namespaces = false;
  std::vector<std::string> namespaces;
  std::optional<api::LabelSelector> namespace_selector;
  int32_t max_skew = 1;
  int32_t min_domains = 0;
  bool honor_node_affinity = true;

  std::unordered_map<std::string, int32_t> counts;  // matching pods per domain
  int64_t total = 0;
  std::unordered_set<std::string> owner_domains;  // anti-affinity: where its owners run

  bool Selects(const api::Pod& pod) const;
};

class Topology {
 public:
  // Returns the requirements of a candidate (node or planned NodeClaim) by its id.
  using CandidateRequirements = std::function<const Requirements&(int candidate)>;

  Topology(std::map<std::string, std::vector<std::string>, std::less<>> universe,
           CandidateRequirements candidate_requirements);

  // The groups the pod's current constraints own (created and counted on first use).
  std::vector<int> GroupsFor(const PodConstraints& pod);

  // Pins `where` (the candidate's requirements intersected with the pod's) to domains that keep
  // every constraint of the pod and every anti-affinity of placed pods. `fixed` candidates are
  // existing nodes whose labels cannot change.
  Status Narrow(const PodConstraints& pod, const std::vector<int>& groups, Requirements& where,
                bool fixed) const;

  // Counts a placed pod on candidate `candidate`; `groups` are the groups the pod owns.
  void Record(const api::Pod& pod, int candidate, const std::vector<int>& groups);

  // True when some constraint involves the pod (it owns a group or an anti-affinity selects it).
  bool Involves(const api::Pod& pod, const std::vector<int>& groups) const;

 private:
  int Intern(TopologyGroup group, std::string signature);
  std::vector<std::string> Domains(std::string_view key, const Requirements& where,
                                   bool fixed) const;
  static std::optional<std::string> DomainOf(const Requirements& where, const std::string& key);

  std::map<std::string, std::vector<std::string>, std::less<>> universe_;
  CandidateRequirements candidate_requirements_;
  std::vector<TopologyGroup> groups_;
  std::unordered_map<std::string, int> by_signature_;
  std::vector<int> anti_affinity_groups_;
  struct Placement {
    const api::Pod* pod;
    int candidate;
  };
  std::vector<Placement> placements_;
};

}  // namespace karpenter::scheduling
