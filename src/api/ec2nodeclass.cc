#include "api/ec2nodeclass.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace karpenter::api {
std::optional<std::string_view> AmiFamilyOfAlias(std::string_view alias_family) {
  // Alias families ("al2023@latest", "bottlerocket@v1.20.0") and the amiFamily each stands for.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kAliasFamilies = {{
      {"al2", "AL2"},
      {"al2023", "AL2023"},
      {"bottlerocket", "Bottlerocket"},
      {"windows2019", "Windows2019"},
      {"windows2022", "Windows2022"},
      {"windows2025", "Windows2025"},
  }};
  for (const auto& [name, ami_family] : kAliasFamilies) {
    if (name == alias_family) return ami_family;
  }
  return std::nullopt;
}

std::string EC2NodeClass::EffectiveAmiFamily() const {
  for (const AmiSelectorTerm& term : spec.ami_selector_terms) {
    if (term.alias.empty()) continue;
    const std::string_view alias = term.alias;
    if (auto family = AmiFamilyOfAlias(alias.substr(0, alias.find('@')))) {
      return std::string(*family);
    }
  }
  return spec.ami_family;
}

}  // namespace karpenter::api
