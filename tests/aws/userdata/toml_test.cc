#include "aws/userdata/toml.h"

#include <gtest/gtest.h>

#include <ostream>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

const TomlValue& At(const TomlTable& table, const std::string& key) {
  static const TomlValue kMissing{std::string("<missing>")};
  const auto it = table.find(key);
  return it == table.end() ? kMissing : it->second;
}

TEST(TomlTest, ParsesTablesDottedKeysAndValues) {
  auto root = ParseToml(R"(# a comment
title = "top" # trailing comment
[settings.kubernetes]
cluster-name = "c\"1\"\u00e9"
max-pods = 1_10
ratio = 0.5
negative = -3
hex = 0xff
enabled = true
"quoted.key" = 'C:\literal'
labels.team = "ml"
ips = [
  "10.0.0.10", # first
  "10.0.0.11",
]
inline = { a = 1, b = { c = false } }
empty = []

[settings."host-containers".admin]
enabled = false
)");
  ASSERT_THAT(root, IsOk());
  EXPECT_EQ(std::get<std::string>(At(*root, "title").value), "top");
  const TomlTable* kubernetes = FindTomlTable(*root, {"settings", "kubernetes"});
  ASSERT_NE(kubernetes, nullptr);
  EXPECT_EQ(std::get<std::string>(At(*kubernetes, "cluster-name").value), "c\"1\"\xc3\xa9");
  EXPECT_EQ(std::get<int64_t>(At(*kubernetes, "max-pods").value), 110);
  EXPECT_DOUBLE_EQ(std::get<double>(At(*kubernetes, "ratio").value), 0.5);
  EXPECT_EQ(std::get<int64_t>(At(*kubernetes, "negative").value), -3);
  EXPECT_EQ(std::get<int64_t>(At(*kubernetes, "hex").value), 255);
  EXPECT_TRUE(std::get<bool>(At(*kubernetes, "enabled").value));
  EXPECT_EQ(std::get<std::string>(At(*kubernetes, "quoted.key").value), "C:\\literal");
  const TomlTable* labels = FindTomlTable(*kubernetes, {"labels"});
  ASSERT_NE(labels, nullptr);
  EXPECT_EQ(std::get<std::string>(At(*labels, "team").value), "ml");
  const auto& ips = std::get<TomlArray>(At(*kubernetes, "ips").value);
  ASSERT_EQ(ips.size(), 2u);
  EXPECT_EQ(std::get<std::string>(ips[1].value), "10.0.0.11");
  const TomlTable* inline_c = FindTomlTable(*kubernetes, {"inline", "b"});
  ASSERT_NE(inline_c, nullptr);
  EXPECT_FALSE(std::get<bool>(At(*inline_c, "c").value));
  EXPECT_TRUE(std::get<TomlArray>(At(*kubernetes, "empty").value).empty());
  const TomlTable* admin = FindTomlTable(*root, {"settings", "host-containers", "admin"});
  ASSERT_NE(admin, nullptr);
  EXPECT_FALSE(std::get<bool>(At(*admin, "enabled").value));
}

TEST(TomlTest, RendersSortedTablesThatParseBackEqual) {
  auto root = ParseToml(R"(
[b]
z = 1
a = "x\ty"
[a."needs quotes"]
list = [1, 2.5, "three", true]
[a]
inline = { k = "v" }
[empty]
)");
  ASSERT_THAT(root, IsOk());
  const std::string text = RenderToml(*root);
  EXPECT_EQ(text,
            "[a.inline]\n"
            "k = \"v\"\n"
            "\n"
            "[a.\"needs quotes\"]\n"
            "list = [1, 2.5, \"three\", true]\n"
            "\n"
            "[b]\n"
            "a = \"x\\ty\"\n"
            "z = 1\n"
            "\n"
            "[empty]\n");
  auto again = ParseToml(text);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(RenderToml(*again), text);
}

TEST(TomlTest, SubtableCreatesAndReplaces) {
  TomlTable root;
  root["settings"] = TomlValue{int64_t{1}};
  TomlSubtable(root, {"settings", "kubernetes"})["max-pods"] = TomlValue{int64_t{29}};
  const TomlTable* kubernetes = FindTomlTable(root, {"settings", "kubernetes"});
  ASSERT_NE(kubernetes, nullptr);
  EXPECT_EQ(std::get<int64_t>(At(*kubernetes, "max-pods").value), 29);
  EXPECT_EQ(FindTomlTable(root, {"settings", "nope"}), nullptr);
}

struct MalformedCase {
  const char* name;
  const char* text;
  const char* message;
};

std::ostream& operator<<(std::ostream& out, const MalformedCase& param) {
  return out << param.name;
}

class TomlMalformedTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(TomlMalformedTest, NamesTheLineAndTheProblem) {
  auto root = ParseToml(GetParam().text);
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.error().message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TomlMalformedTest,
    ::testing::Values(
        MalformedCase{"no_equals", "a = 1\nb 2\n", "line 2: expected '=' after key \"b\""},
        MalformedCase{"duplicate_key", "a = 1\na = 2\n", "line 2: duplicate key \"a\""},
        MalformedCase{"unclosed_header", "\n\n[settings\n",
                      "line 3: expected ']' after the table name"},
        MalformedCase{"unterminated_string", "x = \"open\n", "line 1: unterminated string"},
        MalformedCase{"no_value", "x =\n", "line 1: expected a value"},
        MalformedCase{"two_values", "x = 1 2\n", "line 1: unexpected '2' after a value"},
        MalformedCase{"bare_word", "x = yes\n", "line 1: invalid value \"yes\""},
        MalformedCase{"array_of_tables", "[[a]]\n",
                      "line 1: arrays of tables ([[...]]) are not supported"},
        MalformedCase{"multiline_string", "x = \"\"\"\nlong\n\"\"\"\n",
                      "line 1: multi-line strings are not supported"},
        MalformedCase{"date", "d = 1979-05-27\n",
                      "line 1: dates and times are not supported (\"1979-05-27\")"},
        MalformedCase{"value_then_table", "a = 1\n[a]\n",
                      "line 2: key \"a\" is already a value, not a table"},
        MalformedCase{"unterminated_array", "x = [1,\n2\n", "line 1: unterminated array"},
        MalformedCase{"bad_escape", "x = \"\\q\"\n", "line 1: unknown escape \"\\q\""}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) {
      return std::string(info.param.name);
    });

}  // namespace
}  // namespace karpenter::aws
