#include "kube/selector.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <utility>

namespace karpenter::kube {
namespace {

bool IsAlphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsLowerAlphanumeric(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?: the name part of qualified names, and label values.
bool IsQualifiedNamePart(std::string_view text) {
  return !text.empty() && IsAlphanumeric(text.front()) && IsAlphanumeric(text.back()) &&
         std::all_of(text.begin(), text.end(),
                     [](char c) { return IsAlphanumeric(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, without the length limit that DNS labels add.
bool IsLabelPattern(std::string_view text) {
  return !text.empty() && IsLowerAlphanumeric(text.front()) && IsLowerAlphanumeric(text.back()) &&
         std::all_of(text.begin(), text.end(),
                     [](char c) { return IsLowerAlphanumeric(c) || c == '-'; });
}

// --- label selectors -----------------------------------------------------------------------

enum class Token {
  kIdentifier,
  kComma,
  kOpen,
  kClose,
  kEquals,
  kDoubleEquals,
  kNotEquals,
  kNot,
  kGreater,
  kLess,
  kEnd,
};

struct Lexeme {
  Token token;
  std::string_view text;
};

bool IsSpecial(char c) {
  return c == ',' || c == '(' || c == ')' || c == '=' || c == '!' || c == '<' || c == '>';
}

// Splits a label selector into lexemes; an identifier is any run of characters that are neither
// whitespace nor special, as in the API server's lexer, so that keys and values are then
// validated with the label syntax's own messages.
class LabelLexer {
 public:
  explicit LabelLexer(std::string_view text) : text_(text) {}

  Lexeme Next() {
    while (at_ < text_.size() && IsSpace(text_[at_])) ++at_;
    if (at_ == text_.size()) return {Token::kEnd, "the end"};
    const size_t start = at_++;
    switch (text_[start]) {
      case ',':
        return {Token::kComma, ","};
      case '(':
        return {Token::kOpen, "("};
      case ')':
        return {Token::kClose, ")"};
      case '=':
        if (at_ < text_.size() && text_[at_] == '=') {
          ++at_;
          return {Token::kDoubleEquals, "=="};
        }
        return {Token::kEquals, "="};
      case '!':
        if (at_ < text_.size() && text_[at_] == '=') {
          ++at_;
          return {Token::kNotEquals, "!="};
        }
        return {Token::kNot, "!"};
      case '>':
        return {Token::kGreater, ">"};
      case '<':
        return {Token::kLess, "<"};
      default:
        break;
    }
    while (at_ < text_.size() && !IsSpace(text_[at_]) && !IsSpecial(text_[at_])) ++at_;
    return {Token::kIdentifier, text_.substr(start, at_ - start)};
  }

  Lexeme Peek() {
    const size_t saved = at_;
    const Lexeme lexeme = Next();
    at_ = saved;
    return lexeme;
  }

 private:
  std::string_view text_;
  size_t at_ = 0;
};

std::optional<int64_t> ParseInteger(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || at != end) return std::nullopt;
  return value;
}

// Errors below carry only the reason; Parse adds the selector text.
Error Found(const Lexeme& lexeme, std::string_view expected) {
  return Error(fmt::format("found '{}', expected {}", lexeme.text, expected));
}

Result<std::string> CheckedValue(std::string_view key, std::string_view value) {
  if (auto error = LabelValueError(value)) {
    return Error(fmt::format("invalid value \"{}\" for \"{}\": {}", value, key, *error));
  }
  return std::string(value);
}

// The parenthesised values after "in" or "notin". As on the server, a missing value between
// commas (or "()") stands for the empty value.
Result<std::vector<std::string>> ParseValues(LabelLexer& lexer, std::string_view key) {
  const Lexeme open = lexer.Next();
  if (open.token != Token::kOpen) return Found(open, "'(' before the values");
  std::vector<std::string> values;
  bool expect_value = true;
  while (true) {
    const Lexeme lexeme = lexer.Next();
    switch (lexeme.token) {
      case Token::kIdentifier: {
        if (!expect_value) return Found(lexeme, "',' or ')'");
        ASSIGN_OR_RETURN(std::string value, CheckedValue(key, lexeme.text));
        values.push_back(std::move(value));
        expect_value = false;
        break;
      }
      case Token::kComma:
        if (expect_value) values.emplace_back();
        expect_value = true;
        break;
      case Token::kClose:
        if (expect_value) values.emplace_back();
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        return values;
      default:
        return Found(lexeme, "a value, ',' or ')'");
    }
  }
}

Result<LabelRequirement> ParseRequirement(LabelLexer& lexer) {
  Lexeme first = lexer.Next();
  const bool negated = first.token == Token::kNot;
  if (negated) first = lexer.Next();
  if (first.token != Token::kIdentifier) return Found(first, "a label key");
  std::string key(first.text);
  if (auto error = LabelKeyError(key)) {
    return Error(fmt::format("invalid key \"{}\": {}", key, *error));
  }
  if (negated) return LabelRequirement{std::move(key), LabelOperator::kDoesNotExist, {}};

  const Lexeme op = lexer.Peek();
  if (op.token == Token::kEnd || op.token == Token::kComma) {
    return LabelRequirement{std::move(key), LabelOperator::kExists, {}};
  }
  lexer.Next();
  if (op.token == Token::kEquals || op.token == Token::kDoubleEquals ||
      op.token == Token::kNotEquals) {
    const LabelOperator equality =
        op.token == Token::kNotEquals ? LabelOperator::kNotEquals : LabelOperator::kEquals;
    // "a=" selects the empty value, like the server.
    const Lexeme value = lexer.Peek();
    if (value.token == Token::kEnd || value.token == Token::kComma) {
      return LabelRequirement{std::move(key), equality, {""}};
    }
    if (value.token != Token::kIdentifier) return Found(value, "a value");
    lexer.Next();
    ASSIGN_OR_RETURN(std::string checked, CheckedValue(key, value.text));
    return LabelRequirement{std::move(key), equality, {std::move(checked)}};
  }
  if (op.token == Token::kGreater || op.token == Token::kLess) {
    const Lexeme value = lexer.Next();
    if (value.token != Token::kIdentifier || !ParseInteger(value.text)) {
      return Found(value, fmt::format("an integer after \"{}\" {}", key, op.text));
    }
    return LabelRequirement{
        std::move(key),
        op.token == Token::kGreater ? LabelOperator::kGreaterThan : LabelOperator::kLessThan,
        {std::string(value.text)}};
  }
  if (op.token == Token::kIdentifier && (op.text == "in" || op.text == "notin")) {
    ASSIGN_OR_RETURN(std::vector<std::string> values, ParseValues(lexer, key));
    return LabelRequirement{std::move(key),
                            op.text == "in" ? LabelOperator::kIn : LabelOperator::kNotIn,
                            std::move(values)};
  }
  return Found(op, fmt::format("an operator (=, ==, !=, in, notin, >, <) after \"{}\"", key));
}

// The label `key` of `object`, or nullopt when it has none.
std::optional<std::string_view> LabelValue(const Object& object, const std::string& key) {
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return std::nullopt;
  const auto labels = metadata->find("labels");
  if (labels == metadata->end() || !labels->is_object()) return std::nullopt;
  const auto value = labels->find(key);
  if (value == labels->end() || !value->is_string()) return std::nullopt;
  return std::string_view(value->get_ref<const std::string&>());
}

bool Satisfies(const LabelRequirement& requirement, std::optional<std::string_view> value) {
  const auto listed = [&] {
    return std::find(requirement.values.begin(), requirement.values.end(), *value) !=
           requirement.values.end();
  };
  switch (requirement.op) {
    case LabelOperator::kEquals:
    case LabelOperator::kIn:
      return value.has_value() && listed();
    case LabelOperator::kNotEquals:
    case LabelOperator::kNotIn:
      return !value.has_value() || !listed();
    case LabelOperator::kExists:
      return value.has_value();
    case LabelOperator::kDoesNotExist:
      return !value.has_value();
    case LabelOperator::kGreaterThan:
    case LabelOperator::kLessThan: {
      // A value that is no integer satisfies neither, as on the server.
      const std::optional<int64_t> have = value ? ParseInteger(*value) : std::nullopt;
      const std::optional<int64_t> want = ParseInteger(requirement.values.front());
      if (!have || !want) return false;
      return requirement.op == LabelOperator::kGreaterThan ? *have > *want : *have < *want;
    }
  }
  return false;
}

Result<LabelRequirement> ExpressionRequirement(const Object& expression) {
  if (!expression.is_object()) return Error("matchExpressions entries must be objects");
  const Object key = expression.value("key", Object());
  const Object op = expression.value("operator", Object());
  const Object values = expression.value("values", Object::array());
  if (!key.is_string()) return Error("matchExpressions: key must be a string");
  if (!op.is_string()) return Error("matchExpressions: operator must be a string");
  if (!values.is_array() && !values.is_null()) {
    return Error("matchExpressions: values must be a list");
  }
  LabelRequirement requirement{key.get<std::string>(), LabelOperator::kIn, {}};
  if (auto error = LabelKeyError(requirement.key)) {
    return Error(fmt::format("invalid key \"{}\": {}", requirement.key, *error));
  }
  if (values.is_array()) {
    for (const Object& value : values) {
      if (!value.is_string()) return Error("matchExpressions: values must be strings");
      ASSIGN_OR_RETURN(std::string checked,
                       CheckedValue(requirement.key, value.get<std::string>()));
      requirement.values.push_back(std::move(checked));
    }
  }
  const std::string& name = op.get_ref<const std::string&>();
  if (name == "In" || name == "NotIn") {
    requirement.op = name == "In" ? LabelOperator::kIn : LabelOperator::kNotIn;
    if (requirement.values.empty()) {
      return Error(fmt::format("values must be given when the operator is {}", name));
    }
  } else if (name == "Exists" || name == "DoesNotExist") {
    requirement.op = name == "Exists" ? LabelOperator::kExists : LabelOperator::kDoesNotExist;
    if (!requirement.values.empty()) {
      return Error(fmt::format("values must be empty when the operator is {}", name));
    }
  } else {
    return Error(fmt::format("unknown operator \"{}\"", name));
  }
  return requirement;
}

// --- field selectors -----------------------------------------------------------------------

// Splits at commas that no backslash escapes; the escapes stay for Unescape.
std::vector<std::string_view> SplitTerms(std::string_view text) {
  std::vector<std::string_view> terms;
  size_t start = 0;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (text[i] == '\\') {
      escaped = true;
    } else if (text[i] == ',') {
      terms.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(text.substr(start));
  return terms;
}

Result<std::string> Unescape(std::string_view value) {
  std::string out;
  bool escaped = false;
  for (const char c : value) {
    if (escaped) {
      if (c != '\\' && c != ',' && c != '=') {
        return Error(fmt::format("invalid escape sequence \"\\{}\"", c));
      }
      out.push_back(c);
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '=' || c == ',') {
      return Error(fmt::format("unescaped '{}' in the value \"{}\"", c, value));
    } else {
      out.push_back(c);
    }
  }
  if (escaped) return Error(fmt::format("the value \"{}\" ends with a lone '\\'", value));
  return out;
}

// Where the first operator of a term is, and which: the leftmost decides, so "a!=b" is
// a != b, not "a!" = b. The operator is empty when the term has none.
std::pair<size_t, std::string_view> FindOperator(std::string_view term) {
  for (size_t at = 0; at < term.size(); ++at) {
    for (const std::string_view op : {"!=", "==", "="}) {
      if (term.substr(at).starts_with(op)) return {at, op};
    }
  }
  return {term.size(), {}};
}

std::string FieldText(const Object& object, std::string_view path) {
  const Object* at = &object;
  while (true) {
    const size_t dot = path.find('.');
    const std::string_view segment = path.substr(0, dot);
    if (!at->is_object()) return "";
    const auto member = at->find(segment);
    if (member == at->end()) return "";
    at = &*member;
    if (dot == std::string_view::npos) break;
    path.remove_prefix(dot + 1);
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_null()) return "";
  return at->dump();
}

}  // namespace

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelLexer lexer(text);
  std::vector<LabelRequirement> requirements;
  const auto fail = [&](const Error& error) {
    return Error(fmt::format("invalid label selector \"{}\": {}", text, error.message));
  };
  if (lexer.Peek().token == Token::kEnd) return LabelSelector();
  while (true) {
    Result<LabelRequirement> requirement = ParseRequirement(lexer);
    if (!requirement.ok()) return fail(requirement.error());
    requirements.push_back(std::move(requirement).value());
    const Lexeme next = lexer.Next();
    if (next.token == Token::kEnd) break;
    if (next.token != Token::kComma) return fail(Found(next, "',' or the end"));
  }
  return LabelSelector(std::move(requirements));
}

Result<LabelSelector> LabelSelector::FromObject(const Object& selector) {
  const auto fail = [&](const Error& error) {
    return Error(fmt::format("invalid label selector {}: {}", selector.dump(), error.message));
  };
  if (!selector.is_object()) return fail(Error("a label selector must be a JSON object"));
  std::vector<LabelRequirement> requirements;
  const Object match_labels = selector.value("matchLabels", Object::object());
  if (!match_labels.is_object() && !match_labels.is_null()) {
    return fail(Error("matchLabels must map keys to values"));
  }
  if (match_labels.is_object()) {
    for (const auto& [key, value] : match_labels.items()) {
      if (!value.is_string()) return fail(Error("matchLabels values must be strings"));
      if (auto error = LabelKeyError(key)) {
        return fail(Error(fmt::format("invalid key \"{}\": {}", key, *error)));
      }
      Result<std::string> checked = CheckedValue(key, value.get<std::string>());
      if (!checked.ok()) return fail(checked.error());
      requirements.push_back({key, LabelOperator::kEquals, {std::move(checked).value()}});
    }
  }
  const Object expressions = selector.value("matchExpressions", Object::array());
  if (!expressions.is_array() && !expressions.is_null()) {
    return fail(Error("matchExpressions must be a list"));
  }
  if (expressions.is_array()) {
    for (const Object& expression : expressions) {
      Result<LabelRequirement> requirement = ExpressionRequirement(expression);
      if (!requirement.ok()) return fail(requirement.error());
      requirements.push_back(std::move(requirement).value());
    }
  }
  return LabelSelector(std::move(requirements));
}

bool LabelSelector::Matches(const Object& object) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const LabelRequirement& requirement) {
                       return Satisfies(requirement, LabelValue(object, requirement.key));
                     });
}

Result<FieldSelector> FieldSelector::Parse(std::string_view text) {
  const auto fail = [&](std::string reason) {
    return Error(fmt::format("invalid field selector \"{}\": {}", text, reason));
  };
  FieldSelector selector;
  for (const std::string_view raw : SplitTerms(text)) {
    const std::string_view term = Trim(raw);
    if (term.empty()) continue;
    const auto [at, op] = FindOperator(term);
    if (op.empty()) return fail(fmt::format("\"{}\" has no operator (=, ==, !=)", term));
    const std::string_view path = Trim(term.substr(0, at));
    if (path.empty()) return fail(fmt::format("\"{}\" names no field", term));
    Result<std::string> value = Unescape(Trim(term.substr(at + op.size())));
    if (!value.ok()) return fail(value.error().message);
    selector.requirements_.push_back(
        {std::string(path), op == "!=" ? FieldOperator::kNotEquals : FieldOperator::kEquals,
         std::move(value).value()});
  }
  return selector;
}

bool FieldSelector::Matches(const Object& object) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const FieldRequirement& requirement) {
                       const bool equal = FieldText(object, requirement.path) == requirement.value;
                       return requirement.op == FieldOperator::kEquals ? equal : !equal;
                     });
}

