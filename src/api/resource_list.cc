#include "api/resource_list.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace karpenter::api {
namespace {

using Entry = std::pair<std::string, Quantity>;
using Extended = std::vector<Entry>;

Extended::const_iterator Find(const Extended& entries, std::string_view name) {
  return std::lower_bound(
      entries.begin(), entries.end(), name,
      [](const Entry& entry, std::string_view key) { return entry.first < key; });
}

// Walks two name-sorted lists in step, calling fn(name, mine, theirs) for every name in either;
// a name missing from one side is zero there.
template <class Fn>
void Merge(const Extended& mine, const Extended& theirs, Fn&& fn) {
  auto a = mine.begin();
  auto b = theirs.begin();
  while (a != mine.end() || b != theirs.end()) {
    if (b == theirs.end() || (a != mine.end() && a->first < b->first)) {
      fn(a->first, a->second, Quantity());
      ++a;
    } else if (a == mine.end() || b->first < a->first) {
      fn(b->first, Quantity(), b->second);
      ++b;
    } else {
      fn(a->first, a->second, b->second);
      ++a;
      ++b;
    }
  }
}

// Combines two lists element-wise into a new sorted list, leaving zero results out.
template <class Op>
Extended Combine(const Extended& mine, const Extended& theirs, Op&& op) {
  Extended out;
  out.reserve(std::max(mine.size(), theirs.size()));
  Merge(mine, theirs, [&](const std::string& name, Quantity a, Quantity b) {
    const Quantity result = op(a, b);
    if (!result.is_zero()) out.emplace_back(name, result);
  });
  return out;
}

}  // namespace

int ResourceList::CoreSlot(std::string_view name) {
  for (size_t i = 0; i < kCoreNames.size(); ++i) {
    if (kCoreNames[i] == name) return static_cast<int>(i);
  }
  return -1;
}

Quantity ResourceList::Get(std::string_view name) const {
  if (const int slot = CoreSlot(name); slot >= 0) return core_[static_cast<size_t>(slot)];
  const auto it = Find(extended_, name);
  return it != extended_.end() && it->first == name ? it->second : Quantity();
}

// Extended entries are kept only while non-zero, so equal lists compare equal however they were
// built.
void ResourceList::Set(std::string_view name, Quantity value) {
  if (const int slot = CoreSlot(name); slot >= 0) {
    core_[static_cast<size_t>(slot)] = value;
    return;
  }
  const auto offset = Find(extended_, name) - extended_.begin();
  const auto it = extended_.begin() + offset;
  const bool present = it != extended_.end() && it->first == name;
  if (value.is_zero()) {
    if (present) extended_.erase(it);
  } else if (present) {
    it->second = value;
  } else {
    extended_.emplace(it, std::string(name), value);
  }
}

ResourceList& ResourceList::operator+=(const ResourceList& other) {
  for (size_t i = 0; i < core_.size(); ++i) core_[i] += other.core_[i];
  if (!other.extended_.empty()) {
    extended_ = Combine(extended_, other.extended_, [](Quantity a, Quantity b) { return a + b; });
  }
  return *this;
}

ResourceList& ResourceList::operator-=(const ResourceList& other) {
  for (size_t i = 0; i < core_.size(); ++i) core_[i] -= other.core_[i];
  if (!other.extended_.empty()) {
    extended_ = Combine(extended_, other.extended_, [](Quantity a, Quantity b) { return a - b; });
  }
  return *this;
}

void ResourceList::MaxWith(const ResourceList& other) {
  for (size_t i = 0; i < core_.size(); ++i) core_[i] = std::max(core_[i], other.core_[i]);
  if (!other.extended_.empty()) {
    extended_ =
        Combine(extended_, other.extended_, [](Quantity a, Quantity b) { return std::max(a, b); });
  }
}

// Zero amounts are not "named": a pod that asks for no GPU fits a node whose remaining GPU count is
// negative (over-committed), as in the Kubernetes scheduler's fit check.
bool ResourceList::FitsIn(const ResourceList& capacity) const {
  for (size_t i = 0; i < core_.size(); ++i) {
    if (!core_[i].is_zero() && core_[i] > capacity.core_[i]) return false;
  }
  bool fits = true;
  Merge(extended_, capacity.extended_, [&](const std::string&, Quantity mine, Quantity theirs) {
    fits = fits && (mine.is_zero() || mine <= theirs);
  });
  return fits;
}

std::vector<std::string> ResourceList::Exceeding(const ResourceList& capacity) const {
  std::vector<std::string> names;
  for (size_t i = 0; i < core_.size(); ++i) {
    if (!core_[i].is_zero() && core_[i] > capacity.core_[i]) names.emplace_back(kCoreNames[i]);
  }
  Merge(extended_, capacity.extended_,
        [&](const std::string& name, Quantity mine, Quantity theirs) {
          if (!mine.is_zero() && mine > theirs) names.push_back(name);
        });
  return names;
}

bool ResourceList::empty() const {
  return std::all_of(core_.begin(), core_.end(), [](Quantity q) { return q.is_zero(); }) &&
         extended_.empty();
}

}  // namespace karpenter::api
