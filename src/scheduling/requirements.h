#pragma once
// The requirements algebra: a set of allowed values per label key, built from node selector
// requirements (In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte), intersected as pods are added
// to a planned NodeClaim, and checked for compatibility against instance types and NodePools.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/node_selector.h"
#include "api/object_meta.h"
#include "common/result.h"

namespace karpenter::scheduling {

// The values one key may take. Either a finite set (`values`, complement=false) or everything but a
// finite set (complement=true), further bounded by optional integer bounds (Gt/Lt/Gte/Lte, which
// also imply the label exists and is an integer).
class Requirement {
 public:
  static Requirement In(std::string key, std::vector<std::string> values);
  static Requirement NotIn(std::string key, std::vector<std::string> values);
  static Requirement Exists(std::string key);
  static Requirement DoesNotExist(std::string key);
  static Requirement FromNodeSelector(const api::NodeSelectorRequirement& requirement);

  const std::string& key() const { return key_; }
  std::optional<int> min_values() const { return min_values_; }
  void set_min_values(std::optional<int> value) { min_values_ = value; }

  // True when `value` is allowed.
  bool Has(std::string_view value) const;
  // True when a node without this label satisfies the requirement (NotIn, DoesNotExist).
  bool AllowsAbsent() const;
  // True when no value at all is allowed (and the label must exist): an impossible requirement.
  bool Empty() const;
  // The number of allowed values; SIZE_MAX for complements.
  size_t Len() const;
  // The allowed values when finite (sorted), after applying integer bounds.
  std::vector<std::string> Values() const;
  // True when the allowed values are a finite set (In, DoesNotExist, or their intersections).
  bool Finite() const { return !complement_; }
  // Calls fn(const std::string&) for each allowed value of a finite requirement, without copying.
  template <class Fn>
  void ForEachValue(Fn&& fn) const {
    if (complement_) return;
    for (const auto& v : values_) {
      if ((!greater_than_ && !less_than_) || Has(v)) fn(v);
    }
  }
  // The operator a NodeSelectorRequirement would use to say the same.
  api::NodeSelectorOperator Operator() const;

  // The values allowed by both. min_values takes the larger of the two.
  Requirement Intersect(const Requirement& other) const;
  // True when at least one value (or absence) satisfies both.
  bool Intersects(const Requirement& other) const;

  api::NodeSelectorRequirement ToNodeSelector() const;
  // "kubernetes.io/arch In [arm64]", "karpenter.k8s.aws/instance-generation Gt 2".
  std::string ToString() const;

  bool operator==(const Requirement&) const = default;

 private:
  std::string key_;
  std::vector<std::string> values_;  // sorted, unique
  bool complement_ = false;
  bool allows_absent_ = false;           // NotIn / DoesNotExist semantics
  std::optional<int64_t> greater_than_;  // exclusive
  std::optional<int64_t> less_than_;     // exclusive
  std::optional<int> min_values_;
};

// Requirements on many keys, ANDed. Adding a requirement for a key already present intersects.
class Requirements {
 public:
  Requirements() = default;
  static Requirements FromNodeSelector(const std::vector<api::NodeSelectorRequirement>& list);
  // One `In [value]` requirement per label.
  static Requirements FromLabels(const api::Labels& labels);

  void Add(const Requirement& requirement);
  void Add(Requirement&& requirement);
  void Add(const Requirements& other);
  const Requirement* Get(std::string_view key) const;
  bool Has(std::string_view key) const { return Get(key) != nullptr; }
  // Whether a node labelled key=value would do: no requirement on the key, or one that allows it.
  bool Allows(std::string_view key, std::string_view value) const {
    const Requirement* requirement = Get(key);
    return requirement == nullptr || requirement->Has(value);
  }
  const std::vector<Requirement>& items() const { return items_; }
  // Lowers the minValues of the requirement on `key` to `at_most` (none at all when below 1):
  // MIN_VALUES_POLICY=BestEffort, when no launch could meet it.
  void RelaxMinValues(std::string_view key, int at_most);
  bool empty() const { return items_.empty(); }

  // Every key present in both must intersect (absence counts as a value for NotIn/DoesNotExist).
  // Keys `other` constrains with In/Exists/Gt/Lt that are not defined here are incompatible unless
  // they are well-known labels (allowed to be undefined). Returns the first conflict as an error.
  Status Compatible(const Requirements& other) const;
  bool IsCompatible(const Requirements& other) const;
  // Keys present in both must intersect; undefined keys are ignored.
  bool Intersects(const Requirements& other) const;

  // True when a node with exactly these labels satisfies every requirement.
  bool Matches(const api::Labels& labels) const;

  // Labels for keys that allow exactly one value (what a node created from these gets).
  api::Labels SingleValueLabels() const;

  std::vector<api::NodeSelectorRequirement> ToNodeSelector() const;
  // "a In [x] AND b Gt 2"
  std::string ToString() const;

  bool operator==(const Requirements&) const = default;

 private:
  // The first requirement of `other` that conflicts, or nullptr; `existing` is set to this side's
  // requirement on that key (nullptr when the key is undefined here).
  const Requirement* FirstConflict(const Requirements& other, const Requirement** existing) const;

  std::vector<Requirement> items_;  // sorted by key
};

// Label keys a node gets from its instance type, zone and capacity type even when nothing asked for
// them; requirements on them may be satisfied by an undefined key.
bool IsWellKnownLabel(std::string_view key);

}  // namespace karpenter::scheduling
