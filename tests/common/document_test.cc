#include "common/document.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "support/matchers.h"

namespace karpenter {
namespace {

using json = Json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<Document> Parse(std::string_view text) {
  Result<std::vector<Document>> documents = ParseDocuments(text, "test");
  EXPECT_THAT(documents, IsOk());
  return documents.ok() ? *std::move(documents) : std::vector<Document>{};
}

json ParseOne(std::string_view text) {
  std::vector<Document> documents = Parse(text);
  EXPECT_EQ(documents.size(), 1u);
  return documents.empty() ? json() : documents[0].value;
}

// JSON is read by RapidJSON; what it builds is what Json::parse builds, down to the
// kind of each number, and what it refuses nlohmann explains.
TEST(ParseDocumentsTest, JsonReadsAsNlohmannWould) {
  const std::vector<std::string_view> texts = {
      R"({"zero": 0, "minusZero": -0, "int": -42, "big": 9223372036854775807,
          "bigger": 18446744073709551615, "huge": 18446744073709551616,
          "least": -9223372036854775808, "half": 0.5, "exp": 1e3, "tiny": 4.9e-324,
          "precise": 0.30000000000000004, "t": true, "f": false, "n": null})",
      R"({"s": "\u00e9\ud83d\ude00 \"quoted\" \\ \/ \b\f\n\r\t", "empty": "", "o": {}, "a": [],
          "nested": [[1, [2, {"k": [3]}]], {"x": {"y": {"z": null}}}], "dup": 1, "dup": 2})",
      R"([{"kind": "Pod", "metadata": {"name": "a"}}, {"kind": "Pod", "metadata": {"name": "b"}}])",
      "{\"utf8\": \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}",
  };
  for (const std::string_view text : texts) {
    const std::vector<Document> documents = Parse(text);
    const json expected = json::parse(text);
    const std::vector<json> values = expected.is_array()
                                         ? std::vector<json>(expected.begin(), expected.end())
                                         : std::vector<json>{expected};
    ASSERT_EQ(documents.size(), values.size()) << text;
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(documents[i].value, values[i]) << text;
      EXPECT_EQ(documents[i].value.dump(), values[i].dump()) << text;  // number kinds too
    }
  }
  const json numbers = ParseOne(texts[0]);
  EXPECT_TRUE(numbers["zero"].is_number_unsigned());
  EXPECT_TRUE(numbers["int"].is_number_integer() && !numbers["int"].is_number_unsigned());
  EXPECT_TRUE(numbers["huge"].is_number_float());
  EXPECT_EQ(ParseOne(texts[1])["dup"], 2);  // the last of duplicate keys

  for (const std::string_view bad : {R"({"a": 1,})", R"({"a": 1} x)", "{\"a\": \"\xff\"}",
                                     R"({"a": "\ud800"})", "{\"a\": \"tab\there\"}", R"([1, 2)"}) {
    Result<std::vector<Document>> parsed = ParseDocuments(bad, "bad.json");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(parsed.error().message, StartsWith("bad.json:1:")) << bad;
    EXPECT_THAT(parsed.error().message, HasSubstr("JSON syntax error")) << bad;
  }
  Result<std::vector<Document>> overflow = ParseDocuments(R"({"a": 1e400})", "bad.json");
  ASSERT_FALSE(overflow.ok());
  EXPECT_THAT(overflow.error().message, StartsWith("bad.json: "));
  EXPECT_THAT(overflow.error().message, HasSubstr("1e400"));
}

// The filter sees each field with the key that holds its object (the array's key for an object
// in an array), in JSON as it parses and in YAML once a document is built.
TEST(ParseDocumentsTest, DroppedFieldsAreLeftOutByTheirParentKey) {
  const FieldFilter drop = [](std::string_view parent, std::string_view key) {
    return (parent == "containers" && key == "env") || (parent == "metadata" && key == "noise");
  };
  const std::string_view json_text = R"({"kind": "PodList", "apiVersion": "v1", "items": [
    {"metadata": {"name": "a", "noise": {"deep": [1, 2, {"env": 3}]}},
     "spec": {"containers": [{"name": "main", "env": [{"name": "X"}], "image": "app"}],
              "env": "kept: not a container's"}}]})";
  const std::string_view yaml_text = R"(kind: PodList
