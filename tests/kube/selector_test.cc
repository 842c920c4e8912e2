#include "kube/selector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/matchers.h"
#include "support/param_name.h"

namespace karpenter::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Object WithLabels(const Object& labels) { return {{"metadata", {{"labels", labels}}}}; }

const Object& WebPod() {
  static const Object pod =
      WithLabels({{"app", "web"}, {"tier", "front"}, {"empty", ""}, {"replicas", "3"}});
  return pod;
}

TEST(LabelSelector, ParsesEveryOperator) {
  const Result<LabelSelector> selector =
      LabelSelector::Parse("a=b, c==d,e!=f, g in (y,x), h notin (z), i, !j, k>1, l < -2");
  ASSERT_THAT(selector, IsOk());
  EXPECT_THAT(selector->requirements(),
              ElementsAre(LabelRequirement{"a", LabelOperator::kEquals, {"b"}},
                          LabelRequirement{"c", LabelOperator::kEquals, {"d"}},
                          LabelRequirement{"e", LabelOperator::kNotEquals, {"f"}},
                          LabelRequirement{"g", LabelOperator::kIn, {"x", "y"}},
                          LabelRequirement{"h", LabelOperator::kNotIn, {"z"}},
                          LabelRequirement{"i", LabelOperator::kExists, {}},
                          LabelRequirement{"j", LabelOperator::kDoesNotExist, {}},
                          LabelRequirement{"k", LabelOperator::kGreaterThan, {"1"}},
                          LabelRequirement{"l", LabelOperator::kLessThan, {"-2"}}));
}

TEST(LabelSelector, ToleratesWhitespaceAndPrefixedKeys) {
  const Result<LabelSelector> selector =
      LabelSelector::Parse("  karpenter.sh/nodepool  =  default ,app in(web,db)  ");
  ASSERT_THAT(selector, IsOk());
  EXPECT_THAT(
      selector->requirements(),
      ElementsAre(LabelRequirement{"karpenter.sh/nodepool", LabelOperator::kEquals, {"default"}},
                  LabelRequirement{"app", LabelOperator::kIn, {"db", "web"}}));
}

TEST(LabelSelector, EmptyValuesAreValues) {
  const Result<LabelSelector> equals = LabelSelector::Parse("empty=");
  ASSERT_THAT(equals, IsOk());
  EXPECT_THAT(equals->requirements(),
              ElementsAre(LabelRequirement{"empty", LabelOperator::kEquals, {""}}));
  const Result<LabelSelector> in = LabelSelector::Parse("a in (x,)");
  ASSERT_THAT(in, IsOk());
  EXPECT_THAT(in->requirements(),
              ElementsAre(LabelRequirement{"a", LabelOperator::kIn, {"", "x"}}));
}

TEST(LabelSelector, EmptySelectsEverything) {
  for (const char* text : {"", "   "}) {
    const Result<LabelSelector> selector = LabelSelector::Parse(text);
    ASSERT_THAT(selector, IsOk());
    EXPECT_TRUE(selector->requirements().empty());
    EXPECT_TRUE(selector->Matches(WebPod()));
    EXPECT_TRUE(selector->Matches(Object::object()));
  }
}

struct MatchCase {
  const char* selector;
  bool matches;
};

class LabelSelectorMatch : public ::testing::TestWithParam<MatchCase> {};

TEST_P(LabelSelectorMatch, AgainstTheWebPod) {
  const Result<LabelSelector> selector = LabelSelector::Parse(GetParam().selector);
  ASSERT_THAT(selector, IsOk());
  EXPECT_EQ(selector->Matches(WebPod()), GetParam().matches);
}

