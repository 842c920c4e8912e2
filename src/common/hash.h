#pragma once
// FNV-1a, 64 bits: a hash that is the same across runs, builds and platforms, unlike std::hash —
// for names and annotations that must survive restarts, and for seeded simulations.

#include <cstdint>
#include <string_view>

namespace karpenter {

inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;

// The hash of `bytes`, or of what was hashed into `hash` followed by `bytes`.
constexpr uint64_t Fnv1a64(std::string_view bytes, uint64_t hash = kFnv1a64Offset) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace karpenter
