#pragma once
// A typed, path-carrying view of one JSON value, used by the decoders. Every read checks the type,
// reports a problem naming the exact field path ("spec.template.spec.requirements[2].operator:
// unknown operator \"Gtt\"") and returns an empty optional or a fallback, so decoders read fields
// in one line each and decoding goes on to report every problem of an object.
//
// Paths are built only when a problem is reported: a Reader refers to its parent (which must
// outlive it, as it does when readers are created on the stack while walking down the document).
// A reader made from a temporary parent copies the parent's path instead.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object_meta.h"
#include "api/resource_list.h"
#include "common/duration.h"
#include "common/json.h"
#include "common/quantity.h"

namespace karpenter::api {

enum class DurationSyntax;

// The problems found in one object; each line reads "<prefix><path>: <message>".
class Problems {
 public:
  explicit Problems(std::string prefix) : prefix_(std::move(prefix)) {}

  void Add(std::string_view path, std::string_view message);
  bool empty() const { return lines_.empty(); }
  std::vector<std::string>& lines() { return lines_; }

 private:
  std::string prefix_;
  std::vector<std::string> lines_;
};

class Reader {
 public:
  // The root of an object: an empty path.
  Reader(const Json& value, Problems& problems) : value_(&value), problems_(&problems) {}

  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // The named member of an object (absent when missing, or when this is not an object: see
  // Object()). `name` must outlive the reader; string literals and JSON keys do.
  Reader Field(std::string_view name) const&;
  Reader Field(std::string_view name) &&;
  Reader operator[](std::string_view name) const& { return Field(name); }
  Reader operator[](std::string_view name) && { return std::move(*this).Field(name); }

  // False when the field is missing or null (Kubernetes treats both as unset).
  bool present() const { return value_ != nullptr && !value_->is_null(); }
  const Json* json() const { return value_; }

  // True when present and an object; reports a type problem when present and not an object.
  bool Object() const;
  // Reports "required" when the field is not present; returns present().
  bool Required() const;
  // The number of items of an array (0 when absent or not an array).
  size_t size() const;

  // Scalars. Strings also accept numbers and booleans as their text (`values: [2]`, `cpu: 1000`).
  std::optional<std::string> String() const;
  std::string StringOr(std::string_view fallback = {}) const;
  std::optional<int64_t> Int(int64_t min = INT64_MIN, int64_t max = INT64_MAX) const;
  std::optional<int32_t> Int32() const;
  std::optional<bool> Bool() const;
  std::optional<Quantity> QuantityValue() const;
  std::optional<Duration> DurationValue(DurationSyntax syntax) const;

  // A string that must be one of `names`; reports `unknown <what> "<text>"` otherwise.
  template <class E, size_t N>
  std::optional<E> Enum(std::string_view what,
                        const std::pair<std::string_view, E> (&names)[N]) const {
    std::optional<std::string> text = String();
    if (!text) return std::nullopt;
    for (const auto& [name, value] : names) {
      if (name == *text) return value;
    }
    UnknownValue(what, *text);
    return std::nullopt;
  }

  // Collections.
  Labels StringMap() const;  // {key: string}
  // {label key: label value} (metadata.labels, nodeSelector, matchLabels), each pair checked as
  // the API server checks labels: a qualified name for the key, a label value.
  Labels LabelMap() const;
  std::vector<std::string> StringList() const;  // [string]
  ResourceList Resources() const;               // {name: quantity}

  // Calls fn(const Reader& item) for each item of an array.
  template <class Fn>
  void Each(Fn&& fn) const {
    if (!ExpectArray()) return;
    for (size_t i = 0; i < value_->size(); ++i) {
      const Reader item(&(*value_)[i], this, {}, i);
      fn(item);
    }
  }
  // Decodes each item of an array with `decode(const Reader&) -> T`.
  template <class T, class Fn>
  std::vector<T> List(Fn&& decode) const {
    std::vector<T> out;
    out.reserve(size());
    Each([&](const Reader& item) { out.push_back(decode(item)); });
    return out;
  }
  // Calls fn(std::string_view key, const Reader& value) for each member of an object.
  template <class Fn>
  void Entries(Fn&& fn) const {
    if (!Object()) return;
    for (const auto& [key, member] : value_->get_ref<const Json::object_t&>()) {
      const std::string_view name = key;
      const Reader entry(&member, this, name, kKey);
      fn(name, entry);
    }
  }

  // Reports a problem at this field.
  void Error(std::string_view message) const;
  void UnknownValue(std::string_view what, std::string_view text) const;
  // "spec.template.spec.requirements[2].operator"; empty at the root.
  std::string Path() const;

 private:
  static constexpr size_t kKey = static_cast<size_t>(-1);

  // A child: a field (index == kNoIndex), a map entry (index == kKey) or an array item.
  Reader(const Json* value, const Reader* parent, std::string_view name, size_t index)
      : value_(value), parent_(parent), name_(name), index_(index), problems_(parent->problems_) {}
  // A field of a temporary parent: keeps a copy of the parent's path.
  Reader(const Json* value, std::string parent_path, std::string_view name, Problems* problems)
      : value_(value), name_(name), parent_path_(std::move(parent_path)), problems_(problems) {}

  const Json* Member(std::string_view name) const;

  bool ExpectArray() const;
  void TypeError(std::string_view expected) const;
  void AppendPath(std::string& out) const;

  static constexpr size_t kNoIndex = static_cast<size_t>(-2);

  const Json* value_ = nullptr;
  const Reader* parent_ = nullptr;
  std::string_view name_;
  size_t index_ = kNoIndex;
  std::string parent_path_;  // set instead of parent_ for children of temporaries
  Problems* problems_;
};

}  // namespace karpenter::api
