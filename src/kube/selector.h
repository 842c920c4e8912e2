#pragma once
// Label and field selectors in the string form that list and watch requests carry
// ("app=web,tier in (a,b),!legacy"; "spec.nodeName=node-1,metadata.name!=x"). Requirements are
// ANDed; a selector without requirements matches every object.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "kube/object.h"

namespace karpenter::kube {

enum class LabelOperator {
  kEquals,
  kNotEquals,
  kIn,
  kNotIn,
  kExists,
  kDoesNotExist,
  kGreaterThan,  // the label's value and the requirement's are integers
  kLessThan,
};

struct LabelRequirement {
  std::string key;
  LabelOperator op = LabelOperator::kEquals;
  // None for kExists and kDoesNotExist, one unless kIn or kNotIn.
  std::vector<std::string> values;

  bool operator==(const LabelRequirement&) const = default;
};

class LabelSelector {
 public:
  LabelSelector() = default;
  explicit LabelSelector(std::vector<LabelRequirement> requirements)
      : requirements_(std::move(requirements)) {}

  // "a=b", "a==b", "a!=b", "a in (x,y)", "a notin (x)", "a" (exists), "!a" (does not exist),
  // "a>1", "a<1", comma-separated, with any whitespace between the parts.
  static Result<LabelSelector> Parse(std::string_view text);
  // A metav1.LabelSelector as JSON: matchLabels and matchExpressions.
  static Result<LabelSelector> FromObject(const Object& selector);

  // Whether the object's metadata.labels satisfy every requirement.
  bool Matches(const Object& object) const;
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<LabelRequirement> requirements_;
};

enum class FieldOperator { kEquals, kNotEquals };

struct FieldRequirement {
  std::string path;  // dotted: "spec.nodeName"
  FieldOperator op = FieldOperator::kEquals;
  std::string value;

  bool operator==(const FieldRequirement&) const = default;
};

class FieldSelector {
 public:
  // "path=value", "path==value", "path!=value", comma-separated; "\," "\=" and "\\" escape
  // those characters in values.
  static Result<FieldSelector> Parse(std::string_view text);

  // Reads each dotted path of the object: a missing field reads as "", a number or boolean as
  // its JSON text.
  bool Matches(const Object& object) const;
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<FieldRequirement> requirements_;
};

// The syntax of names that selectors and object metadata share; each returns why the text is
// invalid, or nullopt when it is valid.
// A qualified name: "app", "karpenter.sh/nodepool" (label keys, annotation keys, finalizers).
std::optional<std::string> LabelKeyError(std::string_view key);
// Empty, or up to 63 alphanumerics, '-', '_', '.' starting and ending with an alphanumeric.
std::optional<std::string> LabelValueError(std::string_view value);
// RFC 1123 subdomain ("web-1", "example.com"): most object names.
std::optional<std::string> DnsSubdomainError(std::string_view name);
// RFC 1123 label ("kube-system"): namespace names.
std::optional<std::string> DnsLabelError(std::string_view name);

}  // namespace karpenter::kube