apiVersion: v1
items:
- metadata: {name: a, noise: {deep: [1, 2, {env: 3}]}}
  spec:
    containers: [{name: main, env: [{name: X}], image: app}]
    env: "kept: not a container's"
)";
  for (const std::string_view text : {json_text, yaml_text}) {
    Result<std::vector<Document>> documents = ParseDocuments(text, "list", drop);
    ASSERT_THAT(documents, IsOk());
    ASSERT_EQ(documents->size(), 1u);
    const json& pod = (*documents)[0].value;
    EXPECT_EQ(pod["metadata"], json({{"name", "a"}})) << text;
    EXPECT_EQ(pod["spec"]["containers"], json::parse(R"([{"name": "main", "image": "app"}])"));
    EXPECT_EQ(pod["spec"]["env"], "kept: not a container's");
    EXPECT_EQ(pod["kind"], "Pod");
  }
  // Without a filter nothing goes.
  EXPECT_EQ(ParseOne(json_text)["spec"]["containers"][0]["env"], json::parse(R"([{"name": "X"}])"));
}

TEST(ParseDocumentsTest, PlainScalarsResolveQuotedStayStrings) {
  const json value = ParseOne(R"(
t: true
f: False
n: null
tilde: ~
empty:
int: 42
negative: -7
plus: +3
hex: 0x1f
octal: 0o17
float: 1.5
exponent: 2e3
dot: .5
quoted-int: "42"
single-quoted: 'true'
yes: yes
version: v1.2
inf: .inf
folded: >
  text
tagged-string: !!str 12
tagged-int: !!int "12"
big: 123456789012345678901234567890
)");
  EXPECT_EQ(value["t"], true);
  EXPECT_EQ(value["f"], false);
  EXPECT_TRUE(value["n"].is_null());
  EXPECT_TRUE(value["tilde"].is_null());
  EXPECT_TRUE(value["empty"].is_null());
  EXPECT_EQ(value["int"], 42);
  EXPECT_EQ(value["negative"], -7);
  EXPECT_EQ(value["plus"], 3);
  EXPECT_EQ(value["hex"], 31);
  EXPECT_EQ(value["octal"], 15);
  EXPECT_EQ(value["float"], 1.5);
  EXPECT_EQ(value["exponent"], 2000.0);
  EXPECT_EQ(value["dot"], 0.5);
  EXPECT_EQ(value["quoted-int"], "42");
  EXPECT_EQ(value["single-quoted"], "true");
  EXPECT_EQ(value["yes"], "yes");
  EXPECT_EQ(value["version"], "v1.2");
  EXPECT_EQ(value["inf"], ".inf");
  EXPECT_EQ(value["folded"], "text\n");
  EXPECT_EQ(value["tagged-string"], "12");
  EXPECT_EQ(value["tagged-int"], 12);
  EXPECT_EQ(value["big"], "123456789012345678901234567890");
}

TEST(ParseDocumentsTest, MultipleDocumentsWithLines) {
  const std::vector<Document> documents = Parse("a: 1\n---\n---\n# nothing\n---\nb: 2\n...\n");
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0].value["a"], 1);
  EXPECT_EQ(documents[0].line, 1);
  EXPECT_EQ(documents[1].value["b"], 2);
  EXPECT_EQ(documents[1].line, 6);
}

TEST(ParseDocumentsTest, AnchorsAndAliases) {
  const json value = ParseOne("base: &b {cpu: 1}\ncopy: *b\n");
  EXPECT_EQ(value["copy"]["cpu"], 1);
}

TEST(ParseDocumentsTest, ListsExpand) {
  const std::vector<Document> documents = Parse(R"(
apiVersion: v1
kind: List
items:
  - {kind: Pod, metadata: {name: a}}
  - kind: NodeList
    apiVersion: v1
    items: [{metadata: {name: n}}]
)");
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0].value["kind"], "Pod");
  EXPECT_EQ(documents[1].value["kind"], "Node");
  EXPECT_EQ(documents[1].value["apiVersion"], "v1");
}

