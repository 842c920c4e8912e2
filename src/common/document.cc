#include "common/document.h"

#include <fmt/format.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <istream>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

namespace karpenter {
namespace {

using json = Json;

// Guards against pathological input: deeply nested collections overflow the stack, and a few
// YAML aliases can expand into billions of nodes ("billion laughs"). Plain text needs a few bytes
// per node, so the node budget grows with the input and only caps what aliases multiply.
constexpr int kMaxDepth = 256;
constexpr int64_t kBaseNodeBudget = 1'000'000;
constexpr int64_t kNodesPerInputByte = 32;

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

bool IsDigits(std::string_view text, int base) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [base](char c) {
    return base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                      : (c >= '0' && c < static_cast<char>('0' + base));
  });
}

// The number of decimal digits in text[from...].
size_t CountDigits(std::string_view text, size_t from) {
  size_t n = 0;
  while (from + n < text.size() && std::isdigit(static_cast<unsigned char>(text[from + n]))) ++n;
  return n;
}

// An integer of the core schema: [-+]?[0-9]+, 0o[0-7]+ or 0x[0-9a-fA-F]+. Values outside the 64-bit
// range are left as text rather than rounded.
std::optional<json> ResolveInteger(const std::string& text) {
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
  if (error != std::errc() || end != digits.data() + digits.size()) return json(text);
  if (!negative) {
    if (magnitude <= static_cast<uint64_t>(INT64_MAX)) return json(static_cast<int64_t>(magnitude));
    return json(magnitude);
  }
  if (magnitude <= static_cast<uint64_t>(INT64_MAX)) return json(-static_cast<int64_t>(magnitude));
  if (magnitude == static_cast<uint64_t>(INT64_MAX) + 1) return json(INT64_MIN);
  return json(text);
}

// A float of the core schema: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?. Infinities and
// NaN have no JSON form and stay text.
std::optional<json> ResolveFloat(std::string_view text) {
  std::string_view rest = text;
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) rest.remove_prefix(1);
  size_t i = CountDigits(rest, 0);
  size_t mantissa_digits = i;
  if (i < rest.size() && rest[i] == '.') {
    const size_t fraction = CountDigits(rest, i + 1);
    mantissa_digits += fraction;
    i += 1 + fraction;
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
  if (std::optional<json> integer = ResolveInteger(text)) return *std::move(integer);
  if (std::optional<json> number = ResolveFloat(text)) return *std::move(number);
  return text;
}

