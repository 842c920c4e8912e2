#include "api/label_selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace karpenter::api {
namespace {

const Labels kPodLabels = {{"app", "web"}, {"tier", "frontend"}, {"env", "prod"}};

struct MatchCase {
  std::string name;
  LabelSelector selector;
  bool matches;
};

class LabelSelectorTest : public testing::TestWithParam<MatchCase> {};

TEST_P(LabelSelectorTest, Matches) {
  const MatchCase& c = GetParam();
  EXPECT_EQ(c.selector.Matches(kPodLabels), c.matches);
}

LabelSelectorRequirement Req(std::string key, SelectorOperator op,
                             std::vector<std::string> values = {}) {
  return {std::move(key), op, std::move(values)};
}

using Op = SelectorOperator;

INSTANTIATE_TEST_SUITE_P(
    All, LabelSelectorTest,
    testing::Values(
        MatchCase{"EmptyMatchesEverything", {}, true},
        MatchCase{"MatchLabelsEqual", {{{"app", "web"}}, {}}, true},
        MatchCase{"MatchLabelsAllMustMatch", {{{"app", "web"}, {"env", "dev"}}, {}}, false},
        MatchCase{"MatchLabelsSeveral", {{{"app", "web"}, {"env", "prod"}}, {}}, true},
        MatchCase{"MatchLabelsWrongValue", {{{"app", "db"}}, {}}, false},
        MatchCase{"MatchLabelsMissingKey", {{{"zone", "a"}}, {}}, false},
        MatchCase{"MatchLabelsEmptyValueIsNotAbsence", {{{"zone", ""}}, {}}, false},
        MatchCase{"InValueListed", {{}, {Req("app", Op::kIn, {"db", "web"})}}, true},
        MatchCase{"InValueNotListed", {{}, {Req("app", Op::kIn, {"db", "cache"})}}, false},
        MatchCase{"InKeyAbsent", {{}, {Req("zone", Op::kIn, {"a"})}}, false},
        MatchCase{"InEmptyValues", {{}, {Req("app", Op::kIn)}}, false},
        MatchCase{"NotInValueListed", {{}, {Req("app", Op::kNotIn, {"web"})}}, false},
        MatchCase{"NotInValueNotListed", {{}, {Req("app", Op::kNotIn, {"db"})}}, true},
        MatchCase{"NotInKeyAbsent", {{}, {Req("zone", Op::kNotIn, {"a"})}}, true},
        MatchCase{"ExistsPresent", {{}, {Req("tier", Op::kExists)}}, true},
        MatchCase{"ExistsAbsent", {{}, {Req("zone", Op::kExists)}}, false},
        MatchCase{"DoesNotExistAbsent", {{}, {Req("zone", Op::kDoesNotExist)}}, true},
        MatchCase{"DoesNotExistPresent", {{}, {Req("tier", Op::kDoesNotExist)}}, false},
        MatchCase{"ExpressionsAreAnded",
                  {{}, {Req("app", Op::kIn, {"web"}), Req("zone", Op::kExists)}},
                  false},
        MatchCase{"ExpressionsAllHold",
                  {{}, {Req("app", Op::kIn, {"web"}), Req("zone", Op::kDoesNotExist)}},
                  true},
        MatchCase{"LabelsAndExpressionsAreAnded",
                  {{{"app", "web"}}, {Req("env", Op::kNotIn, {"prod"})}},
                  false},
        MatchCase{"LabelsAndExpressionsBothHold",
                  {{{"app", "web"}}, {Req("env", Op::kIn, {"prod", "staging"})}},
                  true},
        MatchCase{"LabelsFailExpressionsHold",
                  {{{"app", "db"}}, {Req("env", Op::kIn, {"prod"})}},
                  false}),
    [](const testing::TestParamInfo<MatchCase>& info) { return info.param.name; });

TEST(LabelSelectorTest, EmptySelectorMatchesUnlabelledObjects) {
  const LabelSelector selector;
  EXPECT_TRUE(selector.empty());
  EXPECT_TRUE(selector.Matches({}));
}

TEST(LabelSelectorTest, NonEmptySelectorAgainstNoLabels) {
  EXPECT_FALSE((LabelSelector{{{"app", "web"}}, {}}).Matches({}));
  EXPECT_FALSE((LabelSelector{{}, {Req("app", Op::kExists)}}).Matches({}));
  EXPECT_TRUE((LabelSelector{{}, {Req("app", Op::kNotIn, {"web"})}}).Matches({}));
  EXPECT_TRUE((LabelSelector{{}, {Req("app", Op::kDoesNotExist)}}).Matches({}));
  EXPECT_FALSE((LabelSelector{{{"app", "web"}}, {}}).empty());
  EXPECT_FALSE((LabelSelector{{}, {Req("app", Op::kExists)}}).empty());
}

}  // namespace
}  // namespace karpenter::api
