#pragma once
// How sure a forecast is: the error `karpenter-bench fidelity` measured between `karpenter
// simulate` and the controller on a real API server (README, "Fidelity"), and what the simulation
// stands in for or leaves out for the input at hand. The reports print both next to the figures,
// so that a team deciding on a migration knows how far to trust them.

#include "simulate/result.h"
#include "simulate/simulation.h"

namespace karpenter::simulate {

// The measured error, and what `input` (before it is simulated) calls to mind.
Accuracy AccuracyFor(const SimulationInput& input);

}  // namespace karpenter::simulate