INSTANTIATE_TEST_SUITE_P(
    All, LabelSelectorMatch,
    ::testing::Values(MatchCase{"app=web", true}, MatchCase{"app=db", false},
                      MatchCase{"app!=db", true}, MatchCase{"missing!=x", true},
                      MatchCase{"app in (db,web)", true}, MatchCase{"app in (db)", false},
                      MatchCase{"missing in (x)", false}, MatchCase{"app notin (db)", true},
                      MatchCase{"missing notin (x)", true}, MatchCase{"tier", true},
                      MatchCase{"missing", false}, MatchCase{"!missing", true},
                      MatchCase{"!tier", false}, MatchCase{"empty=", true},
                      MatchCase{"missing=", false}, MatchCase{"app=web,tier=back", false},
                      MatchCase{"app=web,tier=front", true}, MatchCase{"replicas>2", true},
                      MatchCase{"replicas>3", false}, MatchCase{"replicas<4", true},
                      MatchCase{"missing<4", false}, MatchCase{"app>1", false}),
    ::karpenter::ReadableParamName());

TEST(LabelSelector, ErrorsNameTheSelectorAndTheReason) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"app in (web", "expected a value, ',' or ')'"},
      {"app in web", "expected '(' before the values"},
      {"app=web,", "expected a label key"},
      {"app web", "expected an operator"},
      {"=web", "expected a label key"},
      {"app=web tier=x", "expected ',' or the end"},
      {"replicas>x", "expected an integer after \"replicas\" >"},
      {"replicas<", "expected an integer"},
      {"Bad Key=x", "expected an operator"},
      {"-bad=x", "invalid key \"-bad\""},
      {"a/b/c=x", "at most one '/'"},
      {"app=-web", "invalid value \"-web\""},
      {"!!app", "expected a label key"},
  };
  for (const auto& [text, reason] : cases) {
    const Result<LabelSelector> selector = LabelSelector::Parse(text);
    ASSERT_FALSE(selector.ok()) << text;
    EXPECT_THAT(selector.error().message, HasSubstr(std::string("\"") + text + "\"")) << text;
    EXPECT_THAT(selector.error().message, HasSubstr(reason)) << text;
  }
}

TEST(LabelSelector, FromObjectReadsMatchLabelsAndExpressions) {
  const Result<LabelSelector> selector = LabelSelector::FromObject({
      {"matchLabels", {{"app", "web"}}},
      {"matchExpressions",
       {{{"key", "tier"}, {"operator", "In"}, {"values", {"front", "back"}}},
        {{"key", "legacy"}, {"operator", "DoesNotExist"}}}},
  });
  ASSERT_THAT(selector, IsOk());
  EXPECT_TRUE(selector->Matches(WebPod()));
  EXPECT_FALSE(selector->Matches(WithLabels({{"app", "web"}, {"tier", "middle"}})));
  ASSERT_THAT(LabelSelector::FromObject(Object::object()), IsOk());
  EXPECT_TRUE(LabelSelector::FromObject(Object::object())->Matches(WebPod()));
}

TEST(LabelSelector, FromObjectRefusesMalformedExpressions) {
  EXPECT_FALSE(
      LabelSelector::FromObject({{"matchExpressions", {{{"key", "a"}, {"operator", "In"}}}}}).ok());
  EXPECT_FALSE(
      LabelSelector::FromObject(
          {{"matchExpressions", {{{"key", "a"}, {"operator", "Exists"}, {"values", {"x"}}}}}})
          .ok());
  EXPECT_FALSE(
      LabelSelector::FromObject({{"matchExpressions", {{{"key", "a"}, {"operator", "Gt"}}}}}).ok());
  EXPECT_FALSE(LabelSelector::FromObject({{"matchLabels", {{"a", 1}}}}).ok());
  EXPECT_FALSE(LabelSelector::FromObject("app=web").ok());
}

Object Pod() {
  return {{"metadata", {{"name", "web-1"}, {"namespace", "default"}}},
          {"spec", {{"nodeName", "node-1"}, {"priority", 7}, {"hostNetwork", false}}},
          {"status", {{"phase", "Running"}}}};
}

