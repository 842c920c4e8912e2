#include "aws/userdata/toml.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "fmt/format.h"

namespace karpenter::aws {
namespace {

bool IsBareKeyChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

void AppendUtf8(uint32_t code, std::string& out) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xe0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<TomlTable> Run() {
    TomlTable* current = &root_;
    while (!AtEnd()) {
      SkipSpaces();
      if (AtEnd()) break;
      const char c = Peek();
      if (c == '\n' || c == '\r' || c == '#') {
        RETURN_IF_ERROR(EndOfLine());
        continue;
      }
      if (c == '[') {
        auto table = ParseHeader();
        if (!table.ok()) return table.error();
        current = *table;
      } else {
        RETURN_IF_ERROR(ParseKeyValue(*current));
      }
      RETURN_IF_ERROR(EndOfLine());
    }
    return std::move(root_);
  }

 private:
  Error Fail(std::string_view message) const { return FailAt(line_, message); }
  static Error FailAt(int line, std::string_view message) {
    return Error{fmt::format("line {}: {}", line, message)};
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void Advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
  void SkipSpaces() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t')) Advance();
  }
  // Spaces, line breaks and comments: the filler allowed between array elements.
  void SkipFiller() {
    while (!AtEnd()) {
      const char c = Peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        Advance();
      } else if (c == '#') {
        while (!AtEnd() && Peek() != '\n') Advance();
      } else {
        return;
      }
    }
  }
  // After a statement: spaces, an optional comment, then a line break or the end.
  Status EndOfLine() {
    SkipSpaces();
    if (!AtEnd() && Peek() == '#') {
      while (!AtEnd() && Peek() != '\n') Advance();
    }
    if (!AtEnd() && Peek() == '\r') Advance();
    if (AtEnd()) return {};
    if (Peek() != '\n') return Fail(fmt::format("unexpected '{}' after a value", Peek()));
    Advance();
    return {};
  }

  Result<std::string> ParseKeyPart() {
    if (Peek() == '"') return ParseBasicString();
    if (Peek() == '\'') return ParseLiteralString();
    std::string key;
    while (!AtEnd() && IsBareKeyChar(Peek())) {
      key += Peek();
      Advance();
    }
    if (key.empty()) {
      if (AtEnd() || Peek() == '\n') return Fail("expected a key");
      return Fail(fmt::format("expected a key, found '{}'", Peek()));
    }
    return key;
  }

  Result<std::vector<std::string>> ParseKey() {
    std::vector<std::string> parts;
    for (;;) {
      SkipSpaces();
      auto part = ParseKeyPart();
      if (!part.ok()) return part.error();
      parts.push_back(std::move(*part));
      SkipSpaces();
      if (Peek() != '.') return parts;
      Advance();
    }
  }

