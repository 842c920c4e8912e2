#include "simulate/inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "api/manifest.h"
#include "common/document.h"
#include "kube/object.h"

namespace karpenter::simulate {
namespace {

// Fields of a cluster snapshot that nothing in the simulation reads (api/ decodes none of them),
// the bulk of what `kubectl get -o json` prints: left out as the text is parsed, so 50,000 pods
// are never held with their probes, environments and container statuses.
bool Unread(std::string_view parent, std::string_view key) {
  static constexpr std::array<std::string_view, 19> kContainer = {"args",
                                                                  "command",
                                                                  "env",
                                                                  "envFrom",
                                                                  "imagePullPolicy",
                                                                  "lifecycle",
                                                                  "livenessProbe",
                                                                  "readinessProbe",
                                                                  "resizePolicy",
                                                                  "securityContext",
                                                                  "startupProbe",
                                                                  "stdin",
                                                                  "stdinOnce",
                                                                  "terminationMessagePath",
                                                                  "terminationMessagePolicy",
                                                                  "tty",
                                                                  "volumeDevices",
                                                                  "volumeMounts",
                                                                  "workingDir"};
  // Pods' and Nodes' statuses: what the kubelet reports beyond phase, conditions, capacity.
  static constexpr std::array<std::string_view, 12> kStatus = {"containerStatuses",
                                                               "daemonEndpoints",
                                                               "ephemeralContainerStatuses",
                                                               "hostIP",
                                                               "hostIPs",
                                                               "images",
                                                               "initContainerStatuses",
                                                               "nodeInfo",
                                                               "podIP",
                                                               "podIPs",
                                                               "volumesAttached",
                                                               "volumesInUse"};
  // Volume sources other than claims: they take nothing a scheduler counts.
  static constexpr std::array<std::string_view, 4> kVolume = {"configMap", "downwardAPI",
                                                              "projected", "secret"};
  if (parent == "metadata") return key == "managedFields";
  if (parent == "annotations") return key == "kubectl.kubernetes.io/last-applied-configuration";
  if (parent == "containers" || parent == "initContainers" || parent == "ephemeralContainers") {
    return std::ranges::find(kContainer, key) != kContainer.end();
  }
  if (parent == "status") return std::ranges::find(kStatus, key) != kStatus.end();
  if (parent == "volumes") return std::ranges::find(kVolume, key) != kVolume.end();
  return false;
}

// Decodes `object` with `karpenter validate`'s rules and files it (`where` names it in errors).
void AddObject(Json object, const std::string& where, SimulationInput& input,
               std::vector<std::string>& errors) {
  api::DecodeOutcome outcome = api::DecodeObject(object, where);
  if (!outcome.errors.empty()) {
    errors.insert(errors.end(), outcome.errors.begin(), outcome.errors.end());
    return;
  }
  const std::string kind = object.is_object() ? object.value("kind", "") : "";
  // Namespaces and PriorityClasses are not part of a plan, but a simulation stores them (its API
  // server gives pods their class's priority, which its kube-scheduler preempts by).
  if (!outcome.manifest.ignored.empty() && kind != "Namespace" && kind != "PriorityClass") {
    input.ignored.insert(input.ignored.end(), outcome.manifest.ignored.begin(),
                         outcome.manifest.ignored.end());
    return;
  }
  input.objects.push_back(std::move(object));
}

}  // namespace

void AddManifests(std::string_view text, std::string_view source, SimulationInput& input,
                  std::vector<std::string>& errors) {
  Result<std::vector<Document>> documents = ParseDocuments(text, source, Unread);
  if (!documents.ok()) {
    errors.push_back(documents.error().message);
    return;
  }
  for (Document& document : *documents) {
    AddObject(std::move(document.value), fmt::format("{}:{}", source, document.line), input,
              errors);
  }
}

void AddObjects(std::vector<Json> objects, std::string_view source, SimulationInput& input,
                std::vector<std::string>& errors) {
  for (Json& object : objects) {
    const std::string where =
        fmt::format("{} {} {}", source, kube::StringAt(object, {"kind"}), kube::Key(object));
    AddObject(std::move(object), where, input, errors);
  }
}

}  // namespace karpenter::simulate
