#include "aws/sdk/environment.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

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
  if (found == variables_.end()) return {};
  return found->second;
}

std::string_view Environment::Region() const {
  const std::string_view region = Get("AWS_REGION");
  return region.empty() ? Get("AWS_DEFAULT_REGION") : region;
}

bool Environment::IsTrue(std::string_view name) const {
  return std::ranges::equal(Get(name), std::string_view("true"), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

}  // namespace karpenter::aws
