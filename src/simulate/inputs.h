#pragma once
// Reading a simulation's objects: manifests (YAML or JSON, one or many documents) or a cluster
// snapshot as `kubectl get nodes,pods,pdb,ds,deploy,sts,rs,jobs -A -o json` prints it (a List).

#include <string>
#include <string_view>
#include <vector>

#include "simulate/simulation.h"

namespace karpenter::simulate {

// Decodes every document of `text` with the rules `karpenter validate` applies and appends the
// valid objects to input.objects, objects of kinds not simulated to input.ignored, and every
// problem (naming `source`, the line, the object and the field) to `errors`.
void AddManifests(std::string_view text, std::string_view source, SimulationInput& input,
                  std::vector<std::string>& errors);
// The same for objects read from an API server; errors name `source`, the kind and the object.
void AddObjects(std::vector<Json> objects, std::string_view source, SimulationInput& input,
                std::vector<std::string>& errors);

}  // namespace karpenter::simulate
