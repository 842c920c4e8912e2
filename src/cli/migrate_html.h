#pragma once
// `karpenter migrate plan -o html`: the plan as one self-contained page (inline CSS, no scripts,
// fonts or network) to attach to a change request — the cluster, the forecast's figures, the nine
// steps with their states, the warnings, the node groups, the IAM roles, the NodePools that take
// over, and the chart's values and the manifests. Every string from the account or the cluster is
// HTML-escaped.

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "migrate/artifacts.h"
#include "migrate/inventory.h"
#include "migrate/node_pools.h"
#include "migrate/steps.h"
#include "simulate/result.h"

namespace karpenter::cli {

struct PlanPage {
  const migrate::AwsInventory* aws = nullptr;
  const migrate::MigrationPlan* plan = nullptr;
  const migrate::DerivedNodePools* derived = nullptr;
  // Absent when --forecast 0; an error when it could not run.
  const std::optional<Result<simulate::SimulationResult>>* forecast = nullptr;
  const std::vector<std::string>* forecast_notes = nullptr;
  const std::vector<migrate::RoleArtifact>* roles = nullptr;  // step 2's
  const Json* chart_values = nullptr;                         // step 5's
};

std::string RenderPlanHtml(const PlanPage& page);

}  // namespace karpenter::cli
