#include "scheduling/requirements.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/node_selector.h"

namespace karpenter::scheduling {
namespace {

using Op = api::NodeSelectorOperator;
using testing::HasSubstr;

constexpr size_t kUnbounded = std::numeric_limits<size_t>::max();
const std::string kKey = "example.com/key";

api::NodeSelectorRequirement Selector(Op op, std::vector<std::string> values = {},
                                      std::optional<int> min_values = std::nullopt,
                                      const std::string& key = kKey) {
  return {key, op, std::move(values), min_values};
}

Requirement Make(Op op, std::vector<std::string> values = {},
                 std::optional<int> min_values = std::nullopt, const std::string& key = kKey) {
  return Requirement::FromNodeSelector(Selector(op, std::move(values), min_values, key));
}

// ---------------------------------------------------------------------------------------------
// One operator at a time.

struct OperatorCase {
  std::string name;
  Op op;
  std::vector<std::string> values;
  std::vector<std::string> allowed;  // Has() is true
  std::vector<std::string> denied;   // Has() is false
  bool allows_absent;
  bool finite;
  size_t len;
  std::vector<std::string> listed;           // Values()
  Op normalized;                             // Operator()
  std::vector<std::string> selector_values;  // ToNodeSelector().values
  std::string text;                          // ToString()
};

class OperatorTest : public testing::TestWithParam<OperatorCase> {};

TEST_P(OperatorTest, FromNodeSelector) {
  const OperatorCase& c = GetParam();
  const Requirement r = Make(c.op, c.values);
  EXPECT_EQ(r.key(), kKey);
  for (const auto& v : c.allowed) EXPECT_TRUE(r.Has(v)) << v;
  for (const auto& v : c.denied) EXPECT_FALSE(r.Has(v)) << v;
  EXPECT_EQ(r.AllowsAbsent(), c.allows_absent);
  EXPECT_FALSE(r.Empty());
  EXPECT_EQ(r.Finite(), c.finite);
  EXPECT_EQ(r.Len(), c.len);
  EXPECT_EQ(r.Values(), c.listed);
  EXPECT_EQ(r.Operator(), c.normalized);
  EXPECT_EQ(r.ToString(), c.text);
  EXPECT_EQ(r.min_values(), std::nullopt);

  const api::NodeSelectorRequirement out = r.ToNodeSelector();
  EXPECT_EQ(out.key, kKey);
  EXPECT_EQ(out.op, c.normalized);
  EXPECT_EQ(out.values, c.selector_values);
  EXPECT_EQ(out.min_values, std::nullopt);
  // What ToNodeSelector writes reads back as the same requirement.
  EXPECT_EQ(Requirement::FromNodeSelector(out), r);
}

TEST_P(OperatorTest, ForEachValueVisitsTheFiniteValues) {
  const OperatorCase& c = GetParam();
  std::vector<std::string> seen;
  Make(c.op, c.values).ForEachValue([&](const std::string& v) { seen.push_back(v); });
  EXPECT_EQ(seen, c.listed);
}

INSTANTIATE_TEST_SUITE_P(AllOperators, OperatorTest,
                         testing::Values(OperatorCase{"In",
                                                      Op::kIn,
                                                      {"b", "a", "b"},
                                                      {"a", "b"},
                                                      {"c", "", "ab"},
                                                      false,
                                                      true,
                                                      2,
                                                      {"a", "b"},
                                                      Op::kIn,
                                                      {"a", "b"},
                                                      kKey + " In [a b]"},
                                         OperatorCase{"NotIn",
                                                      Op::kNotIn,
                                                      {"b", "a"},
                                                      {"c", "", "ab"},
                                                      {"a", "b"},
                                                      true,
                                                      false,
                                                      kUnbounded,
                                                      {},
                                                      Op::kNotIn,
                                                      {"a", "b"},
                                                      kKey + " NotIn [a b]"},
                                         OperatorCase{"Exists",
                                                      Op::kExists,
                                                      {},
                                                      {"a", "", "7"},
                                                      {},
                                                      false,
                                                      false,
                                                      kUnbounded,
                                                      {},
                                                      Op::kExists,
                                                      {},
                                                      kKey + " Exists"},
                                         OperatorCase{"DoesNotExist",
                                                      Op::kDoesNotExist,
                                                      {},
                                                      {},
                                                      {"a", "", "7"},
                                                      true,
                                                      true,
                                                      0,
                                                      {},
                                                      Op::kDoesNotExist,
                                                      {},
                                                      kKey + " DoesNotExist"},
                                         OperatorCase{"Gt",
                                                      Op::kGt,
                                                      {"2"},
                                                      {"3", "100", "9223372036854775807"},
                                                      {"2", "1", "-5", "x", "3.5", "", "03a"},
                                                      false,
                                                      false,
                                                      kUnbounded,
                                                      {},
                                                      Op::kGt,
                                                      {"2"},
                                                      kKey + " Gt 2"},
                                         OperatorCase{"Lt",
                                                      Op::kLt,
                                                      {"2"},
                                                      {"1", "0", "-3"},
                                                      {"2", "3", "x", ""},
                                                      false,
                                                      false,
                                                      kUnbounded,
                                                      {},
                                                      Op::kLt,
                                                      {"2"},
                                                      kKey + " Lt 2"},
                                         // Gte/Lte are kept as the equivalent exclusive bound.
                                         OperatorCase{"Gte",
                                                      Op::kGte,
                                                      {"2"},
                                                      {"2", "3"},
                                                      {"1", "x"},
                                                      false,
                                                      false,
                                                      kUnbounded,
                                                      {},
                                                      Op::kGt,
                                                      {"1"},
                                                      kKey + " Gt 1"},
                                         OperatorCase{"Lte",
                                                      Op::kLte,
                                                      {"2"},
                                                      {"2", "1", "-1"},
                                                      {"3", "x"},
                                                      false,
                                                      false,
                                                      kUnbounded,
                                                      {},
                                                      Op::kLt,
                                                      {"3"},
                                                      kKey + " Lt 3"},
                                         OperatorCase{"NegativeBound",
                                                      Op::kGt,
                                                      {"-2"},
                                                      {"-1", "0"},
                                                      {"-2", "-3"},
                                                      false,
                                                      false,
                                                      kUnbounded,
                                                      {},
                                                      Op::kGt,
                                                      {"-2"},
                                                      kKey + " Gt -2"}),
                         [](const testing::TestParamInfo<OperatorCase>& info) {
                           return info.param.name;
                         });

TEST(RequirementTest, NamedConstructorsMatchFromNodeSelector) {
  EXPECT_EQ(Requirement::In(kKey, {"b", "a"}), Make(Op::kIn, {"a", "b"}));
  EXPECT_EQ(Requirement::NotIn(kKey, {"a"}), Make(Op::kNotIn, {"a"}));
  EXPECT_EQ(Requirement::Exists(kKey), Make(Op::kExists));
  EXPECT_EQ(Requirement::DoesNotExist(kKey), Make(Op::kDoesNotExist));
  EXPECT_NE(Requirement::Exists(kKey), Make(Op::kDoesNotExist));
  EXPECT_NE(Requirement::In(kKey, {"a"}), Requirement::In("other", {"a"}));
}

TEST(RequirementTest, UnparsableIntegerBoundAllowsNothing) {
  for (const auto& values : std::vector<std::vector<std::string>>{{"x"}, {}, {"1", "2"}, {"1.5"}}) {
    for (Op op : {Op::kGt, Op::kLt, Op::kGte, Op::kLte}) {
      const Requirement r = Make(op, values);
      EXPECT_TRUE(r.Empty()) << r.ToString();
      EXPECT_FALSE(r.AllowsAbsent()) << r.ToString();
      EXPECT_FALSE(r.Has("1")) << r.ToString();
      EXPECT_FALSE(r.Has("x")) << r.ToString();
      EXPECT_EQ(r.Len(), 0u) << r.ToString();
    }
  }
}

TEST(RequirementTest, InWithoutValuesIsEmpty) {
  const Requirement r = Requirement::In(kKey, {});
  EXPECT_TRUE(r.Empty());
  EXPECT_FALSE(r.AllowsAbsent());
  EXPECT_EQ(r.Len(), 0u);
  EXPECT_EQ(r.Operator(), Op::kIn);
}

TEST(RequirementTest, MinValuesIsCarriedToNodeSelectorAndString) {
  const Requirement r = Make(Op::kIn, {"a", "b", "c"}, 2);
  EXPECT_EQ(r.min_values(), 2);
  EXPECT_EQ(r.ToNodeSelector().min_values, 2);
  EXPECT_EQ(r.ToString(), kKey + " In [a b c] (minValues 2)");
  EXPECT_EQ(Make(Op::kExists, {}, 5).ToNodeSelector().min_values, 5);

  Requirement unset = Make(Op::kIn, {"a"});
  unset.set_min_values(3);
  EXPECT_EQ(unset.min_values(), 3);
  unset.set_min_values(std::nullopt);
  EXPECT_EQ(unset.min_values(), std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// Intersections: the inputs are folded left to right.

struct IntersectCase {
  std::string name;
  std::vector<api::NodeSelectorRequirement> inputs;
  std::vector<std::string> allowed;
  std::vector<std::string> denied;
  bool allows_absent;
  bool empty;
  bool finite;
  std::vector<std::string> listed;  // Values(), checked when finite
  std::string text;                 // ToString(), checked when not empty
};

class IntersectTest : public testing::TestWithParam<IntersectCase> {};

TEST_P(IntersectTest, Intersect) {
  const IntersectCase& c = GetParam();
  ASSERT_GE(c.inputs.size(), 2u);
  Requirement r = Requirement::FromNodeSelector(c.inputs.front());
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    r = r.Intersect(Requirement::FromNodeSelector(c.inputs[i]));
  }
  EXPECT_EQ(r.key(), kKey);
  for (const auto& v : c.allowed) EXPECT_TRUE(r.Has(v)) << v;
  for (const auto& v : c.denied) EXPECT_FALSE(r.Has(v)) << v;
  EXPECT_EQ(r.AllowsAbsent(), c.allows_absent);
  EXPECT_EQ(r.Empty(), c.empty);
  EXPECT_EQ(r.Finite(), c.finite);
  if (c.finite) {
    EXPECT_EQ(r.Values(), c.listed);
    EXPECT_EQ(r.Len(), c.listed.size());
  } else {
    EXPECT_EQ(r.Len(), kUnbounded);
  }
  if (!c.text.empty()) {
    EXPECT_EQ(r.ToString(), c.text);
  }
}

// Folding the inputs in reverse order gives the same requirement (commutative and associative).
TEST_P(IntersectTest, OrderDoesNotMatter) {
  const IntersectCase& c = GetParam();
  Requirement forward = Requirement::FromNodeSelector(c.inputs.front());
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    forward = forward.Intersect(Requirement::FromNodeSelector(c.inputs[i]));
  }
  Requirement backward = Requirement::FromNodeSelector(c.inputs.back());
  for (size_t i = c.inputs.size() - 1; i-- > 0;) {
    backward = backward.Intersect(Requirement::FromNodeSelector(c.inputs[i]));
  }
  EXPECT_EQ(forward, backward);
}

// The first input intersects the intersection of the others exactly when the whole is not empty.
TEST_P(IntersectTest, IntersectsAgreesWithIntersect) {
  const IntersectCase& c = GetParam();
  const Requirement first = Requirement::FromNodeSelector(c.inputs.front());
  Requirement rest = Requirement::FromNodeSelector(c.inputs[1]);
  for (size_t i = 2; i < c.inputs.size(); ++i) {
    rest = rest.Intersect(Requirement::FromNodeSelector(c.inputs[i]));
  }
  EXPECT_EQ(first.Intersects(rest), !c.empty);
  EXPECT_EQ(rest.Intersects(first), !c.empty);
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, IntersectTest,
    testing::Values(
        // finite × finite
        IntersectCase{"InInOverlap",
                      {Selector(Op::kIn, {"a", "b"}), Selector(Op::kIn, {"b", "c"})},
                      {"b"},
                      {"a", "c"},
                      false,
                      false,
                      true,
                      {"b"},
                      kKey + " In [b]"},
        IntersectCase{"InInDisjoint",
                      {Selector(Op::kIn, {"a"}), Selector(Op::kIn, {"b"})},
                      {},
                      {"a", "b"},
                      false,
                      true,
                      true,
                      {},
                      ""},
        // finite × complement
        IntersectCase{"InNotIn",
                      {Selector(Op::kIn, {"a", "b"}), Selector(Op::kNotIn, {"b", "z"})},
                      {"a"},
                      {"b", "z", "c"},
                      false,
                      false,
                      true,
                      {"a"},
                      kKey + " In [a]"},
        IntersectCase{"InNotInSame",
                      {Selector(Op::kIn, {"a"}), Selector(Op::kNotIn, {"a"})},
                      {},
                      {"a"},
                      false,
                      true,
                      true,
                      {},
                      ""},
        IntersectCase{"InExists",
                      {Selector(Op::kIn, {"a", "b"}), Selector(Op::kExists)},
                      {"a", "b"},
                      {"c"},
                      false,
                      false,
                      true,
                      {"a", "b"},
                      kKey + " In [a b]"},
        IntersectCase{"InGt",
                      {Selector(Op::kIn, {"1", "3", "5", "x"}), Selector(Op::kGt, {"2"})},
                      {"3", "5"},
                      {"1", "x", "4"},
                      false,
                      false,
                      true,
                      {"3", "5"},
                      kKey + " In [3 5]"},
        IntersectCase{"InLte",
                      {Selector(Op::kIn, {"1", "3", "5"}), Selector(Op::kLte, {"3"})},
                      {"1", "3"},
                      {"5", "2"},
                      false,
                      false,
                      true,
                      {"1", "3"},
                      kKey + " In [1 3]"},
        IntersectCase{"InGtNothingLeft",
                      {Selector(Op::kIn, {"1", "2"}), Selector(Op::kGt, {"2"})},
                      {},
                      {"1", "2", "3"},
                      false,
                      true,
                      true,
                      {},
                      ""},
        // complement × complement
        IntersectCase{"NotInNotIn",
                      {Selector(Op::kNotIn, {"a"}), Selector(Op::kNotIn, {"b"})},
                      {"c", ""},
                      {"a", "b"},
                      true,
                      false,
                      false,
                      {},
                      kKey + " NotIn [a b]"},
        IntersectCase{"ExistsNotIn",
                      {Selector(Op::kExists), Selector(Op::kNotIn, {"a"})},
                      {"b"},
                      {"a"},
                      false,
                      false,
                      false,
                      {},
                      ""},
        IntersectCase{"ExistsExists",
                      {Selector(Op::kExists), Selector(Op::kExists)},
                      {"a", "1"},
                      {},
                      false,
                      false,
                      false,
                      {},
                      kKey + " Exists"},
        IntersectCase{"GtLt",
                      {Selector(Op::kGt, {"2"}), Selector(Op::kLt, {"5"})},
                      {"3", "4"},
                      {"2", "5", "1", "6", "x"},
                      false,
                      false,
                      false,
                      {},
                      kKey + " Gt 2 AND " + kKey + " Lt 5"},
        IntersectCase{"GtLtNoIntegerBetween",
                      {Selector(Op::kGt, {"5"}), Selector(Op::kLt, {"6"})},
                      {},
                      {"5", "6"},
                      false,
                      true,
                      false,
                      {},
                      ""},
        IntersectCase{"GtAboveLt",
                      {Selector(Op::kGt, {"9"}), Selector(Op::kLt, {"3"})},
                      {},
                      {"1", "5", "10"},
                      false,
                      true,
                      false,
                      {},
                      ""},
        IntersectCase{"GtGtKeepsTheHigher",
                      {Selector(Op::kGt, {"2"}), Selector(Op::kGt, {"5"})},
                      {"6"},
                      {"5", "3"},
                      false,
                      false,
                      false,
                      {},
                      kKey + " Gt 5"},
        IntersectCase{"LtLtKeepsTheLower",
                      {Selector(Op::kLt, {"10"}), Selector(Op::kLt, {"7"})},
                      {"6"},
                      {"7", "9"},
                      false,
                      false,
                      false,
                      {},
                      kKey + " Lt 7"},
        IntersectCase{"GteLteOneValue",
                      {Selector(Op::kGte, {"3"}), Selector(Op::kLte, {"3"})},
                      {"3"},
                      {"2", "4"},
                      false,
                      false,
                      false,
                      {},
                      ""},
        IntersectCase{"NotInGt",
                      {Selector(Op::kNotIn, {"a", "4"}), Selector(Op::kGt, {"2"})},
                      {"3", "5"},
                      {"a", "2", "4"},
                      false,
                      false,
                      false,
                      {},
                      ""},
        IntersectCase{
            "GtLtNotInEveryValue",
            {Selector(Op::kGt, {"2"}), Selector(Op::kLt, {"5"}), Selector(Op::kNotIn, {"3", "4"})},
            {},
            {"3", "4"},
            false,
            true,
            false,
            {},
            ""},
        IntersectCase{
            "GtLtNotInSomeValues",
            {Selector(Op::kGt, {"2"}), Selector(Op::kLt, {"5"}), Selector(Op::kNotIn, {"3"})},
            {"4"},
            {"3", "2", "5"},
            false,
            false,
            false,
            {},
            ""},
        // DoesNotExist
        IntersectCase{"DoesNotExistNotIn",
                      {Selector(Op::kDoesNotExist), Selector(Op::kNotIn, {"a"})},
                      {},
                      {"a", "b"},
                      true,
                      false,
                      true,
                      {},
                      kKey + " DoesNotExist"},
        IntersectCase{"DoesNotExistIn",
                      {Selector(Op::kDoesNotExist), Selector(Op::kIn, {"a"})},
                      {},
                      {"a"},
                      false,
                      true,
                      true,
                      {},
                      ""},
        IntersectCase{"DoesNotExistExists",
                      {Selector(Op::kDoesNotExist), Selector(Op::kExists)},
                      {},
                      {"a"},
                      false,
                      true,
                      true,
                      {},
                      ""},
        IntersectCase{"DoesNotExistGt",
                      {Selector(Op::kDoesNotExist), Selector(Op::kGt, {"2"})},
                      {},
                      {"3"},
                      false,
                      true,
                      true,
                      {},
                      ""},
        IntersectCase{"DoesNotExistDoesNotExist",
                      {Selector(Op::kDoesNotExist), Selector(Op::kDoesNotExist)},
                      {},
                      {"a"},
                      true,
                      false,
                      true,
                      {},
                      kKey + " DoesNotExist"}),
    [](const testing::TestParamInfo<IntersectCase>& info) { return info.param.name; });

TEST(RequirementTest, IntersectKeepsTheLargerMinValues) {
  const Requirement low = Make(Op::kIn, {"a", "b", "c"}, 2);
  const Requirement high = Make(Op::kExists, {}, 5);
  const Requirement none = Make(Op::kNotIn, {"z"});
  EXPECT_EQ(low.Intersect(high).min_values(), 5);
  EXPECT_EQ(high.Intersect(low).min_values(), 5);
  EXPECT_EQ(low.Intersect(none).min_values(), 2);
  EXPECT_EQ(none.Intersect(high).min_values(), 5);
  EXPECT_EQ(none.Intersect(none).min_values(), std::nullopt);
}

TEST(RequirementTest, IntersectsWithAbsence) {
  // Two requirements that both accept a missing label intersect even without a common value.
  EXPECT_TRUE(Make(Op::kNotIn, {"a"}).Intersects(Make(Op::kDoesNotExist)));
  EXPECT_TRUE(Make(Op::kNotIn, {"a"}).Intersects(Make(Op::kNotIn, {"b"})));
  EXPECT_FALSE(Make(Op::kExists).Intersects(Make(Op::kDoesNotExist)));
  EXPECT_FALSE(Make(Op::kIn, {"a"}).Intersects(Make(Op::kDoesNotExist)));
  EXPECT_TRUE(Make(Op::kIn, {"b"}).Intersects(Make(Op::kNotIn, {"a"})));
  EXPECT_FALSE(Make(Op::kIn, {"a"}).Intersects(Make(Op::kNotIn, {"a"})));
  EXPECT_TRUE(Make(Op::kIn, {"3"}).Intersects(Make(Op::kGt, {"2"})));
  EXPECT_FALSE(Make(Op::kIn, {"2", "x"}).Intersects(Make(Op::kGt, {"2"})));
  EXPECT_TRUE(Make(Op::kGt, {"2"}).Intersects(Make(Op::kIn, {"1", "7"})));
}

// ---------------------------------------------------------------------------------------------
// Requirements: many keys.

Requirements Build(std::vector<api::NodeSelectorRequirement> list) {
  return Requirements::FromNodeSelector(list);
}

TEST(RequirementsTest, AddIntersectsTheSameKeyAndKeepsKeysSorted) {
  Requirements r;
  EXPECT_TRUE(r.empty());
  r.Add(Requirement::In("zeta", {"1"}));
  r.Add(Requirement::In("alpha", {"a", "b"}));
  r.Add(Requirement::Exists("mid"));
  r.Add(Requirement::In("alpha", {"b", "c"}));
  EXPECT_FALSE(r.empty());
  ASSERT_EQ(r.items().size(), 3u);
  EXPECT_EQ(r.items()[0].key(), "alpha");
  EXPECT_EQ(r.items()[1].key(), "mid");
  EXPECT_EQ(r.items()[2].key(), "zeta");
  ASSERT_NE(r.Get("alpha"), nullptr);
  EXPECT_EQ(r.Get("alpha")->Values(), std::vector<std::string>{"b"});
  EXPECT_TRUE(r.Has("mid"));
  EXPECT_FALSE(r.Has("missing"));
  EXPECT_EQ(r.Get("missing"), nullptr);

  const Requirement rvalue = Requirement::NotIn("zeta", {"1"});
  r.Add(Requirement(rvalue));
  ASSERT_NE(r.Get("zeta"), nullptr);
  EXPECT_TRUE(r.Get("zeta")->Empty());
}

TEST(RequirementsTest, AddRequirementsMergesEveryKey) {
  Requirements a = Build({Selector(Op::kIn, {"x", "y"}, std::nullopt, "k1"),
                          Selector(Op::kExists, {}, std::nullopt, "k2")});
  const Requirements b = Build({Selector(Op::kIn, {"y", "z"}, std::nullopt, "k1"),
                                Selector(Op::kIn, {"v"}, std::nullopt, "k3")});
  a.Add(b);
  ASSERT_EQ(a.items().size(), 3u);
  EXPECT_EQ(a.Get("k1")->Values(), std::vector<std::string>{"y"});
  EXPECT_EQ(a.Get("k2")->Operator(), Op::kExists);
  EXPECT_EQ(a.Get("k3")->Values(), std::vector<std::string>{"v"});
}

TEST(RequirementsTest, FromNodeSelectorIntersectsRepeatedKeys) {
  const Requirements r = Build({Selector(Op::kGt, {"2"}), Selector(Op::kLt, {"5"}),
                                Selector(Op::kIn, {"1", "3", "4", "9"})});
  ASSERT_EQ(r.items().size(), 1u);
  EXPECT_EQ(r.Get(kKey)->Values(), (std::vector<std::string>{"3", "4"}));
}

TEST(RequirementsTest, FromLabels) {
  const api::Labels labels = {{"b", "2"}, {"a", "1"}};
  const Requirements r = Requirements::FromLabels(labels);
  ASSERT_EQ(r.items().size(), 2u);
  EXPECT_EQ(r.items()[0], Requirement::In("a", {"1"}));
  EXPECT_EQ(r.items()[1], Requirement::In("b", {"2"}));
  EXPECT_TRUE(r.Matches(labels));
  EXPECT_EQ(r.SingleValueLabels(), labels);
  EXPECT_TRUE(Requirements::FromLabels({}).empty());
  // Later additions still find the keys FromLabels placed.
  Requirements more = r;
  more.Add(Requirement::In("a", {"1", "7"}));
  EXPECT_EQ(more.items().size(), 2u);
  EXPECT_EQ(more.Get("a")->Values(), std::vector<std::string>{"1"});
}

struct CompatibleCase {
  std::string name;
  std::vector<api::NodeSelectorRequirement> existing;
  std::vector<api::NodeSelectorRequirement> incoming;
  bool compatible;
  std::string error;  // a substring of the error when incompatible
};

class CompatibleTest : public testing::TestWithParam<CompatibleCase> {};

TEST_P(CompatibleTest, CompatibleAndIsCompatibleAgree) {
  const CompatibleCase& c = GetParam();
  const Requirements existing = Build(c.existing);
  const Requirements incoming = Build(c.incoming);
  const Status status = existing.Compatible(incoming);
  EXPECT_EQ(status.ok(), c.compatible);
  EXPECT_EQ(existing.IsCompatible(incoming), c.compatible);
  if (!c.compatible && !status.ok()) {
    EXPECT_THAT(status.error().message, HasSubstr(c.error));
  }
}

const std::string kZone(api::kLabelZone);
const std::string kArch(api::kLabelArch);
const std::string kCustom = "example.com/team";

INSTANTIATE_TEST_SUITE_P(
    Cases, CompatibleTest,
    testing::Values(CompatibleCase{"UndefinedWellKnownLabelIsAllowed",
                                   {},
                                   {Selector(Op::kIn, {"test-zone-1"}, std::nullopt, kZone)},
                                   true,
                                   ""},
                    CompatibleCase{"UndefinedWellKnownGtIsAllowed",
                                   {},
                                   {Selector(Op::kGt, {"3"}, std::nullopt,
                                             std::string(api::kLabelInstanceGeneration))},
                                   true,
                                   ""},
                    CompatibleCase{"UndefinedCustomInIsRejected",
                                   {Selector(Op::kIn, {"amd64"}, std::nullopt, kArch)},
                                   {Selector(Op::kIn, {"a"}, std::nullopt, kCustom)},
                                   false,
                                   "label \"" + kCustom + "\" does not have known values"},
                    CompatibleCase{"UndefinedCustomExistsIsRejected",
                                   {},
                                   {Selector(Op::kExists, {}, std::nullopt, kCustom)},
                                   false,
                                   kCustom},
                    CompatibleCase{"UndefinedCustomGtIsRejected",
                                   {},
                                   {Selector(Op::kGt, {"1"}, std::nullopt, kCustom)},
                                   false,
                                   kCustom},
                    CompatibleCase{"UndefinedCustomNotInIsAllowed",
                                   {},
                                   {Selector(Op::kNotIn, {"a"}, std::nullopt, kCustom)},
                                   true,
                                   ""},
                    CompatibleCase{"UndefinedCustomDoesNotExistIsAllowed",
                                   {},
                                   {Selector(Op::kDoesNotExist, {}, std::nullopt, kCustom)},
                                   true,
                                   ""},
                    CompatibleCase{"DefinedCustomOverlap",
                                   {Selector(Op::kIn, {"a", "b"}, std::nullopt, kCustom)},
                                   {Selector(Op::kIn, {"b"}, std::nullopt, kCustom)},
                                   true,
                                   ""},
                    CompatibleCase{"DefinedCustomDisjoint",
                                   {Selector(Op::kIn, {"a"}, std::nullopt, kCustom)},
                                   {Selector(Op::kIn, {"b"}, std::nullopt, kCustom)},
                                   false,
                                   "incompatible requirements, key " + kCustom + ", " + kCustom +
                                       " In [b] not in " + kCustom + " In [a]"},
                    CompatibleCase{"DefinedWellKnownDisjoint",
                                   {Selector(Op::kIn, {"test-zone-1"}, std::nullopt, kZone)},
                                   {Selector(Op::kNotIn, {"test-zone-1"}, std::nullopt, kZone)},
                                   false,
                                   kZone},
                    CompatibleCase{"DoesNotExistAgainstDefinedValue",
                                   {Selector(Op::kIn, {"a"}, std::nullopt, kCustom)},
                                   {Selector(Op::kDoesNotExist, {}, std::nullopt, kCustom)},
                                   false,
                                   kCustom},
                    CompatibleCase{"DoesNotExistAgainstNotIn",
                                   {Selector(Op::kNotIn, {"a"}, std::nullopt, kCustom)},
                                   {Selector(Op::kDoesNotExist, {}, std::nullopt, kCustom)},
                                   true,
                                   ""},
                    CompatibleCase{"BoundsAgainstValues",
                                   {Selector(Op::kIn, {"2", "8"}, std::nullopt, kCustom)},
                                   {Selector(Op::kGt, {"4"}, std::nullopt, kCustom)},
                                   true,
                                   ""},
                    CompatibleCase{"BoundsExcludeEveryValue",
                                   {Selector(Op::kIn, {"2", "3"}, std::nullopt, kCustom)},
                                   {Selector(Op::kGte, {"4"}, std::nullopt, kCustom)},
                                   false,
                                   kCustom},
                    CompatibleCase{"KeysOnlyInExistingAreIgnored",
                                   {Selector(Op::kIn, {"a"}, std::nullopt, kCustom)},
                                   {},
                                   true,
                                   ""},
                    CompatibleCase{"FirstConflictIsReported",
                                   {Selector(Op::kIn, {"amd64"}, std::nullopt, kArch),
                                    Selector(Op::kIn, {"test-zone-1"}, std::nullopt, kZone)},
                                   {Selector(Op::kIn, {"amd64"}, std::nullopt, kArch),
                                    Selector(Op::kIn, {"test-zone-2"}, std::nullopt, kZone)},
                                   false,
                                   "key " + kZone}),
    [](const testing::TestParamInfo<CompatibleCase>& info) { return info.param.name; });

TEST(RequirementsTest, IntersectsIgnoresUndefinedKeys) {
  const Requirements zone = Build({Selector(Op::kIn, {"z1"}, std::nullopt, kZone)});
  const Requirements custom = Build({Selector(Op::kIn, {"a"}, std::nullopt, kCustom)});
  // Compatible() rejects the custom key as undefined; Intersects() only compares shared keys.
  EXPECT_FALSE(zone.IsCompatible(custom));
  EXPECT_TRUE(zone.Intersects(custom));
  EXPECT_TRUE(custom.Intersects(zone));
  EXPECT_TRUE(zone.Intersects(Requirements()));

  const Requirements other_zone = Build({Selector(Op::kIn, {"z2"}, std::nullopt, kZone)});
  EXPECT_FALSE(zone.Intersects(other_zone));
  const Requirements both = Build({Selector(Op::kIn, {"z1", "z2"}, std::nullopt, kZone),
                                   Selector(Op::kIn, {"b"}, std::nullopt, kCustom)});
  EXPECT_TRUE(zone.Intersects(both));
  EXPECT_FALSE(custom.Intersects(both));
}

struct MatchCase {
  std::string name;
  api::NodeSelectorRequirement requirement;
  api::Labels labels;
  bool matches;
};

class MatchesTest : public testing::TestWithParam<MatchCase> {};

TEST_P(MatchesTest, Matches) {
  const MatchCase& c = GetParam();
  EXPECT_EQ(Build({c.requirement}).Matches(c.labels), c.matches);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MatchesTest,
    testing::Values(MatchCase{"InPresent", Selector(Op::kIn, {"a", "b"}), {{kKey, "b"}}, true},
                    MatchCase{"InOtherValue", Selector(Op::kIn, {"a"}), {{kKey, "c"}}, false},
                    MatchCase{"InAbsent", Selector(Op::kIn, {"a"}), {{"other", "a"}}, false},
                    MatchCase{"NotInAbsent", Selector(Op::kNotIn, {"a"}), {}, true},
                    MatchCase{"NotInOtherValue", Selector(Op::kNotIn, {"a"}), {{kKey, "b"}}, true},
                    MatchCase{"NotInListed", Selector(Op::kNotIn, {"a"}), {{kKey, "a"}}, false},
                    MatchCase{"ExistsPresent", Selector(Op::kExists), {{kKey, ""}}, true},
                    MatchCase{"ExistsAbsent", Selector(Op::kExists), {}, false},
                    MatchCase{"DoesNotExistAbsent", Selector(Op::kDoesNotExist), {}, true},
                    MatchCase{
                        "DoesNotExistPresent", Selector(Op::kDoesNotExist), {{kKey, "a"}}, false},
                    MatchCase{"GtAbove", Selector(Op::kGt, {"2"}), {{kKey, "3"}}, true},
                    MatchCase{"GtEqual", Selector(Op::kGt, {"2"}), {{kKey, "2"}}, false},
                    MatchCase{"GtNotANumber", Selector(Op::kGt, {"2"}), {{kKey, "x"}}, false},
                    MatchCase{"GtAbsent", Selector(Op::kGt, {"2"}), {}, false},
                    MatchCase{"LtBelow", Selector(Op::kLt, {"2"}), {{kKey, "1"}}, true},
                    MatchCase{"LteEqual", Selector(Op::kLte, {"2"}), {{kKey, "2"}}, true},
                    MatchCase{"GteBelow", Selector(Op::kGte, {"2"}), {{kKey, "1"}}, false}),
    [](const testing::TestParamInfo<MatchCase>& info) { return info.param.name; });

TEST(RequirementsTest, MatchesNeedsEveryKeyAndIgnoresExtraLabels) {
  const Requirements r = Build({Selector(Op::kIn, {"amd64"}, std::nullopt, kArch),
                                Selector(Op::kNotIn, {"test-zone-3"}, std::nullopt, kZone)});
  EXPECT_TRUE(r.Matches({{kArch, "amd64"}, {kZone, "test-zone-1"}, {"extra", "x"}}));
  EXPECT_TRUE(r.Matches({{kArch, "amd64"}}));
  EXPECT_FALSE(r.Matches({{kArch, "amd64"}, {kZone, "test-zone-3"}}));
  EXPECT_FALSE(r.Matches({{kArch, "arm64"}, {kZone, "test-zone-1"}}));
  EXPECT_TRUE(Requirements().Matches({}));
}

TEST(RequirementsTest, SingleValueLabels) {
  Requirements r = Build({Selector(Op::kIn, {"a"}, std::nullopt, "one"),
                          Selector(Op::kIn, {"a", "b"}, std::nullopt, "two"),
                          Selector(Op::kNotIn, {"a"}, std::nullopt, "notin"),
                          Selector(Op::kExists, {}, std::nullopt, "exists"),
                          Selector(Op::kDoesNotExist, {}, std::nullopt, "absent"),
                          Selector(Op::kGt, {"4"}, std::nullopt, "gt"),
                          Selector(Op::kIn, {"1", "3", "9"}, std::nullopt, "bounded"),
                          Selector(Op::kGt, {"2"}, std::nullopt, "bounded"),
                          Selector(Op::kLt, {"5"}, std::nullopt, "bounded")});
  EXPECT_EQ(r.SingleValueLabels(), (api::Labels{{"bounded", "3"}, {"one", "a"}}));
}

TEST(RequirementsTest, ToNodeSelectorAndToString) {
  const Requirements r =
      Build({Selector(Op::kGt, {"2"}, std::nullopt, "b"), Selector(Op::kIn, {"y", "x"}, 2, "a"),
             Selector(Op::kDoesNotExist, {}, std::nullopt, "c")});
  EXPECT_EQ(r.ToString(), "a In [x y] (minValues 2) AND b Gt 2 AND c DoesNotExist");
  const std::vector<api::NodeSelectorRequirement> out = r.ToNodeSelector();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].key, "a");
  EXPECT_EQ(out[0].op, Op::kIn);
  EXPECT_EQ(out[0].values, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(out[0].min_values, 2);
  EXPECT_EQ(out[1].key, "b");
  EXPECT_EQ(out[1].op, Op::kGt);
  EXPECT_EQ(out[1].values, std::vector<std::string>{"2"});
  EXPECT_EQ(out[2].key, "c");
  EXPECT_EQ(out[2].op, Op::kDoesNotExist);
  EXPECT_TRUE(out[2].values.empty());
  EXPECT_EQ(Requirements::FromNodeSelector(out), r);
  EXPECT_EQ(Requirements().ToString(), "");
}

TEST(RequirementsTest, WellKnownLabels) {
  for (std::string_view key :
       {api::kLabelNodePool, api::kLabelCapacityType, api::kLabelInstanceType, api::kLabelZone,
        api::kLabelRegion, api::kLabelArch, api::kLabelOs, api::kLabelInstanceFamily,
        api::kLabelInstanceCpu}) {
    EXPECT_TRUE(IsWellKnownLabel(key)) << key;
  }
  for (std::string_view key :
       {"example.com/team", "karpenter.sh/unknown", "kubernetes.io/arch2", ""}) {
    EXPECT_FALSE(IsWellKnownLabel(key)) << key;
  }
}

}  // namespace
}  // namespace karpenter::scheduling
