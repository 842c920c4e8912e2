#include "common/document.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace karpenter {
namespace {

using nlohmann::json;

// Guards against pathological input: deeply nested collections overflow the stack, and a few
// YAML aliases can expand into billions of nodes ("billion laughs").
constexpr int kMaxDepth = 256;
constexpr int64_t kMaxNodes = 20'000'000;

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

bool IsDigits(std::string_view text, int base) {
  if (text.empty()) return false;
  for (const char c : text) {
    const bool ok = base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                               : (c >= '0' && c < static_cast<char>('0' + base));
    if (!ok) return false;
  }
  return true;
}

// An integer of the core schema: [-+]?[0-9]+, 0o[0-7]+ or 0x[0-9a-fA-F]+. Values outside the 64-bit
// range are left as text rather than rounded.
std::optional<json> ResolveInteger(std::string_view text) {
  int base = 10;
  bool negative = false;
  std::string_view digits = text;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    base = text[1] == 'x' ? 16 : 8;
    digits.remove_prefix(2);
  } else if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (!IsDigits(digits, base)) return std::nullopt;
  uint64_t magnitude = 0;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  if (!negative) {
    if (magnitude <= static_cast<uint64_t>(INT64_MAX)) return json(static_cast<int64_t>(magnitude));
    return json(magnitude);
  }
  if (magnitude <= static_cast<uint64_t>(INT64_MAX)) return json(-static_cast<int64_t>(magnitude));
  if (magnitude == static_cast<uint64_t>(INT64_MAX) + 1) return json(INT64_MIN);
  return std::nullopt;
}

// A float of the core schema: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?. Infinities and
// NaN have no JSON form and stay text.
std::optional<json> ResolveFloat(std::string_view text) {
  std::string_view rest = text;
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) rest.remove_prefix(1);
  size_t i = 0;
  size_t mantissa_digits = 0;
  while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i, ++mantissa_digits;
  if (i < rest.size() && rest[i] == '.') {
    ++i;
    while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return std::nullopt;
  if (i < rest.size() && (rest[i] == 'e' || rest[i] == 'E')) {
    ++i;
    if (i < rest.size() && (rest[i] == '+' || rest[i] == '-')) ++i;
    if (!IsDigits(rest.substr(i), 10)) return std::nullopt;
    i = rest.size();
  }
  if (i != rest.size()) return std::nullopt;
  // from_chars rejects a leading '+'.
  const std::string_view number = text[0] == '+' ? text.substr(1) : text;
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return json(value);
}

// The value of an untagged plain scalar under the core schema.
json ResolvePlain(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (auto integer = ResolveInteger(text)) return *std::move(integer);
  if (auto number = ResolveFloat(text)) return *std::move(number);
  return text;
}

json ResolveScalar(const YAML::Node& node) {
  const std::string& tag = node.Tag();
  const std::string& text = node.Scalar();
  if (tag == "?") return ResolvePlain(text);
  if (tag.starts_with(kTagPrefix)) {
    const std::string_view type = std::string_view(tag).substr(kTagPrefix.size());
    if (type == "null" || type == "bool" || type == "int" || type == "float") {
      json value = ResolvePlain(text);
      const bool matches = (type == "null" && value.is_null()) ||
                           (type == "bool" && value.is_boolean()) ||
                           (type == "int" && value.is_number_integer()) ||
                           (type == "float" && value.is_number());
      if (matches) return value;
    }
  }
  // Quoted and block scalars ("!"), !!str, and anything with a tag we do not interpret.
  return text;
}

std::string Where(std::string_view source, const YAML::Mark& mark) {
  if (mark.is_null()) return std::string(source);
  return fmt::format("{}:{}:{}", source, mark.line + 1, mark.column + 1);
}

class YamlConverter {
 public:
  explicit YamlConverter(std::string_view source) : source_(source) {}

  Result<json> Convert(const YAML::Node& node) {
    json out;
    Status status = Visit(node, 0, out);
    if (!status.ok()) return status.error();
    return out;
  }

 private:
  Status Visit(const YAML::Node& node, int depth, json& out) {
    if (--budget_ < 0) {
      return Error{fmt::format("{}: document expands to too many nodes", Where(source_, node.Mark()))};
    }
    if (depth > kMaxDepth) {
      return Error{fmt::format("{}: nesting deeper than {} levels", Where(source_, node.Mark()),
                               kMaxDepth)};
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out = nullptr;
        return {};
      case YAML::NodeType::Scalar:
        out = ResolveScalar(node);
        return {};
      case YAML::NodeType::Sequence: {
        out = json::array();
        out.get_ref<json::array_t&>().reserve(node.size());
        for (const YAML::Node& item : node) {
          json& slot = out.emplace_back();
          if (Status s = Visit(item, depth + 1, slot); !s.ok()) return s;
        }
        return {};
      }
      case YAML::NodeType::Map: {
        out = json::object();
        for (const auto& entry : node) {
          const YAML::Node& key = entry.first;
          if (!key.IsScalar() && !key.IsNull()) {
            return Error{fmt::format("{}: mapping keys must be scalars", Where(source_, key.Mark()))};
          }
          std::string name = key.IsNull() ? std::string() : key.Scalar();
          if (out.contains(name)) {
            return Error{
                fmt::format("{}: duplicate key \"{}\"", Where(source_, key.Mark()), name)};
          }
          json& slot = out[std::move(name)];
          if (Status s = Visit(entry.second, depth + 1, slot); !s.ok()) return s;
        }
        return {};
      }
    }
    out = nullptr;
    return {};
  }

