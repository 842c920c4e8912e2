#include "disruption/balanced.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace karpenter::disruption {
namespace {

MoveScore Score(const Cluster& cluster, const api::NodePool& pool, double savings,
                double disruption_cost) {
  MoveScore out;
  out.node_pool = pool.metadata.name;
  out.consolidation_threshold = ConsolidationThreshold(pool);
  const PoolTotals totals = cluster.TotalsOf(pool.metadata.name);
  if (totals.cost > 0) out.savings_fraction = savings / totals.cost;
  if (totals.disruption_cost > 0) {
    out.disruption_fraction = disruption_cost / totals.disruption_cost;
  }
  if (savings > 0 && out.disruption_fraction > 0) {
    out.score = out.savings_fraction / out.disruption_fraction;
  }
  return out;
}

}  // namespace

bool ScoresMoves(const api::NodePool& pool, bool gate) {
  return gate && pool.spec.disruption.consolidation_policy == api::ConsolidationPolicy::kBalanced;
}

int32_t ConsolidationThreshold(const api::NodePool& pool) {
  return pool.spec.disruption.consolidation_threshold.value_or(api::kDefaultConsolidationThreshold);
}

std::string MoveScore::Describe() const {
  return fmt::format(
      "score {:.2f} {} threshold {:.2f} (consolidationThreshold: {}, savings {:.1f}%, "
      "disruption {:.1f}%)",
      score, approved() ? ">=" : "<", threshold(), consolidation_threshold, 100 * savings_fraction,
      100 * disruption_fraction);
}

std::vector<MoveScore> ScoreMove(const Cluster& cluster, const Command& command, bool gate) {
  double deleted_price = 0;
  struct Share {
    const api::NodePool* pool = nullptr;
    double price = 0;
    double disruption_cost = 0;
  };
  std::map<std::string_view, Share> shares;
  for (size_t index : command.candidates) {
    const Candidate& candidate = cluster.candidates[index];
    deleted_price += candidate.price_per_hour;
    if (!ScoresMoves(*candidate.node_pool, gate)) continue;
    Share& share = shares[candidate.node_pool->metadata.name];
    share.pool = candidate.node_pool;
    share.price += candidate.price_per_hour;
    share.disruption_cost += candidate.node_disruption_cost;
  }
  std::vector<MoveScore> scores;
  for (const auto& [name, share] : shares) {
    const double savings =
        deleted_price > 0 ? command.savings_per_hour * share.price / deleted_price : 0;
    scores.push_back(Score(cluster, *share.pool, savings, share.disruption_cost));
  }
  return scores;
}

bool AllApproved(const std::vector<MoveScore>& scores) {
  return std::all_of(scores.begin(), scores.end(),
                     [](const MoveScore& score) { return score.approved(); });
}

MoveScore DeleteScore(const Cluster& cluster, const Candidate& candidate) {
  return Score(cluster, *candidate.node_pool, candidate.price_per_hour,
               candidate.node_disruption_cost);
}

}  // namespace karpenter::disruption
