#include "scheduling/requirements.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>

#include "api/labels.h"

namespace karpenter::scheduling {
namespace {

std::vector<std::string> SortedUnique(std::vector<std::string> values) {
  if (values.size() <= 1) return values;
  if (!std::is_sorted(values.begin(), values.end())) std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

std::optional<int64_t> ParseInteger(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

bool Contains(const std::vector<std::string>& sorted, std::string_view value) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), value);
  return it != sorted.end() && *it == value;
}

std::string JoinValues(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ' ';
    out += values[i];
  }
  out += ']';
  return out;
}

}  // namespace

Requirement Requirement::In(std::string key, std::vector<std::string> values) {
  Requirement r;
  r.key_ = std::move(key);
  r.values_ = SortedUnique(std::move(values));
  return r;
}

Requirement Requirement::NotIn(std::string key, std::vector<std::string> values) {
  Requirement r;
  r.key_ = std::move(key);
  r.values_ = SortedUnique(std::move(values));
  r.complement_ = true;
  r.allows_absent_ = true;
  return r;
}

Requirement Requirement::Exists(std::string key) {
  Requirement r;
  r.key_ = std::move(key);
  r.complement_ = true;
  return r;
}

Requirement Requirement::DoesNotExist(std::string key) {
  Requirement r;
  r.key_ = std::move(key);
  r.allows_absent_ = true;
  return r;
}

Requirement Requirement::FromNodeSelector(const api::NodeSelectorRequirement& requirement) {
  using Op = api::NodeSelectorOperator;
  Requirement r;
  switch (requirement.op) {
    case Op::kIn:
      r = In(requirement.key, requirement.values);
      break;
    case Op::kNotIn:
      r = NotIn(requirement.key, requirement.values);
      break;
    case Op::kExists:
      r = Exists(requirement.key);
      break;
    case Op::kDoesNotExist:
      r = DoesNotExist(requirement.key);
      break;
    case Op::kGt:
    case Op::kGte:
    case Op::kLt:
    case Op::kLte: {
      r = Exists(requirement.key);
      // Validation guarantees one integer; an unparsable bound allows nothing.
      std::optional<int64_t> bound =
          requirement.values.size() == 1 ? ParseInteger(requirement.values[0]) : std::nullopt;
      if (!bound) {
        r = In(requirement.key, {});
        break;
      }
      if (requirement.op == Op::kGt) r.greater_than_ = *bound;
      if (requirement.op == Op::kGte) r.greater_than_ = *bound - 1;
      if (requirement.op == Op::kLt) r.less_than_ = *bound;
      if (requirement.op == Op::kLte) r.less_than_ = *bound + 1;
      break;
    }
  }
  r.min_values_ = requirement.min_values;
  return r;
}

bool Requirement::Has(std::string_view value) const {
  if (greater_than_ || less_than_) {
    std::optional<int64_t> number = ParseInteger(value);
    if (!number) return false;
    if (greater_than_ && *number <= *greater_than_) return false;
    if (less_than_ && *number >= *less_than_) return false;
  }
  return complement_ != Contains(values_, value);
}

bool Requirement::AllowsAbsent() const { return allows_absent_; }

bool Requirement::Empty() const {
  if (allows_absent_) return false;
  if (!complement_) return Values().empty();
  if (greater_than_ && less_than_) {
    // Integers strictly between the bounds, minus the excluded values.
    int64_t lo = *greater_than_;
    int64_t hi = *less_than_;
    if (hi - lo <= 1) return true;
    uint64_t range = static_cast<uint64_t>(hi - lo - 1);
    if (range > values_.size()) return false;
    for (int64_t v = lo + 1; v < hi; ++v) {
      if (!Contains(values_, std::to_string(v))) return false;
    }
    return true;
  }
  return false;
}

size_t Requirement::Len() const {
  if (complement_) return std::numeric_limits<size_t>::max();
  return Values().size();
}

std::vector<std::string> Requirement::Values() const {
  if (complement_) return {};
  if (!greater_than_ && !less_than_) return values_;
  std::vector<std::string> out;
  for (const auto& v : values_) {
    if (Has(v)) out.push_back(v);
  }
  return out;
}