TEST(ParseDocumentsTest, JsonObjectsAndArrays) {
  EXPECT_EQ(ParseOne(R"(  {"kind": "Pod", "n": 1.25})")["n"], 1.25);
  const std::vector<Document> documents = Parse(R"([{"a": 1}, {"b": 2}])");
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[1].value["b"], 2);
  EXPECT_EQ(ParseOne("{kind: Pod}")["kind"], "Pod");  // flow-style YAML
}

TEST(ParseDocumentsTest, SyntaxErrorsNameSourceLineAndColumn) {
  Result<std::vector<Document>> yaml = ParseDocuments("a: 1\nb: [1, 2\n", "pools.yaml");
  ASSERT_FALSE(yaml.ok());
  EXPECT_THAT(yaml.error().message, StartsWith("pools.yaml:"));
  EXPECT_THAT(yaml.error().message, HasSubstr("YAML syntax error"));

  Result<std::vector<Document>> bad_json = ParseDocuments("{\"a\": 1,\n \"b\": }", "pods.json");
  ASSERT_FALSE(bad_json.ok());
  EXPECT_THAT(bad_json.error().message, StartsWith("pods.json:2:"));

  Result<std::vector<Document>> duplicate = ParseDocuments("a: 1\na: 2\n", "dup.yaml");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(duplicate.error().message, R"(dup.yaml:2:1: duplicate key "a")");
}

// yaml-cpp 0.7 answers a stray ',' in block context with an empty document that consumes nothing,
// forever (found by the manifest and user-data fuzzers); it is an error at that place instead.
TEST(ParseDocumentsTest, AStrayCommaIsAnErrorNotAHang) {
  for (const std::string_view text : {",\n", "a: 1\n,\n", "k:\n%e\n  ,x\n"}) {
    Result<std::vector<Document>> documents = ParseDocuments(text, "stray.yaml");
    ASSERT_FALSE(documents.ok()) << text;
    EXPECT_THAT(documents.error().message, StartsWith("stray.yaml:")) << text;
    EXPECT_THAT(documents.error().message, HasSubstr("YAML syntax error")) << text;
  }
  Result<std::vector<Document>> comma = ParseDocuments("\n,\n", "stray.yaml");
  ASSERT_FALSE(comma.ok());
  EXPECT_EQ(comma.error().message, "stray.yaml:2:1: YAML syntax error: unexpected ','");
  // Empty documents in a row are still fine.
  Result<std::vector<Document>> empty = ParseDocuments("---\n---\n---\na: 1\n", "empty.yaml");
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_EQ(empty->size(), 1U);
}

TEST(ParseDocumentsTest, AliasBombIsRefused) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    text += fmt::format("a{0}: &a{0} [", i);
    for (int j = 0; j < 10; ++j) text += fmt::format("{}*a{}", j > 0 ? ", " : "", i - 1);
    text += "]\n";
  }
  Result<std::vector<Document>> documents = ParseDocuments(text, "bomb.yaml");
  ASSERT_FALSE(documents.ok());
  EXPECT_THAT(documents.error().message, HasSubstr("too many nodes"));
}

TEST(NumberTextTest, RendersNumbersAsKubernetesWould) {
  EXPECT_EQ(NumberText(json(1000)), "1000");
  EXPECT_EQ(NumberText(json(-3)), "-3");
  EXPECT_EQ(NumberText(json(18446744073709551615ULL)), "18446744073709551615");
  EXPECT_EQ(NumberText(json(0.5)), "0.5");
  EXPECT_EQ(NumberText(json(1.1)), "1.1");
  EXPECT_EQ(NumberText(json(2000.0)), "2000");
  EXPECT_EQ(NumberText(json(1e21)), "1e+21");
  EXPECT_EQ(NumberText(json(0.0001)), "0.0001");
}

}  // namespace
}  // namespace karpenter
