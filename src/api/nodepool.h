#pragma once
// karpenter.sh/v1 NodePool: a template for NodeClaims, its disruption policy and its limits.

#include <optional>
#include <string>
#include <vector>

#include "api/condition.h"
#include "api/nodeclaim.h"
#include "api/object_meta.h"
#include "api/resource_list.h"
#include "common/duration.h"

namespace karpenter::api {

enum class ConsolidationPolicy { kWhenEmptyOrUnderutilized, kWhenEmpty };
enum class DisruptionReason { kUnderutilized, kEmpty, kDrifted };

struct Budget {
  std::string nodes = "10%";              // a count ("5") or a percentage ("10%")
  std::vector<DisruptionReason> reasons;  // empty: every reason
  std::string schedule;                   // cron, UTC; empty: always active
  std::optional<Duration> duration;
};

struct Disruption {
  ConsolidationPolicy consolidation_policy = ConsolidationPolicy::kWhenEmptyOrUnderutilized;
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
  } spec;
  struct Status {
    ResourceList resources;
    int64_t nodes = 0;
    std::vector<Condition> conditions;
  } status;
};

}  // namespace karpenter::api
