#pragma once
// The text and JSON renderings of a simulation's result (html_report.h draws the page).
//
// Text: the timeline of important events, before/after tables (nodes by instance and capacity
// type; vCPU and memory requested vs allocatable; $/hour, the expected error beside nodes and
// $/hour), the disruption figures with the pods still pending and why, how sure the forecast is
// (accuracy.h), and a one-line verdict (figures.h).
//
// JSON (times in seconds from the start):
//   {"summary": {"nodesBefore", "nodesAfter", "pricePerHourBefore", "pricePerHourAfter",
//                "nodesAfterExpectedError", "pricePerHourAfterExpectedError" (fractions),
//                "podsDisrupted", "pdbViolations", "maxPendingSeconds", "unschedulablePods", …},
//    "timeline": [{"t", "event", "subject", "detail"}],
//    "nodes": [{"name", "instanceType", "capacityType", "zone", "nodepool", "nodegroup", "pods"}],
//    "decisions": [{"t", "method", "nodes", "replacements", "savingsPerHour", "description"}],
//    "samples": [{"t", "onDemandNodes", "spotNodes", "pricePerHour", "pendingPods"}],
//    "stillPending": [{"pod", "seconds", "reason"}] (the longest-waiting, at most 20),
//    "ignored": ["Kind/namespace/name"],
//    "accuracy": {"nodesError", "pricePerHourError", "basis", "notModelled": ["sentence"]}}

#include <ostream>
#include <string>

#include "simulate/result.h"

namespace karpenter::simulate {

void RenderText(const SimulationResult& result, std::ostream& out);

// Deterministic: the same result gives the same bytes.
std::string RenderJson(const SimulationResult& result);

}  // namespace karpenter::simulate