std::optional<std::string> LabelKeyError(std::string_view key) {
  const size_t slash = key.find('/');
  std::string_view name = key;
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      return "a qualified name has at most one '/', between a DNS subdomain prefix and the name";
    }
    const std::string_view prefix = key.substr(0, slash);
    if (prefix.empty()) return "the prefix before '/' must not be empty";
    if (auto error = DnsSubdomainError(prefix)) return "the prefix " + *error;
    name = key.substr(slash + 1);
  }
  if (name.empty()) return "the name part must not be empty";
  if (name.size() > 63) return "the name part must be no more than 63 characters";
  if (!IsQualifiedNamePart(name)) {
    return "the name part must consist of alphanumeric characters, '-', '_' or '.', and must "
           "start and end with an alphanumeric character";
  }
  return std::nullopt;
}

std::optional<std::string> LabelValueError(std::string_view value) {
  if (value.size() > 63) return "must be no more than 63 characters";
  if (!value.empty() && !IsQualifiedNamePart(value)) {
    return "a label value must be empty or consist of alphanumeric characters, '-', '_' or '.', "
           "and must start and end with an alphanumeric character";
  }
  return std::nullopt;
}

std::optional<std::string> DnsSubdomainError(std::string_view name) {
  if (name.size() > 253) return "must be no more than 253 characters";
  bool valid = !name.empty();
  for (std::string_view rest = name; valid;) {
    const size_t dot = rest.find('.');
    valid = IsLabelPattern(rest.substr(0, dot));
    if (dot == std::string_view::npos) break;
    rest.remove_prefix(dot + 1);
  }
  if (!valid) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com')";
  }
  return std::nullopt;
}

std::optional<std::string> DnsLabelError(std::string_view name) {
  if (name.size() > 63) return "must be no more than 63 characters";
  if (!IsLabelPattern(name)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
           "'-', and must start and end with an alphanumeric character (e.g. 'my-name')";
  }
  return std::nullopt;
}

}  // namespace karpenter::kube
