#pragma once
// Balanced consolidation (the BalancedConsolidation gate; docs/upstream-reference.md §10): a move
// — the candidates it deletes and the replacement it launches — is scored for each NodePool it
// takes nodes from, as the share of that NodePool's cost it saves over the share of that
// NodePool's disruption it causes. It goes ahead only when every Balanced NodePool's score is at
// least 1/consolidationThreshold: at the default 2, a move may cost twice the share of disruption
// it saves of cost. Empty nodes always pass; a replacement by one of the same price never does.

#include <cstdint>
#include <string>
#include <vector>

#include "api/nodepool.h"
#include "disruption/cluster.h"
#include "disruption/command.h"

namespace karpenter::disruption {

// Whether `pool` consolidates the Balanced way now (its policy, and the gate on).
bool ScoresMoves(const api::NodePool& pool, bool gate);
// The NodePool's k (consolidationThreshold, default 2).
int32_t ConsolidationThreshold(const api::NodePool& pool);

struct MoveScore {
  std::string node_pool;
  int32_t consolidation_threshold = api::kDefaultConsolidationThreshold;
  double savings_fraction = 0;     // of the NodePool's cost
  double disruption_fraction = 0;  // of the NodePool's disruption cost
  double score = 0;                // their ratio; 0 when nothing is saved

  double threshold() const { return 1.0 / consolidation_threshold; }
  bool approved() const { return score >= threshold(); }
  // "score 0.42 < threshold 0.50 (consolidationThreshold: 2, savings 4.2%, disruption 10.0%)"
  std::string Describe() const;
};

// The scores of `command`, one per Balanced NodePool it takes candidates from (none when no such
// NodePool; `gate` off: none). A NodePool's share of the savings is its share of what the
// deleted candidates cost.
std::vector<MoveScore> ScoreMove(const Cluster& cluster, const Command& command, bool gate);
bool AllApproved(const std::vector<MoveScore>& scores);

// The best score deleting `candidate` alone could reach (a replacement saves less): below the
// threshold, nothing consolidation could do with it would pass.
MoveScore DeleteScore(const Cluster& cluster, const Candidate& candidate);

}  // namespace karpenter::disruption