TEST(FieldSelector, ParsesAndMatchesDottedPaths) {
  const Result<FieldSelector> selector =
      FieldSelector::Parse("spec.nodeName=node-1, metadata.name!=x,status.phase==Running");
  ASSERT_THAT(selector, IsOk());
  EXPECT_THAT(selector->requirements(),
              ElementsAre(FieldRequirement{"spec.nodeName", FieldOperator::kEquals, "node-1"},
                          FieldRequirement{"metadata.name", FieldOperator::kNotEquals, "x"},
                          FieldRequirement{"status.phase", FieldOperator::kEquals, "Running"}));
  EXPECT_TRUE(selector->Matches(Pod()));
}

struct FieldCase {
  const char* selector;
  bool matches;
};

class FieldSelectorMatch : public ::testing::TestWithParam<FieldCase> {};

TEST_P(FieldSelectorMatch, AgainstThePod) {
  const Result<FieldSelector> selector = FieldSelector::Parse(GetParam().selector);
  ASSERT_THAT(selector, IsOk());
  EXPECT_EQ(selector->Matches(Pod()), GetParam().matches);
}

INSTANTIATE_TEST_SUITE_P(
    All, FieldSelectorMatch,
    ::testing::Values(FieldCase{"", true}, FieldCase{"metadata.namespace=default", true},
                      FieldCase{"metadata.namespace=other", false},
                      FieldCase{"spec.priority=7", true}, FieldCase{"spec.hostNetwork=false", true},
                      FieldCase{"spec.missing=", true}, FieldCase{"spec.missing!=", false},
                      FieldCase{"status.phase.deeper=", true},
                      FieldCase{"spec.nodeName!=node-1", false}),
    ::karpenter::ReadableParamName());

TEST(FieldSelector, ValuesUnescape) {
  const Result<FieldSelector> selector = FieldSelector::Parse(R"(a=x\,y\=z\\,b=c)");
  ASSERT_THAT(selector, IsOk());
  EXPECT_THAT(selector->requirements(),
              ElementsAre(FieldRequirement{"a", FieldOperator::kEquals, R"(x,y=z\)"},
                          FieldRequirement{"b", FieldOperator::kEquals, "c"}));
}

TEST(FieldSelector, ErrorsNameTheSelectorAndTheReason) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"spec.nodeName", "has no operator"}, {"=x", "names no field"}, {"a=b=c", "unescaped '='"},
      {R"(a=\x)", "invalid escape"},        {R"(a=b\)", "lone"},
  };
  for (const auto& [text, reason] : cases) {
    const Result<FieldSelector> selector = FieldSelector::Parse(text);
    ASSERT_FALSE(selector.ok()) << text;
    EXPECT_THAT(selector.error().message, HasSubstr(std::string("\"") + text + "\"")) << text;
    EXPECT_THAT(selector.error().message, HasSubstr(reason)) << text;
  }
}

TEST(NameSyntax, QualifiedNamesLabelValuesAndDnsNames) {
  EXPECT_FALSE(LabelKeyError("app").has_value());
  EXPECT_FALSE(LabelKeyError("karpenter.sh/node_pool.v1").has_value());
  EXPECT_TRUE(LabelKeyError("Karpenter.sh/pool").has_value());
  EXPECT_TRUE(LabelKeyError("/pool").has_value());
  EXPECT_TRUE(LabelKeyError(std::string(64, 'a')).has_value());
  EXPECT_FALSE(LabelValueError("").has_value());
  EXPECT_FALSE(LabelValueError("Web_1.x").has_value());
  EXPECT_TRUE(LabelValueError("web ").has_value());
  EXPECT_FALSE(DnsSubdomainError("web-1.example.com").has_value());
  EXPECT_TRUE(DnsSubdomainError("web..1").has_value());
  EXPECT_TRUE(DnsSubdomainError("Web").has_value());
  EXPECT_TRUE(DnsSubdomainError(std::string(254, 'a')).has_value());
  EXPECT_FALSE(DnsLabelError("kube-system").has_value());
  EXPECT_TRUE(DnsLabelError("kube.system").has_value());
  EXPECT_TRUE(DnsLabelError(std::string(64, 'a')).has_value());
}

}  // namespace
}  // namespace karpenter::kube