json ResolveScalar(const std::string& tag, const std::string& text) {
  if (tag == "?") return ResolvePlain(text);
  if (tag.starts_with(kTagPrefix)) {
    const std::string_view full_tag = tag;
    const std::string_view type = full_tag.substr(kTagPrefix.size());
    if (type == "null" || type == "bool" || type == "int" || type == "float") {
      json value = ResolvePlain(text);
      const bool matches =
          (type == "null" && value.is_null()) || (type == "bool" && value.is_boolean()) ||
          (type == "int" && value.is_number_integer()) || (type == "float" && value.is_number());
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

// Thrown by the builder to stop the parser at the first problem; caught in ParseYaml.
struct BuildError {
  std::string message;
};

// Builds one JSON value per YAML document straight from the parser's events (much cheaper than
// yaml-cpp's node tree). Anchored values are kept (with their node counts) for later aliases.
class JsonBuilder : public YAML::EventHandler {
 public:
  JsonBuilder(std::string_view source, size_t input_size)
      : source_(source),
        budget_(kBaseNodeBudget + kNodesPerInputByte * static_cast<int64_t>(input_size)) {}

  // The finished document (null when empty) and the line its root starts on.
  json TakeRoot() { return std::move(root_); }
  int root_line() const { return root_line_; }
  // Where the last null the parser reported was: yaml-cpp 0.7 answers some stray tokens (a ','
  // outside [ ] or { }) with an empty document that consumes nothing, again and again.
  const YAML::Mark& last_null() const { return last_null_; }

  void OnDocumentStart(const YAML::Mark& /*mark*/) override {
    root_ = nullptr;
    root_line_ = 0;
    stack_.clear();
    anchors_.clear();
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    last_null_ = mark;
    Add(mark, nullptr, anchor, 1);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (ExpectingKey()) {
      SetKey(mark, value);
      return;
    }
    Add(mark, ResolveScalar(tag, value), anchor, 1);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) Fail(mark, "unknown alias");
    if (ExpectingKey()) {
      if (!it->second.value.is_string()) Fail(mark, "mapping keys must be scalars");
      SetKey(mark, it->second.value.get<std::string>());
      return;
    }
    Add(mark, it->second.value, YAML::NullAnchor, it->second.nodes);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    Open(mark, json::array(), anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    Open(mark, json::object(), anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Frame {
    json* container = nullptr;
    YAML::anchor_t anchor = YAML::NullAnchor;
    int64_t first_node = 0;  // nodes_ when the container opened
    bool has_key = false;
    std::string key;
    YAML::Mark key_mark;
  };
  struct Anchored {
    json value;
    int64_t nodes = 0;
  };

  [[noreturn]] void Fail(const YAML::Mark& mark, std::string_view message) const {
    throw BuildError{fmt::format("{}: {}", Where(source_, mark), message)};
  }

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().container->is_object() && !stack_.back().has_key;
  }

  void SetKey(const YAML::Mark& mark, std::string key) {
    Frame& frame = stack_.back();
    if (frame.container->contains(key)) Fail(mark, fmt::format("duplicate key \"{}\"", key));
    frame.key = std::move(key);
    frame.key_mark = mark;
    frame.has_key = true;
  }

  void Count(const YAML::Mark& mark, int64_t nodes) {
    nodes_ += nodes;
    if (nodes_ > budget_) Fail(mark, "document expands to too many nodes");
  }

  // Places `value` in the open container (or as the root) and returns where it now lives.
  json* Place(const YAML::Mark& mark, json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      root_line_ = mark.is_null() ? 0 : mark.line + 1;
      return &root_;
    }
    Frame& frame = stack_.back();
    if (frame.container->is_array()) return &frame.container->emplace_back(std::move(value));
    if (!frame.has_key) Fail(mark, "mapping keys must be scalars");
    frame.has_key = false;
    json& slot = (*frame.container)[std::move(frame.key)];
    slot = std::move(value);
    return &slot;
  }

  void Add(const YAML::Mark& mark, json value, YAML::anchor_t anchor, int64_t nodes) {
    if (ExpectingKey() && value.is_null()) {
      SetKey(mark, std::string());
      return;
    }
    Count(mark, nodes);
    json* placed = Place(mark, std::move(value));
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchored{*placed, nodes};
  }

  void Open(const YAML::Mark& mark, json empty, YAML::anchor_t anchor) {
    if (ExpectingKey()) Fail(mark, "mapping keys must be scalars");
    if (stack_.size() >= static_cast<size_t>(kMaxDepth)) {
      Fail(mark, fmt::format("nesting deeper than {} levels", kMaxDepth));
    }
    Count(mark, 1);
    const int64_t first = nodes_;
    json* container = Place(mark, std::move(empty));
    Frame& frame = stack_.emplace_back();
    frame.container = container;
    frame.anchor = anchor;
    frame.first_node = first;
  }

  void Close() {
    const Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (frame.anchor != YAML::NullAnchor) {
      anchors_[frame.anchor] = Anchored{*frame.container, nodes_ - frame.first_node + 1};
    }
  }

  std::string_view source_;
  int64_t budget_;
  int64_t nodes_ = 0;
  json root_;
  int root_line_ = 0;
  YAML::Mark last_null_ = YAML::Mark::null_mark();
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
};

// A read-only stream over text, so the parser reads it in place.
class TextBuffer : public std::streambuf {
 public:
  explicit TextBuffer(std::string_view text) {
    // The buffer is only ever read; streambuf's interface takes non-const pointers.
    char* begin = const_cast<char*>(text.data());  // NOLINT(cppcoreguidelines-pro-type-const-cast)
    setg(begin, begin, begin + text.size());
  }
};

// Replaces `kind: List` (and typed lists such as PodList) by their items. Items of a typed list
// may omit kind and apiVersion (the API server leaves them out); they are filled in from the list.
void AppendExpanded(json value, int line, std::vector<Document>& out, int depth = 0) {
  if (value.is_object() && depth < kMaxDepth) {
    const auto kind = value.find("kind");
    const auto items = value.find("items");
    if (kind != value.end() && kind->is_string() && items != value.end() && items->is_array()) {
      const auto& list_kind = kind->get_ref<const std::string&>();
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
  std::vector<Document> documents;
  TextBuffer buffer(text);
  std::istream in(&buffer);
  try {
    YAML::Parser parser(in);
    JsonBuilder builder(source, text.size());
    std::optional<int> empty_at;  // where the last empty document ended
    while (parser.HandleNextDocument(builder)) {
      json root = builder.TakeRoot();
      if (root.is_null()) {
        // Two empty documents at one place: the parser is stuck on a token it cannot place.
        const YAML::Mark& at = builder.last_null();
        if (empty_at == at.pos && at.pos >= 0) {
          const size_t pos = static_cast<size_t>(at.pos);
          const char c = pos < text.size() ? text[pos] : ' ';
          return Error{fmt::format(
              "{}: YAML syntax error: unexpected {}", Where(source, at),
              c >= 0x21 && c < 0x7f ? fmt::format("'{}'", c) : std::string("character"))};
        }
        empty_at = at.pos;
        continue;
      }
      empty_at.reset();
      AppendExpanded(std::move(root), builder.root_line(), documents);
    }
  } catch (const BuildError& e) {
    return Error{e.message};
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("{}: YAML syntax error: {}", Where(source, e.mark), e.msg)};
  } catch (const std::exception& e) {
    return Error{fmt::format("{}: cannot parse YAML: {}", source, e.what())};
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

std::string JsonErrorReason(const Json::parse_error& e) {
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
    return c != '\'' && c != '-' && !std::isalpha(static_cast<unsigned char>(c)) && c != '.' &&
           c != '~' && c != '&' && c != '*' && c != '!';
  }
  return true;
}

}  // namespace

std::string NumberText(const Json& number) {
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

namespace {

// Builds the value RapidJSON's reader reports, as it reports it, leaving out the fields `drop`
// names (their values are read past, never built). RapidJSON reads several times faster than
// Json::parse, which dominated loading a large snapshot. For valid text the value is the
// one Json::parse gives: non-negative integers unsigned, negative ones signed, the rest
// doubles (exact: full-precision parsing); the last of duplicate keys wins.
class JsonSaxBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, JsonSaxBuilder> {
 public:
  explicit JsonSaxBuilder(const FieldFilter& drop) : drop_(drop) {}

  json TakeRoot() { return std::move(root_); }

  bool Null() { return Put(json(nullptr)); }
  bool Bool(bool value) { return Put(json(value)); }
  bool Int(int value) { return Put(json(static_cast<int64_t>(value))); }
  bool Uint(unsigned value) { return Put(json(static_cast<uint64_t>(value))); }
  bool Int64(int64_t value) { return Put(json(value)); }
  bool Uint64(uint64_t value) { return Put(json(value)); }
  bool Double(double value) { return Put(json(value)); }
  bool String(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    return Put(json(std::string(text, length)));
  }
  bool Key(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    if (skipping_ > 0) return true;
    key_.assign(text, length);
    skip_next_ = drop_ && drop_(stack_.back().parent, key_);
    return true;
  }
  bool StartObject() { return Open(json::object()); }
  bool StartArray() { return Open(json::array()); }
  bool EndObject(rapidjson::SizeType /*members*/) { return Close(); }
  bool EndArray(rapidjson::SizeType /*elements*/) { return Close(); }

 private:
  struct Frame {
    // Stays put while open: its parent grows only after it closes (an array's next element).
    json* container = nullptr;
    std::string parent;  // the key its own fields are held under, as FieldFilter names it
  };

  bool Put(json value) {
    if (skipping_ > 0) return true;
    if (skip_next_) {
      skip_next_ = false;
      return true;
    }
    Place(std::move(value));
    return true;
  }

  json* Place(json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& container = *stack_.back().container;
    if (container.is_array()) return &container.emplace_back(std::move(value));
    json& slot = container[key_];
    slot = std::move(value);
    return &slot;
  }

  bool Open(json empty) {
    if (skipping_ > 0 || skip_next_) {
      skip_next_ = false;
      ++skipping_;
      return true;
    }
    if (stack_.size() >= static_cast<size_t>(kMaxDepth)) return false;  // nlohmann takes over
    std::string parent;
    if (!stack_.empty()) {
      parent = stack_.back().container->is_array() ? stack_.back().parent : key_;
    }
    json* container = Place(std::move(empty));
    stack_.push_back({container, std::move(parent)});
    return true;
  }

  bool Close() {
    if (skipping_ > 0) {
      --skipping_;
    } else {
      stack_.pop_back();
    }
    return true;
  }

  const FieldFilter& drop_;
  json root_;
  std::vector<Frame> stack_;
  std::string key_;         // the key whose value comes next
  bool skip_next_ = false;  // that value is dropped
  int skipping_ = 0;        // how deep inside a dropped value the reader is
};

// ParseDocuments' `drop` for a document already built (YAML; JSON RapidJSON could not read).
void DropFields(json& value, std::string_view parent, const FieldFilter& drop, int depth = 0) {
  if (depth > kMaxDepth) return;
  if (value.is_array()) {
    for (json& item : value) DropFields(item, parent, drop, depth + 1);
    return;
  }
  if (!value.is_object()) return;
  for (auto it = value.begin(); it != value.end();) {
    if (drop(parent, it.key())) {
      it = value.erase(it);
    } else {
      DropFields(it.value(), it.key(), drop, depth + 1);
      ++it;
    }
  }
}

}  // namespace

Result<std::vector<Document>> ParseDocuments(std::string_view text, std::string_view source,
                                             const FieldFilter& drop) {
  size_t start = 0;
  if (text.starts_with("\xEF\xBB\xBF")) start = 3;  // UTF-8 byte order mark
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  if (LooksLikeJson(text.substr(start))) {
    const std::string_view body = text.substr(start);
    rapidjson::MemoryStream stream(body.data(), body.size());
    JsonSaxBuilder builder(drop);
    rapidjson::Reader reader;
    constexpr unsigned kFlags = rapidjson::kParseValidateEncodingFlag |
                                rapidjson::kParseFullPrecisionFlag | rapidjson::kParseIterativeFlag;
    try {
      json value;
      if (reader.Parse<kFlags>(stream, builder)) {
        value = builder.TakeRoot();
      } else {
        // What RapidJSON refuses, nlohmann explains (line, column, reason) — or reads: nesting
        // deeper than the builder goes.
        value = json::parse(body);
        if (drop) DropFields(value, "", drop);
      }
      std::vector<Document> documents;
      const int line = LineColumn(text, start).first;
      if (value.is_array()) {
        documents.reserve(value.size());
        for (json& item : value) AppendExpanded(std::move(item), line, documents);
      } else {
        AppendExpanded(std::move(value), line, documents);
      }
      return documents;
    } catch (const Json::parse_error& e) {
      const auto [line, column] = LineColumn(text, start + (e.byte > 0 ? e.byte - 1 : 0));
      return Error{
          fmt::format("{}:{}:{}: JSON syntax error: {}", source, line, column, JsonErrorReason(e))};
    } catch (const std::exception& e) {
      return Error{fmt::format("{}: cannot parse JSON: {}", source, e.what())};
    }
  }
  Result<std::vector<Document>> documents = ParseYaml(text, source);
  if (documents.ok() && drop) {
    for (Document& document : *documents) DropFields(document.value, "", drop);
  }
  return documents;
}

}  // namespace karpenter