  std::string_view source_;
  int64_t budget_ = kMaxNodes;
};

// Replaces `kind: List` (and typed lists such as PodList) by their items. Items of a typed list
// may omit kind and apiVersion (the API server leaves them out); they are filled in from the list.
void AppendExpanded(json value, int line, std::vector<Document>& out, int depth = 0) {
  if (value.is_object() && depth < kMaxDepth) {
    const auto kind = value.find("kind");
    const auto items = value.find("items");
    if (kind != value.end() && kind->is_string() && items != value.end() && items->is_array()) {
      const std::string& list_kind = kind->get_ref<const std::string&>();
      if (list_kind.ends_with("List")) {
        const std::string item_kind = list_kind.substr(0, list_kind.size() - 4);
        const auto version = value.find("apiVersion");
        json list_items = std::move(*items);
        out.reserve(out.size() + list_items.size());
        for (json& item : list_items) {
          if (item.is_object() && !item_kind.empty()) {
            if (!item.contains("kind")) item["kind"] = item_kind;
            if (!item.contains("apiVersion") && version != value.end()) {
              item["apiVersion"] = *version;
            }
          }
          AppendExpanded(std::move(item), line, out, depth + 1);
        }
        return;
      }
    }
  }
  out.push_back(Document{std::move(value), line});
}

Result<std::vector<Document>> ParseYaml(std::string_view text, std::string_view source) {
  std::vector<YAML::Node> nodes;
  try {
    nodes = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("{}: YAML syntax error: {}", Where(source, e.mark), e.msg)};
  } catch (const std::exception& e) {
    return Error{fmt::format("{}: cannot parse YAML: {}", source, e.what())};
  }
  std::vector<Document> documents;
  documents.reserve(nodes.size());
  YamlConverter converter(source);
  for (const YAML::Node& node : nodes) {
    if (node.IsNull() || !node.IsDefined()) continue;
    Result<json> value = converter.Convert(node);
    if (!value.ok()) return value.error();
    const YAML::Mark mark = node.Mark();
    AppendExpanded(*std::move(value), mark.is_null() ? 0 : mark.line + 1, documents);
  }
  return documents;
}

// Line and column (1-based) of a byte offset.
std::pair<int, int> LineColumn(std::string_view text, size_t offset) {
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

std::string JsonErrorReason(const nlohmann::json::parse_error& e) {
  // what() reads "[json.exception.parse_error.101] parse error at line 1, column 2: <reason>".
  std::string_view what = e.what();
  const size_t column = what.find("column ");
  if (column != std::string_view::npos) {
    const size_t colon = what.find(": ", column);
    if (colon != std::string_view::npos) return std::string(what.substr(colon + 2));
  }
  return std::string(what);
}

// JSON text opens with '{' or '[' and quotes its first key or value. Flow-style YAML such as
// "{kind: Pod}" opens the same way but leaves keys unquoted; it goes to the YAML parser.
bool LooksLikeJson(std::string_view text) {
  if (text.empty() || (text[0] != '{' && text[0] != '[')) return false;
  for (const char c : text) {
    if (c == '{' || c == '[' || std::isspace(static_cast<unsigned char>(c))) continue;
    return c != '\'' && c != '-' && !std::isalpha(static_cast<unsigned char>(c)) &&
           c != '.' && c != '~' && c != '&' && c != '*' && c != '!';
  }
  return true;
}

}  // namespace

std::string NumberText(const nlohmann::json& number) {
  if (number.is_number_unsigned()) return std::to_string(number.get<uint64_t>());
  if (number.is_number_integer()) return std::to_string(number.get<int64_t>());
  const double value = number.get<double>();
  char buffer[64];
  std::to_chars_result result{};
  if (value == std::floor(value) && std::fabs(value) < 1e21) {
    result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, 0);
  } else if (std::fabs(value) >= 1e21) {
    result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  } else {
    result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  }
  if (result.ec != std::errc()) return number.dump();
  return std::string(buffer, result.ptr);
}

Result<std::vector<Document>> ParseDocuments(std::string_view text, std::string_view source) {
  size_t start = 0;
  if (text.starts_with("\xEF\xBB\xBF")) start = 3;  // UTF-8 byte order mark
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  if (LooksLikeJson(text.substr(start))) {
    try {
      json value = json::parse(text.substr(start));
      std::vector<Document> documents;
      const int line = LineColumn(text, start).first;
      if (value.is_array()) {
        documents.reserve(value.size());
        for (json& item : value) AppendExpanded(std::move(item), line, documents);
      } else {
        AppendExpanded(std::move(value), line, documents);
      }
      return documents;
    } catch (const nlohmann::json::parse_error& e) {
      const auto [line, column] = LineColumn(text, start + (e.byte > 0 ? e.byte - 1 : 0));
      return Error{fmt::format("{}:{}:{}: JSON syntax error: {}", source, line, column,
                               JsonErrorReason(e))};
    } catch (const std::exception& e) {
      return Error{fmt::format("{}: cannot parse JSON: {}", source, e.what())};
    }
  }
  return ParseYaml(text, source);
}

}  // namespace karpenter