api::NodeSelectorOperator Requirement::Operator() const {
  using Op = api::NodeSelectorOperator;
  if (complement_) {
    if (greater_than_) return Op::kGt;
    if (less_than_) return Op::kLt;
    return values_.empty() ? Op::kExists : Op::kNotIn;
  }
  if (values_.empty() && allows_absent_) return Op::kDoesNotExist;
  return Op::kIn;
}

Requirement Requirement::Intersect(const Requirement& other) const {
  Requirement r;
  r.key_ = key_;
  r.allows_absent_ = allows_absent_ && other.allows_absent_;
  r.greater_than_ = greater_than_;
  if (other.greater_than_ && (!r.greater_than_ || *other.greater_than_ > *r.greater_than_)) {
    r.greater_than_ = other.greater_than_;
  }
  r.less_than_ = less_than_;
  if (other.less_than_ && (!r.less_than_ || *other.less_than_ < *r.less_than_)) {
    r.less_than_ = other.less_than_;
  }
  if (complement_ && other.complement_) {
    r.complement_ = true;
    std::set_union(values_.begin(), values_.end(), other.values_.begin(), other.values_.end(),
                   std::back_inserter(r.values_));
  } else if (complement_ || other.complement_) {
    const Requirement& finite = complement_ ? other : *this;
    const Requirement& excluded = complement_ ? *this : other;
    for (const auto& v : finite.values_) {
      if (!Contains(excluded.values_, v)) r.values_.push_back(v);
    }
  } else {
    std::set_intersection(values_.begin(), values_.end(), other.values_.begin(),
                          other.values_.end(), std::back_inserter(r.values_));
  }
  if (!r.complement_ && (r.greater_than_ || r.less_than_)) {
    // A finite set is exact: apply the bounds now and drop them.
    r.values_ = r.Values();
    r.greater_than_.reset();
    r.less_than_.reset();
  }
  if (min_values_ || other.min_values_) {
    r.min_values_ = std::max(min_values_.value_or(0), other.min_values_.value_or(0));
  }
  return r;
}

bool Requirement::Intersects(const Requirement& other) const {
  if (allows_absent_ && other.allows_absent_) return true;
  // Fast paths for the common finite cases avoid building the intersection.
  if (!complement_ && !other.complement_ && !greater_than_ && !less_than_ && !other.greater_than_ &&
      !other.less_than_) {
    auto a = values_.begin();
    auto b = other.values_.begin();
    while (a != values_.end() && b != other.values_.end()) {
      if (*a == *b) return true;
      if (*a < *b) {
        ++a;
      } else {
        ++b;
      }
    }
    return false;
  }
  if (!complement_ && !greater_than_ && !less_than_) {
    return std::any_of(values_.begin(), values_.end(),
                       [&](const std::string& v) { return other.Has(v); });
  }
  if (!other.complement_ && !other.greater_than_ && !other.less_than_) {
    return std::any_of(other.values_.begin(), other.values_.end(),
                       [&](const std::string& v) { return Has(v); });
  }
  return !Intersect(other).Empty();
}

api::NodeSelectorRequirement Requirement::ToNodeSelector() const {
  api::NodeSelectorRequirement out;
  out.key = key_;
  out.op = Operator();
  out.min_values = min_values_;
  switch (out.op) {
    case api::NodeSelectorOperator::kGt:
      out.values = {std::to_string(*greater_than_)};
      break;
    case api::NodeSelectorOperator::kLt:
      out.values = {std::to_string(*less_than_)};
      break;
    case api::NodeSelectorOperator::kIn:
    case api::NodeSelectorOperator::kNotIn:
      out.values = Values();
      if (out.op == api::NodeSelectorOperator::kNotIn) out.values = values_;
      break;
    default:
      break;
  }
  return out;
}

std::string Requirement::ToString() const {
  std::string out = key_;
  out += ' ';
  out += api::ToString(Operator());
  switch (Operator()) {
    case api::NodeSelectorOperator::kGt:
      out += ' ' + std::to_string(*greater_than_);
      if (less_than_) out += " AND " + key_ + " Lt " + std::to_string(*less_than_);
      break;
    case api::NodeSelectorOperator::kLt:
      out += ' ' + std::to_string(*less_than_);
      break;
    case api::NodeSelectorOperator::kIn:
      out += ' ' + JoinValues(Values());
      break;
    case api::NodeSelectorOperator::kNotIn:
      out += ' ' + JoinValues(values_);
      break;
    default:
      break;
  }
  if (min_values_) out += " (minValues " + std::to_string(*min_values_) + ")";
  return out;
}

