#pragma once
// The subset of TOML that Bottlerocket settings use: tables and dotted keys, basic and literal
// strings, integers, floats, booleans, arrays and inline tables. Enough to merge a user's settings
// with ours and write them back out in a stable order.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/result.h"

namespace karpenter::aws {

struct TomlValue;
using TomlTable = std::map<std::string, TomlValue, std::less<>>;
using TomlArray = std::vector<TomlValue>;

struct TomlValue {
  std::variant<std::string, int64_t, double, bool, TomlArray, TomlTable> value;

  bool IsTable() const { return std::holds_alternative<TomlTable>(value); }
  TomlTable& table() { return std::get<TomlTable>(value); }
  const TomlTable& table() const { return std::get<TomlTable>(value); }
};

// The document's root table. Errors name the line ("line 3: expected '=' after key \"a\"").
// Arrays of tables ([[x]]), multi-line strings and dates are not supported (an Error says so).
Result<TomlTable> ParseToml(std::string_view text);

// The table at `path` under `root`, created (with any missing parents) when absent. A non-table
// value on the way is replaced by a table.
TomlTable& TomlSubtable(TomlTable& root, const std::vector<std::string>& path);
// The table at `path`, or nullptr.
const TomlTable* FindTomlTable(const TomlTable& root, const std::vector<std::string>& path);

// `root` as TOML: each table's plain keys under its [header], sub-tables after them, all sorted.
std::string RenderToml(const TomlTable& root);

}  // namespace karpenter::aws
