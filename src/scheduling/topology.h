#pragma once
// Topology spread, pod affinity and pod anti-affinity (upstream-reference §8). Pods with equal
// constraints share one TopologyGroup that counts the pods its selector matches per domain (a value
// of the topology key: a zone, a hostname, …). For a candidate node or planned NodeClaim, Narrow()
// picks the domains the pod may take; Record() counts the pod once placed.
//
// Every candidate is its own hostname domain, so hostname-keyed groups count by candidate index in
// a flat vector: the check that rejects most candidates for spread and anti-affinity pods costs an
// array read, not a string lookup.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/pod.h"
#include "common/result.h"
#include "scheduling/pod_constraints.h"
#include "scheduling/requirements.h"

namespace karpenter::scheduling {

// Lets unordered containers keyed by std::string be searched with a std::string_view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};
using DomainCounts = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;
using DomainSet = std::unordered_set<std::string, StringHash, std::equal_to<>>;

enum class TopologyType { kSpread, kAffinity, kAntiAffinity };

// A domain of a topology key (other than hostname) and the taints of each NodePool or node that
// offers it, for spreads whose nodeTaintsPolicy is Honor.
struct TopologyDomain {
  std::string value;
  std::vector<const std::vector<api::Taint>*> taints;
};
using TopologyUniverse = std::map<std::string, std::vector<TopologyDomain>, std::less<>>;

struct TopologyGroup {
  TopologyType type = TopologyType::kSpread;
  std::string key;
  bool by_hostname = false;  // key is kubernetes.io/hostname: domains are candidates
  std::optional<api::LabelSelector> selector;  // nullopt selects nothing
  bool all_namespaces = false;
  std::vector<std::string> namespaces;
  std::optional<api::LabelSelector> namespace_selector;
  int32_t max_skew = 1;
  int32_t min_domains = 0;
  bool honor_node_affinity = true;
  bool honor_taints = false;

  DomainCounts counts;                    // matching pods per domain (other keys)
  std::vector<int32_t> candidate_counts;  // matching pods per candidate (hostname key)
  int64_t total = 0;
  DomainSet owner_domains;             // anti-affinity: where its owners run
  std::vector<char> owner_candidates;  // the same, per candidate (hostname key)

  bool Selects(const api::Pod& pod) const;
  int32_t CountOn(int candidate) const;
  bool OwnerOn(int candidate) const;
};

// The topology constraints in force for one pod in one attempt.
struct PodTopology {
  std::vector<int> groups;       // groups the pod owns
  std::vector<char> self;        // per owned group: its selector matches the pod itself
  std::vector<int> selected_by;  // required anti-affinity groups of placed pods that match it
  std::vector<int> required_anti_affinity;  // owned groups from required anti-affinity terms
  bool empty() const { return groups.empty() && selected_by.empty(); }
};

// A pod and the candidate (node or planned NodeClaim, by id) it is on.
struct PlacedPod {
  const api::Pod* pod;
  int candidate;
};

class Topology {
 public:
  // Returns the requirements of a candidate (node or planned NodeClaim) by its id.
  using CandidateRequirements = std::function<const Requirements&(int candidate)>;

  Topology(TopologyUniverse universe, CandidateRequirements candidate_requirements);

  // The groups the pod's current constraints own (created and counted on first use), and the
  // anti-affinity groups that select it.
  PodTopology ForPod(const PodConstraints& pod);

  // What Narrow decided for one candidate.
  struct Narrowed {
    bool admitted = false;
    // When admitted: one `In` requirement per constrained key, for the caller to add.
    Requirements pins;
    // When rejected and asked to explain: which constraint failed.
    std::string why;
  };

  // Decides which domains the pod may take on candidate `candidate` whose requirements are `where`
  // (a node's labels when `fixed`, else a planned NodeClaim's). `where` itself is never copied, and
  // the reason for a rejection is built only when `explain` asks for it: rejecting candidates is
  // the scheduler's hot path.
  Narrowed Narrow(const PodConstraints& pod, const PodTopology& topology, int candidate,
                  const Requirements& where, bool fixed, bool explain = false) const;

  // The cheap part of Narrow(): false when a hostname-keyed constraint rejects the candidate.
  bool HostnameAdmits(const PodTopology& topology, int candidate) const {
    return HostnameConflict(topology, candidate) == nullptr;
  }

  // Counts a placed pod on `candidate`; its required anti-affinity groups start excluding the pods
  // they select from the candidate's domains.
  void Record(const api::Pod& pod, int candidate, const std::vector<int>& required_anti_affinity);
  // Pods already on existing candidates that own no required anti-affinity, counted as Record()
  // would count them, but by each group only when it is created: a pass whose pods need no group
  // never reads them, and consolidation runs hundreds of passes over the same thousands of pods.
  // The candidates `left_out` marks (none when empty) are skipped. Call once, before any group is
  // created; both vectors must outlive the topology.
  void AddPlacedBefore(const std::vector<PlacedPod>& pods, const std::vector<bool>& left_out);

 private:
  int Intern(TopologyGroup group, std::string signature);
  // What rejects the candidate among hostname-keyed constraints, or nullptr.
  const char* HostnameConflict(const PodTopology& topology, int candidate) const;
  void Count(TopologyGroup& group, const api::Pod& pod, int candidate);
  void Domains(const std::string& key, const Requirements& where, const Requirements& own,
               const Requirements& pins, bool fixed, std::vector<std::string_view>& out) const;

  TopologyUniverse universe_;
  CandidateRequirements candidate_requirements_;
  std::vector<TopologyGroup> groups_;
  std::unordered_map<std::string, int> by_signature_;
  std::vector<int> anti_affinity_groups_;
  std::vector<PlacedPod> placements_;
  const std::vector<PlacedPod>* placed_before_ = nullptr;
  const std::vector<bool>* left_out_ = nullptr;
};

}  // namespace karpenter::scheduling
