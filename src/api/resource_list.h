#pragma once
// A set of resource amounts (requests, capacity, allocatable). cpu, memory, pods and
// ephemeral-storage have fixed slots because every hot path touches them; extended resources
// (nvidia.com/gpu, vpc.amazonaws.com/pod-eni, …) live in a small sorted vector.

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/quantity.h"

namespace karpenter::api {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";

class ResourceList {
 public:
  Quantity Get(std::string_view name) const;  // zero when absent
  // Setting an extended resource to zero removes it, so equal amounts compare equal.
  void Set(std::string_view name, Quantity value);
  void Add(std::string_view name, Quantity value) { Set(name, Get(name) + value); }

  Quantity cpu() const { return core_[kCpu]; }
  Quantity memory() const { return core_[kMemory]; }
  Quantity pods() const { return core_[kPods]; }
  Quantity ephemeral_storage() const { return core_[kEphemeral]; }

  ResourceList& operator+=(const ResourceList& other);
  ResourceList& operator-=(const ResourceList& other);
  friend ResourceList operator+(ResourceList a, const ResourceList& b) { return a += b; }
  friend ResourceList operator-(ResourceList a, const ResourceList& b) { return a -= b; }
  bool operator==(const ResourceList&) const = default;

  // Element-wise maximum (the effective-request rule for init containers).
  void MaxWith(const ResourceList& other);
  // True when every amount named here is <= the same amount in `capacity` (missing means zero).
  // Zero amounts are not named: they fit even where `capacity` is negative (over-committed).
  bool FitsIn(const ResourceList& capacity) const;
  // The names of resources that exceed `capacity` (core first, then extended by name), for error
  // messages.
  std::vector<std::string> Exceeding(const ResourceList& capacity) const;
  bool empty() const;

  // Calls fn(name, quantity) for every non-zero entry, core resources first, then extended by name.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (size_t i = 0; i < core_.size(); ++i) {
      if (!core_[i].is_zero()) fn(std::string_view{kCoreNames[i]}, core_[i]);
    }
    for (const auto& [name, value] : extended_) {
      if (!value.is_zero()) fn(std::string_view{name}, value);
    }
  }

 private:
  enum Slot : size_t { kCpu, kMemory, kPods, kEphemeral };
  static constexpr std::array<std::string_view, 4> kCoreNames = {
      kResourceCpu, kResourceMemory, kResourcePods, kResourceEphemeralStorage};
  static int CoreSlot(std::string_view name);

  std::array<Quantity, 4> core_{};
  std::vector<std::pair<std::string, Quantity>> extended_;  // sorted by name
};

}  // namespace karpenter::api
