#pragma once
// The HTML report of `karpenter simulate`: one self-contained UTF-8 page (inline CSS and SVG, no
// scripts, fonts or network) with a one-line verdict, the summary figures, step charts over time
// (nodes by capacity type, $/hour, pending pods) and tables of the cluster before and after, the
// final nodes, the disruption decisions, the timeline and the ignored input objects. Every string
// from the result is HTML-escaped; the output depends only on the result (no "now").

#include <string>

#include "simulate/result.h"

namespace karpenter::simulate {

std::string RenderHtml(const SimulationResult& result);

}  // namespace karpenter::simulate
