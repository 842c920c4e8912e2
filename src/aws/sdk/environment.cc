#include "aws/sdk/environment.h"

#include <unistd.h>

namespace karpenter::aws {

Environment Environment::OfProcess() {
  std::map<std::string, std::string, std::less<>> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals != std::string_view::npos) {
      variables.emplace(text.substr(0, equals), text.substr(equals + 1));
    }
  }
  return Environment(std::move(variables));
}

std::string_view Environment::Get(std::string_view name) const {
  const auto found = variables_.find(name);
  return found == variables_.end() ? std::string_view() : std::string_view(found->second);
}

}  // namespace karpenter::aws