Requirements Requirements::FromNodeSelector(const std::vector<api::NodeSelectorRequirement>& list) {
  Requirements out;
  for (const auto& r : list) out.Add(Requirement::FromNodeSelector(r));
  return out;
}

Requirements Requirements::FromLabels(const api::Labels& labels) {
  Requirements out;
  out.items_.reserve(labels.size());
  for (const auto& [key, value] : labels) {
    out.items_.push_back(Requirement::In(key, {value}));  // labels are sorted by key already
  }
  return out;
}

void Requirements::Add(const Requirement& requirement) { Add(Requirement(requirement)); }

void Requirements::RelaxMinValues(std::string_view key, int at_most) {
  for (Requirement& requirement : items_) {
    if (requirement.key() != key || !requirement.min_values()) continue;
    if (at_most < 1) {
      requirement.set_min_values(std::nullopt);
    } else if (*requirement.min_values() > at_most) {
      requirement.set_min_values(at_most);
    }
  }
}

void Requirements::Add(Requirement&& requirement) {
  auto it =
      std::lower_bound(items_.begin(), items_.end(), requirement.key(),
                       [](const Requirement& r, const std::string& key) { return r.key() < key; });
  if (it != items_.end() && it->key() == requirement.key()) {
    *it = it->Intersect(requirement);
  } else {
    items_.insert(it, std::move(requirement));
  }
}

void Requirements::Add(const Requirements& other) {
  items_.reserve(items_.size() + other.items_.size());
  for (const auto& r : other.items_) Add(r);
}

const Requirement* Requirements::Get(std::string_view key) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const Requirement& r, std::string_view k) { return r.key() < k; });
  if (it != items_.end() && it->key() == key) return &*it;
  return nullptr;
}

const Requirement* Requirements::FirstConflict(const Requirements& other,
                                               const Requirement** existing) const {
  for (const auto& incoming : other.items_) {
    *existing = Get(incoming.key());
    if (*existing == nullptr) {
      if (incoming.AllowsAbsent() || IsWellKnownLabel(incoming.key())) continue;
      return &incoming;
    }
    if (!(*existing)->Intersects(incoming)) return &incoming;
  }
  return nullptr;
}

Status Requirements::Compatible(const Requirements& other) const {
  const Requirement* existing = nullptr;
  const Requirement* incoming = FirstConflict(other, &existing);
  if (incoming == nullptr) return {};
  if (existing == nullptr) {
    return Error{"label \"" + incoming->key() + "\" does not have known values"};
  }
  return Error{"incompatible requirements, key " + incoming->key() + ", " + incoming->ToString() +
               " not in " + existing->ToString()};
}

bool Requirements::IsCompatible(const Requirements& other) const {
  const Requirement* existing = nullptr;
  return FirstConflict(other, &existing) == nullptr;
}

bool Requirements::Intersects(const Requirements& other) const {
  for (const auto& incoming : other.items_) {
    const Requirement* existing = Get(incoming.key());
    if (existing != nullptr && !existing->Intersects(incoming)) return false;
  }
  return true;
}

bool Requirements::Matches(const api::Labels& labels) const {
  for (const auto& r : items_) {
    auto it = labels.find(r.key());
    if (it == labels.end()) {
      if (!r.AllowsAbsent()) return false;
    } else if (!r.Has(it->second)) {
      return false;
    }
  }
  return true;
}

api::Labels Requirements::SingleValueLabels() const {
  api::Labels out;
  for (const auto& r : items_) {
    if (r.Len() == 1) out.emplace(r.key(), r.Values().front());
  }
  return out;
}

std::vector<api::NodeSelectorRequirement> Requirements::ToNodeSelector() const {
  std::vector<api::NodeSelectorRequirement> out;
  out.reserve(items_.size());
  for (const auto& r : items_) out.push_back(r.ToNodeSelector());
  return out;
}

std::string Requirements::ToString() const {
  std::string out;
  for (const auto& r : items_) {
    if (!out.empty()) out += " AND ";
    out += r.ToString();
  }
  return out;
}

bool IsWellKnownLabel(std::string_view key) {
  return std::find(api::kWellKnownLabels.begin(), api::kWellKnownLabels.end(), key) !=
         api::kWellKnownLabels.end();
}

}  // namespace karpenter::scheduling
