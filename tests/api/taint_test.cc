#include "api/taint.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace karpenter::api {
namespace {

using Effect = TaintEffect;
using Op = TolerationOperator;

struct TolerateCase {
  std::string name;
  Toleration toleration;
  Taint taint;
  bool tolerates;
};

class TolerationTest : public testing::TestWithParam<TolerateCase> {};

TEST_P(TolerationTest, Tolerates) {
  const TolerateCase& c = GetParam();
  EXPECT_EQ(c.toleration.Tolerates(c.taint), c.tolerates);
}

const Taint kGpu{"nvidia.com/gpu", "true", Effect::kNoSchedule};

INSTANTIATE_TEST_SUITE_P(
    All, TolerationTest,
    testing::Values(
        TolerateCase{"EqualSameKeyValueEffect",
                     {"nvidia.com/gpu", Op::kEqual, "true", Effect::kNoSchedule, {}},
                     kGpu,
                     true},
        TolerateCase{"EqualDifferentValue",
                     {"nvidia.com/gpu", Op::kEqual, "false", Effect::kNoSchedule, {}},
                     kGpu,
                     false},
        TolerateCase{"EqualEmptyValueAgainstValue",
                     {"nvidia.com/gpu", Op::kEqual, "", Effect::kNoSchedule, {}},
                     kGpu,
                     false},
        TolerateCase{"EqualEmptyValueAgainstEmptyValue",
                     {"dedicated", Op::kEqual, "", std::nullopt, {}},
                     {"dedicated", "", Effect::kNoExecute},
                     true},
        TolerateCase{"EqualDifferentKey",
                     {"amd.com/gpu", Op::kEqual, "true", Effect::kNoSchedule, {}},
                     kGpu,
                     false},
        TolerateCase{"EqualDifferentEffect",
                     {"nvidia.com/gpu", Op::kEqual, "true", Effect::kNoExecute, {}},
                     kGpu,
                     false},
        TolerateCase{
            "EqualAnyEffect", {"nvidia.com/gpu", Op::kEqual, "true", std::nullopt, {}}, kGpu, true},
        TolerateCase{"ExistsIgnoresValue",
                     {"nvidia.com/gpu", Op::kExists, "", Effect::kNoSchedule, {}},
                     kGpu,
                     true},
        TolerateCase{"ExistsIgnoresEvenAWrongValue",
                     {"nvidia.com/gpu", Op::kExists, "false", std::nullopt, {}},
                     kGpu,
                     true},
        TolerateCase{
            "ExistsDifferentKey", {"amd.com/gpu", Op::kExists, "", std::nullopt, {}}, kGpu, false},
        TolerateCase{"ExistsDifferentEffect",
                     {"nvidia.com/gpu", Op::kExists, "", Effect::kPreferNoSchedule, {}},
                     kGpu,
                     false},
        TolerateCase{"EmptyKeyExistsToleratesEverything",
                     {"", Op::kExists, "", std::nullopt, {}},
                     {"anything", "at-all", Effect::kNoExecute},
                     true},
        TolerateCase{"EmptyKeyExistsStillChecksEffect",
                     {"", Op::kExists, "", Effect::kNoSchedule, {}},
                     {"anything", "", Effect::kNoExecute},
                     false},
        TolerateCase{"EmptyKeyExistsWithEffect",
                     {"", Op::kExists, "", Effect::kNoExecute, {}},
                     {"anything", "", Effect::kNoExecute},
                     true},
        TolerateCase{"KeysAreCaseSensitive",
                     {"Nvidia.com/gpu", Op::kExists, "", std::nullopt, {}},
                     kGpu,
                     false},
        TolerateCase{"TolerationSecondsDoNotMatter",
                     {"nvidia.com/gpu", Op::kExists, "", Effect::kNoSchedule, 300},
                     kGpu,
                     true}),
    [](const testing::TestParamInfo<TolerateCase>& info) { return info.param.name; });

TEST(ToleratesAllTest, NoTaintsNeedNoTolerations) { EXPECT_TRUE(ToleratesAll({}, {})); }

TEST(ToleratesAllTest, EveryBlockingTaintMustBeTolerated) {
  const std::vector<Taint> taints = {{"a", "1", Effect::kNoSchedule},
                                     {"b", "2", Effect::kNoExecute}};
  const Toleration tolerate_a{"a", Op::kEqual, "1", std::nullopt, {}};
  const Toleration tolerate_b{"b", Op::kExists, "", Effect::kNoExecute, {}};
  EXPECT_FALSE(ToleratesAll({}, taints));
  EXPECT_FALSE(ToleratesAll({tolerate_a}, taints));
  EXPECT_FALSE(ToleratesAll({tolerate_b}, taints));
  EXPECT_TRUE(ToleratesAll({tolerate_a, tolerate_b}, taints));
  EXPECT_TRUE(ToleratesAll({tolerate_b, tolerate_a}, taints));
  EXPECT_TRUE(ToleratesAll({{"", Op::kExists, "", std::nullopt, {}}}, taints));
}

TEST(ToleratesAllTest, PreferNoScheduleNeverBlocks) {
  const std::vector<Taint> taints = {{"soft", "x", Effect::kPreferNoSchedule}};
  EXPECT_TRUE(ToleratesAll({}, taints));
  const std::vector<Taint> mixed = {{"soft", "x", Effect::kPreferNoSchedule},
                                    {"hard", "y", Effect::kNoSchedule}};
  EXPECT_FALSE(ToleratesAll({}, mixed));
  EXPECT_TRUE(ToleratesAll({{"hard", Op::kEqual, "y", std::nullopt, {}}}, mixed));
}

TEST(ToleratesAllTest, NoExecuteTaintsBlock) {
  const std::vector<Taint> taints = {{"karpenter.sh/disrupted", "", Effect::kNoExecute}};
  EXPECT_FALSE(ToleratesAll({}, taints));
  EXPECT_FALSE(
      ToleratesAll({{"karpenter.sh/disrupted", Op::kExists, "", Effect::kNoSchedule, {}}}, taints));
  EXPECT_TRUE(
      ToleratesAll({{"karpenter.sh/disrupted", Op::kExists, "", std::nullopt, {}}}, taints));
}

}  // namespace
}  // namespace karpenter::api
