#pragma once
// FNV-1a, 64 bits: a hash that is the same across runs, builds and platforms, unlike std::hash —
// for names and annotations that must survive restarts, and for seeded simulations (with a mix
// for draws that must be uniform).

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

// SplitMix64's finalizer: every bit of `x` moves every bit of the result. FNV-1a's high bits
// barely move between inputs that differ in their last bytes, so mix before using them.
constexpr uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform number in [0, 1) drawn from `hash`: the top 53 bits of its mix.
constexpr double UniformFromHash(uint64_t hash) {
  return static_cast<double>(SplitMix64(hash) >> 11) * 0x1.0p-53;
}

}  // namespace karpenter