  // The table at `path` under `table`, created when missing; an Error when a value is in the way.
  Result<TomlTable*> Descend(TomlTable* table, const std::vector<std::string>& path, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      auto [it, inserted] = table->try_emplace(path[i], TomlValue{TomlTable{}});
      if (!it->second.IsTable()) {
        return Fail(fmt::format("key \"{}\" is already a value, not a table", path[i]));
      }
      table = &it->second.table();
    }
    return table;
  }

  Result<TomlTable*> ParseHeader() {
    Advance();  // '['
    if (Peek() == '[') return Fail("arrays of tables ([[...]]) are not supported");
    auto key = ParseKey();
    if (!key.ok()) return key.error();
    if (Peek() != ']') return Fail("expected ']' after the table name");
    Advance();
    return Descend(&root_, *key, key->size());
  }

  Status ParseKeyValue(TomlTable& table) {
    auto key = ParseKey();
    if (!key.ok()) return key.error();
    if (Peek() != '=') return Fail(fmt::format("expected '=' after key \"{}\"", key->back()));
    Advance();
    SkipSpaces();
    auto value = ParseValue();
    if (!value.ok()) return value.error();
    auto parent = Descend(&table, *key, key->size() - 1);
    if (!parent.ok()) return parent.error();
    if (!(*parent)->try_emplace(key->back(), std::move(*value)).second) {
      return Fail(fmt::format("duplicate key \"{}\"", key->back()));
    }
    return {};
  }

  Result<std::string> ParseBasicString() {
    if (text_.substr(pos_, 3) == "\"\"\"") return Fail("multi-line strings are not supported");
    Advance();  // '"'
    std::string out;
    for (;;) {
      if (AtEnd() || Peek() == '\n') return Fail("unterminated string");
      const char c = Peek();
      Advance();
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (AtEnd()) return Fail("unterminated string");
      const char escape = Peek();
      Advance();
      switch (escape) {
        case 'b':
          out += '\b';
          break;
        case 't':
          out += '\t';
          break;
        case 'n':
          out += '\n';
          break;
        case 'f':
          out += '\f';
          break;
        case 'r':
          out += '\r';
          break;
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case 'u':
        case 'U': {
          const size_t digits = escape == 'u' ? 4 : 8;
          if (pos_ + digits > text_.size()) return Fail("short unicode escape");
          uint32_t code = 0;
          const char* begin = text_.data() + pos_;
          const auto [end, error] = std::from_chars(begin, begin + digits, code, 16);
          if (error != std::errc() || end != begin + digits) return Fail("bad unicode escape");
          for (size_t i = 0; i < digits; ++i) Advance();
          AppendUtf8(code, out);
          break;
        }
        default:
          return Fail(fmt::format("unknown escape \"\\{}\"", escape));
      }
    }
  }

  Result<std::string> ParseLiteralString() {
    if (text_.substr(pos_, 3) == "'''") return Fail("multi-line strings are not supported");
    Advance();  // '\''
    std::string out;
    for (;;) {
      if (AtEnd() || Peek() == '\n') return Fail("unterminated string");
      const char c = Peek();
      Advance();
      if (c == '\'') return out;
      out += c;
    }
  }

  Result<TomlValue> ParseArray() {
    const int start_line = line_;
    Advance();  // '['
    TomlArray array;
    for (;;) {
      SkipFiller();
      if (AtEnd()) return FailAt(start_line, "unterminated array");
      if (Peek() == ']') break;
      auto value = ParseValue();
      if (!value.ok()) return value.error();
      array.push_back(std::move(*value));
      SkipFiller();
      if (AtEnd()) return FailAt(start_line, "unterminated array");
      if (Peek() == ',') {
        Advance();
        continue;
      }
      if (Peek() != ']') return Fail("expected ',' or ']' in an array");
      break;
    }
    Advance();  // ']'
    return TomlValue{std::move(array)};
  }

  Result<TomlValue> ParseInlineTable() {
    Advance();  // '{'
    TomlTable table;
    SkipSpaces();
    if (Peek() == '}') {
      Advance();
      return TomlValue{std::move(table)};
    }
    for (;;) {
      RETURN_IF_ERROR(ParseKeyValue(table));
      SkipSpaces();
      if (Peek() == ',') {
        Advance();
        continue;
      }
      if (Peek() != '}') return Fail("expected ',' or '}' in an inline table");
      Advance();
      return TomlValue{std::move(table)};
    }
  }

  Result<TomlValue> ParseScalar() {
    std::string token;
    while (!AtEnd() && (IsBareKeyChar(Peek()) || Peek() == '+' || Peek() == '.' || Peek() == ':')) {
      token += Peek();
      Advance();
    }
    if (token.empty()) {
      if (AtEnd() || Peek() == '\n' || Peek() == '\r') return Fail("expected a value");
      return Fail(fmt::format("expected a value, found '{}'", Peek()));
    }
    if (token == "true") return TomlValue{true};
    if (token == "false") return TomlValue{false};
    if (token == "inf" || token == "+inf") return TomlValue{HUGE_VAL};
    if (token == "-inf") return TomlValue{-HUGE_VAL};
    if (token == "nan" || token == "+nan" || token == "-nan") return TomlValue{std::nan("")};
    if (token.find(':') != std::string::npos ||
        (token.size() >= 5 && token[4] == '-' &&
         std::isdigit(static_cast<unsigned char>(token[0])))) {
      return Fail(fmt::format("dates and times are not supported (\"{}\")", token));
    }
    std::string digits;
    std::copy_if(token.begin(), token.end(), std::back_inserter(digits),
                 [](char c) { return c != '_'; });
    const bool negative = !digits.empty() && digits[0] == '-';
    std::string_view body = digits;
    if (!body.empty() && (body[0] == '-' || body[0] == '+')) body.remove_prefix(1);
    int base = 10;
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
      base = body[1] == 'x' ? 16 : body[1] == 'o' ? 8 : 2;
      body.remove_prefix(2);
    }
    const bool is_float = base == 10 && body.find_first_of(".eE") != std::string_view::npos;
    if (!is_float) {
      int64_t number = 0;
      const auto [end, error] =
          std::from_chars(body.data(), body.data() + body.size(), number, base);
      if (error != std::errc() || end != body.data() + body.size() || body.empty()) {
        return Fail(fmt::format("invalid value \"{}\"", token));
      }
      return TomlValue{negative ? -number : number};
    }
    char* end = nullptr;
    const double number = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size()) {
      return Fail(fmt::format("invalid value \"{}\"", token));
    }
    return TomlValue{number};
  }

  Result<TomlValue> ParseValue() {
    switch (Peek()) {
      case '"': {
        auto text = ParseBasicString();
        if (!text.ok()) return text.error();
        return TomlValue{std::move(*text)};
      }
      case '\'': {
        auto text = ParseLiteralString();
        if (!text.ok()) return text.error();
        return TomlValue{std::move(*text)};
      }
      case '[':
        return ParseArray();
      case '{':
        return ParseInlineTable();
      default:
        return ParseScalar();
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  TomlTable root_;
};

std::string QuoteString(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string RenderKey(std::string_view key) {
  if (!key.empty() && std::all_of(key.begin(), key.end(), IsBareKeyChar)) return std::string(key);
  return QuoteString(key);
}

std::string RenderValue(const TomlValue& value) {
  struct Visitor {
    std::string operator()(const std::string& text) const { return QuoteString(text); }
    std::string operator()(int64_t number) const { return std::to_string(number); }
    std::string operator()(double number) const {
      if (std::isnan(number)) return "nan";
      if (std::isinf(number)) return number > 0 ? "inf" : "-inf";
      std::string text = fmt::format("{}", number);
      if (text.find_first_of(".e") == std::string::npos) text += ".0";
      return text;
    }
    std::string operator()(bool flag) const { return flag ? "true" : "false"; }
    std::string operator()(const TomlArray& array) const {
      std::string out = "[";
      for (size_t i = 0; i < array.size(); ++i) {
        if (i > 0) out += ", ";
        out += RenderValue(array[i]);
      }
      return out + "]";
    }
    std::string operator()(const TomlTable& table) const {
      if (table.empty()) return "{}";
      std::string out = "{ ";
      bool first = true;
      for (const auto& [key, item] : table) {
        if (!first) out += ", ";
        first = false;
        out += RenderKey(key) + " = " + RenderValue(item);
      }
      return out + " }";
    }
  };
  return std::visit(Visitor{}, value.value);
}

void RenderTable(const TomlTable& table, const std::string& path, std::string& out) {
  const bool has_values = std::any_of(table.begin(), table.end(),
                                      [](const auto& entry) { return !entry.second.IsTable(); });
  if (!path.empty() && (has_values || table.empty())) {
    if (!out.empty()) out += '\n';
    out += "[" + path + "]\n";
  }
  for (const auto& [key, value] : table) {
    if (!value.IsTable()) out += RenderKey(key) + " = " + RenderValue(value) + "\n";
  }
  for (const auto& [key, value] : table) {
    if (value.IsTable()) {
      RenderTable(value.table(), path.empty() ? RenderKey(key) : path + "." + RenderKey(key), out);
    }
  }
}

}  // namespace

Result<TomlTable> ParseToml(std::string_view text) { return Parser(text).Run(); }

TomlTable& TomlSubtable(TomlTable& root, const std::vector<std::string>& path) {
  TomlTable* table = &root;
  for (const std::string& key : path) {
    TomlValue& value = (*table)[key];
    if (!value.IsTable()) value.value = TomlTable{};
    table = &value.table();
  }
  return *table;
}

const TomlTable* FindTomlTable(const TomlTable& root, const std::vector<std::string>& path) {
  const TomlTable* table = &root;
  for (const std::string& key : path) {
    const auto it = table->find(key);
    if (it == table->end() || !it->second.IsTable()) return nullptr;
    table = &it->second.table();
  }
  return table;
}

std::string RenderToml(const TomlTable& root) {
  std::string out;
  RenderTable(root, "", out);
  return out;
}

}  // namespace karpenter::aws
