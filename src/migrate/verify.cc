#include "migrate/verify.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "api/condition.h"
#include "api/labels.h"
#include "aws/iam/cloudformation.h"
#include "kube/object.h"
#include "migrate/name_list.h"

namespace karpenter::migrate {

std::vector<Check> VerifyMigration(const VerifyInputs& inputs) {
  std::vector<Check> out;
  std::vector<std::string> not_done;
  for (const Step& step : inputs.plan->steps) {
    if (step.number <= 8 && step.state != StepState::kDone) {
      not_done.push_back(
          fmt::format("{} ({}: {})", step.number, step.title, fmt::join(step.details, "; ")));
    }
  }
  out.push_back({"steps 1 to 8 done", not_done.empty(),
                 not_done.empty() ? "Cluster Autoscaler at 0, node groups at their targets"
                                  : "not done: " + fmt::format("{}", fmt::join(not_done, "; "))});

  std::map<std::string, const kube::Object*, std::less<>> nodes;
  for (const kube::SharedObject& node : inputs.objects->nodes) {
    nodes[std::string(kube::Name(*node))] = node.get();
  }
  // The controller's pods, by the label the chart gives them.
  int running = 0;
  std::vector<std::string> misplaced;
  for (const kube::SharedObject& pod : inputs.objects->pods) {
    if (kube::Namespace(*pod) != inputs.namespace_ ||
        kube::Label(*pod, "app.kubernetes.io/name") != "karpenter") {
      continue;
    }
    const std::string_view node_name = kube::StringAt(*pod, {"spec", "nodeName"});
    const auto node = nodes.find(node_name);
    if (kube::StringAt(*pod, {"status", "phase"}) != "Running" || node == nodes.end() ||
        kube::Label(*node->second, kLabelNodeGroup).empty()) {
      misplaced.push_back(fmt::format("{} ({}, on {})", kube::Name(*pod),
                                      kube::StringAt(*pod, {"status", "phase"}),
                                      node_name.empty() ? "no node" : node_name));
    } else {
      ++running;
    }
  }
  out.push_back({"the controller runs on node-group nodes", running > 0 && misplaced.empty(),
                 misplaced.empty() ? fmt::format("{} pods Running", running)
                                   : "not: " + NameList(misplaced)});

  std::vector<std::string> unready;
  for (const kube::SharedObject& claim : inputs.objects->node_claims) {
    if (!kube::ConditionTrue(*claim, api::kConditionReady))
      unready.emplace_back(kube::Name(*claim));
  }
  out.push_back({"NodeClaims Ready", unready.empty(),
                 unready.empty()
                     ? fmt::format("{} NodeClaims, all Ready", inputs.objects->node_claims.size())
                     : "not Ready: " + NameList(unready)});

  int karpenter_nodes = 0;
  std::vector<std::string> unlabelled;
  for (const kube::SharedObject& node : inputs.objects->nodes) {
    if (kube::Label(*node, api::kLabelNodePool).empty()) continue;
    ++karpenter_nodes;
    if (kube::Label(*node, api::kLabelInstanceType).empty()) {
      unlabelled.emplace_back(kube::Name(*node));
    }
  }
  out.push_back({"Karpenter's nodes joined", karpenter_nodes > 0 && unlabelled.empty(),
                 unlabelled.empty() ? fmt::format("{} nodes labelled {} and {}", karpenter_nodes,
                                                  api::kLabelNodePool, api::kLabelInstanceType)
                                    : "without an instance type: " + NameList(unlabelled)});

  out.push_back({"no pod pending", inputs.cluster->pending_pods == 0,
                 fmt::format("{} pending", inputs.cluster->pending_pods)});
  // The queue, and rules sending it the events the controller acts on (the capacity reservation
  // warning matters only with reservations: not required).
  std::vector<std::string> missing;
  for (const aws::iam::InterruptionEvent& event : aws::iam::kInterruptionEvents) {
    if (event.rule == "CapacityReservationInterruptionRule") continue;
    const std::vector<std::string>& seen = inputs.aws->interruption_events;
    if (std::find(seen.begin(), seen.end(), event.detail_type) == seen.end()) {
      missing.emplace_back(event.detail_type);
    }
  }
  const std::string& name = inputs.aws->cluster.name;
  std::string detail;
  if (!inputs.aws->interruption_queue) {
    detail = fmt::format(
        "no SQS queue named {}: spot interruptions and scheduled events are not handled "
        "(karpenter iam cloudformation makes it and its rules)",
        name);
  } else if (!missing.empty()) {
    detail = fmt::format("no EventBridge rule sends queue {} these events: {}", name,
                         fmt::join(missing, ", "));
  } else {
    detail =
        fmt::format("queue {} receives {}", name, fmt::join(inputs.aws->interruption_events, ", "));
  }
  out.push_back({"interruptions reach the controller",
                 inputs.aws->interruption_queue && missing.empty(), detail});
  return out;
}

}  // namespace karpenter::migrate
