#include "api/ec2nodeclass.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace karpenter::api {
namespace {

// Alias families ("al2023@latest", "bottlerocket@v1.20.0") and the amiFamily each stands for.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kAliasFamilies = {{
    {"al2", "AL2"},
    {"al2023", "AL2023"},
    {"bottlerocket", "Bottlerocket"},
    {"windows2019", "Windows2019"},
    {"windows2022", "Windows2022"},
    {"windows2025", "Windows2025"},
}};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::string EC2NodeClass::EffectiveAmiFamily() const {
  for (const AmiSelectorTerm& term : spec.ami_selector_terms) {
    if (term.alias.empty()) continue;
    const std::string_view alias = term.alias;
    const std::string_view family = alias.substr(0, alias.find('@'));
    for (const auto& [name, ami_family] : kAliasFamilies) {
      if (EqualsIgnoreCase(family, name)) return std::string(ami_family);
    }
  }
  return spec.ami_family;
}

}  // namespace karpenter::api
