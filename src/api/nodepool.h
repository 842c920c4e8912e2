#pragma once
// karpenter.sh/v1 NodePool: a template for NodeClaims, its disruption policy and its limits.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/condition.h"
#include "api/nodeclaim.h"
#include "api/object_meta.h"
#include "api/resource_list.h"
#include "common/duration.h"

namespace karpenter::api {

// Balanced (behind the BalancedConsolidation gate) consolidates only when a move's share of its
// NodePool's cost saved is at least 1/consolidationThreshold of its share of the NodePool's
// disruption (docs/upstream-reference.md §10).
enum class ConsolidationPolicy { kWhenEmptyOrUnderutilized, kWhenEmpty, kBalanced };

inline constexpr int32_t kDefaultConsolidationThreshold = 2;
inline constexpr int32_t kMinConsolidationThreshold = 1;
inline constexpr int32_t kMaxConsolidationThreshold = 3;
enum class DisruptionReason { kUnderutilized, kEmpty, kDrifted };

struct Budget {
  std::string nodes = "10%";              // a count ("5") or a percentage ("10%")
  std::vector<DisruptionReason> reasons;  // empty: every reason
  std::string schedule;                   // cron, UTC; empty: always active
  std::optional<Duration> duration;
};

struct Disruption {
  ConsolidationPolicy consolidation_policy = ConsolidationPolicy::kWhenEmptyOrUnderutilized;
  // Balanced's k; only with Balanced (unset: kDefaultConsolidationThreshold).
  std::optional<int32_t> consolidation_threshold;
  Duration consolidate_after;  // default 0s
  std::vector<Budget> budgets;
};

struct NodeClaimTemplate {
  struct Metadata {
    Labels labels;
    Labels annotations;
  } metadata;
  NodeClaimSpec spec;
};

struct NodePool {
  ObjectMeta metadata;
  struct Spec {
    NodeClaimTemplate template_;
    Disruption disruption;
    ResourceList limits;
    // The resources spec.limits names, zero-valued ones included (`cpu: 0` stops a NodePool from
    // launching anything); empty: unlimited.
    std::vector<std::string> limited_resources;
    std::optional<int32_t> weight;
    // Static capacity (the StaticCapacity gate): keep exactly this many nodes whatever the pods;
    // such a pool takes no pending pods' new NodeClaims, is never consolidated, and counts only
    // limits.nodes (docs/upstream-reference.md §16). Unset: the pool scales with its pods.
    std::optional<int64_t> replicas;
  } spec;
  struct Status {
    ResourceList resources;
    int64_t nodes = 0;
    std::vector<Condition> conditions;
  } status;
};

inline bool IsStatic(const NodePool& pool) { return pool.spec.replicas.has_value(); }

}  // namespace karpenter::api
