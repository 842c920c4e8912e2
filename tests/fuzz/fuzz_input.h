#pragma once
// What the libFuzzer targets of this folder share: the input as text, and splitting it into a
// selector byte and the rest. Built only with -DKARPENTER_FUZZ=ON (scripts/fuzz).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace karpenter::fuzz {

inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The first byte chooses among `choices` what the rest is fed to; an empty input chooses 0.
struct Selected {
  size_t choice = 0;
  std::string_view rest;
};

inline Selected Select(std::string_view text, size_t choices) {
  if (text.empty()) return {};
  return {static_cast<unsigned char>(text.front()) % choices, text.substr(1)};
}

// A property of what was parsed that must hold: a crash libFuzzer reports, with the input.
inline void Check(bool property) {
  if (!property) std::abort();
}

}  // namespace karpenter::fuzz
