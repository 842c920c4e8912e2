#include "simulate/inputs.h"

#include <fmt/format.h>

#include <utility>

#include "api/manifest.h"
#include "common/document.h"

namespace karpenter::simulate {

void AddManifests(std::string_view text, std::string_view source, SimulationInput& input,
                  std::vector<std::string>& errors) {
  Result<std::vector<Document>> documents = ParseDocuments(text, source);
  if (!documents.ok()) {
    errors.push_back(documents.error().message);
    return;
  }
  for (Document& document : *documents) {
    const std::string where = fmt::format("{}:{}", source, document.line);
    api::DecodeOutcome outcome = api::DecodeObject(document.value, where);
    if (!outcome.errors.empty()) {
      errors.insert(errors.end(), outcome.errors.begin(), outcome.errors.end());
      continue;
    }
    const std::string kind = document.value.is_object() ? document.value.value("kind", "") : "";
    // Namespaces are not part of a plan, but a simulation stores them.
    if (!outcome.manifest.ignored.empty() && kind != "Namespace") {
      input.ignored.insert(input.ignored.end(), outcome.manifest.ignored.begin(),
                           outcome.manifest.ignored.end());
      continue;
    }
    input.objects.push_back(std::move(document.value));
  }
}

}  // namespace karpenter::simulate
