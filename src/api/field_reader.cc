#include "api/field_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <string_view>

#include "api/validation.h"
#include "common/document.h"

namespace karpenter::api {
namespace {

std::string_view TypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "a list";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

}  // namespace

void Problems::Add(std::string_view path, std::string_view message) {
  if (path.empty()) {
    lines_.push_back(fmt::format("{}{}", prefix_, message));
  } else {
    lines_.push_back(fmt::format("{}{}: {}", prefix_, path, message));
  }
}

const Json* Reader::Member(std::string_view name) const {
  if (value_ == nullptr || !value_->is_object()) return nullptr;
  const auto it = value_->find(name);
  return it == value_->end() ? nullptr : &*it;
}

Reader Reader::Field(std::string_view name) const& {
  return Reader(Member(name), this, name, kNoIndex);
}

Reader Reader::Field(std::string_view name) && {
  return Reader(Member(name), Path(), name, problems_);
}

bool Reader::Object() const {
  if (!present()) return false;
  if (value_->is_object()) return true;
  TypeError("an object");
  return false;
}

bool Reader::Required() const {
  if (present()) return true;
  Error("required");
  return false;
}

size_t Reader::size() const { return value_ != nullptr && value_->is_array() ? value_->size() : 0; }

bool Reader::ExpectArray() const {
  if (!present()) return false;
  if (value_->is_array()) return true;
  TypeError("a list");
  return false;
}

std::optional<std::string> Reader::String() const {
  if (!present()) return std::nullopt;
  if (value_->is_string()) return value_->get_ref<const std::string&>();
  if (value_->is_number()) return NumberText(*value_);
  if (value_->is_boolean()) return value_->get<bool>() ? "true" : "false";
  TypeError("a string");
  return std::nullopt;
}

std::string Reader::StringOr(std::string_view fallback) const {
  std::optional<std::string> text = String();
  return text ? *std::move(text) : std::string(fallback);
}

std::optional<int64_t> Reader::Int(int64_t min, int64_t max) const {
  if (!present()) return std::nullopt;
  std::optional<int64_t> value;
  if (value_->is_number_integer() && !value_->is_number_unsigned()) {
    value = value_->get<int64_t>();
  } else if (value_->is_number_unsigned()) {
    const uint64_t big = value_->get<uint64_t>();
    if (big <= static_cast<uint64_t>(INT64_MAX)) value = static_cast<int64_t>(big);
  } else if (value_->is_number_float()) {
    const double number = value_->get<double>();
    if (number != std::floor(number)) {
      TypeError("an integer");
      return std::nullopt;
    }
    if (std::fabs(number) < 9.2e18) value = static_cast<int64_t>(number);
  } else {
    TypeError("an integer");
    return std::nullopt;
  }
  if (!value || *value < min || *value > max) {
    Error(fmt::format("{} is out of range [{}, {}]", NumberText(*value_), min, max));
    return std::nullopt;
  }
  return value;
}

std::optional<int32_t> Reader::Int32() const {
  std::optional<int64_t> value = Int(INT32_MIN, INT32_MAX);
  if (!value) return std::nullopt;
  return static_cast<int32_t>(*value);
}

std::optional<bool> Reader::Bool() const {
  if (!present()) return std::nullopt;
  if (value_->is_boolean()) return value_->get<bool>();
  TypeError("a boolean");
  return std::nullopt;
}

std::optional<Quantity> Reader::QuantityValue() const {
  std::optional<std::string> text = String();
  if (!text) return std::nullopt;
  Result<Quantity> quantity = Quantity::Parse(*text);
  if (!quantity.ok()) {
    Error(fmt::format("invalid quantity \"{}\": {}", *text, quantity.error().message));
    return std::nullopt;
  }
  return *quantity;
}

std::optional<Duration> Reader::DurationValue(DurationSyntax syntax) const {
  std::optional<std::string> text = String();
  if (!text) return std::nullopt;
  if (Status syntax_ok = CheckDurationSyntax(*text, syntax); !syntax_ok.ok()) {
    Error(fmt::format("invalid duration \"{}\": {}", *text, syntax_ok.error().message));
    return std::nullopt;
  }
  Result<Duration> duration = Duration::Parse(*text, /*allow_never=*/true);
  if (!duration.ok()) {
    Error(fmt::format("invalid duration \"{}\": {}", *text, duration.error().message));
    return std::nullopt;
  }
  return *duration;
}

Labels Reader::StringMap() const {
  Labels out;
  Entries([&](std::string_view key, const Reader& value) {
    if (std::optional<std::string> text = value.String()) {
      out.emplace(std::string(key), *std::move(text));
    }
  });
  return out;
}

Labels Reader::LabelMap() const {
  Labels out;
  Entries([&](std::string_view key, const Reader& value) {
    std::optional<std::string> text = value.String();
    if (!text) return;
    std::string problem = LabelKeyProblem(key);
    if (problem.empty()) problem = LabelValueProblem(*text);
    if (problem.empty()) {
      out.emplace(std::string(key), *std::move(text));
    } else {
      value.Error(problem);
    }
  });
  return out;
}

std::vector<std::string> Reader::StringList() const {
  return List<std::string>([](const Reader& item) { return item.StringOr(); });
}

ResourceList Reader::Resources() const {
  ResourceList out;
  Entries([&](std::string_view name, const Reader& value) {
    if (std::optional<Quantity> quantity = value.QuantityValue()) out.Set(name, *quantity);
  });
  return out;
}

void Reader::Error(std::string_view message) const { problems_->Add(Path(), message); }

void Reader::UnknownValue(std::string_view what, std::string_view text) const {
  Error(fmt::format("unknown {} \"{}\"", what, text));
}

void Reader::TypeError(std::string_view expected) const {
  Error(fmt::format("expected {}, got {}", expected, TypeName(*value_)));
}

std::string Reader::Path() const {
  std::string out;
  AppendPath(out);
  return out;
}

void Reader::AppendPath(std::string& out) const {
  if (parent_ != nullptr) {
    parent_->AppendPath(out);
  } else {
    out += parent_path_;
  }
  if (index_ == kNoIndex) {
    if (name_.empty()) return;  // the root
    if (!out.empty()) out += '.';
    out += name_;
  } else if (index_ == kKey) {
    out += '[';
    out += PrintableText(name_);
    out += ']';
  } else {
    out += fmt::format("[{}]", index_);
  }
}

}  // namespace karpenter::api
