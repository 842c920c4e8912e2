#include "common/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "support/matchers.h"
#include "support/param_name.h"

namespace karpenter {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kKi = int64_t{1} << 10;
constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kTi = int64_t{1} << 40;
constexpr int64_t kPi = int64_t{1} << 50;
constexpr int64_t kEi = int64_t{1} << 60;

struct ParseCase {
  std::string_view text;
  int64_t milli;
};

class QuantityParseTest : public testing::TestWithParam<ParseCase> {};

TEST_P(QuantityParseTest, ParsesToExactMilliUnits) {
  const ParseCase& c = GetParam();
  const Result<Quantity> q = Quantity::Parse(c.text);
  ASSERT_THAT(q, IsOk()) << c.text << ": " << q.error().message;
  EXPECT_EQ(q->milli(), c.milli) << c.text;
}

TEST_P(QuantityParseTest, CanonicalTextParsesBackToTheSameValue) {
  const ParseCase& c = GetParam();
  const Quantity q = Quantity::FromMilli(c.milli);
  const Result<Quantity> back = Quantity::Parse(q.ToString());
  ASSERT_THAT(back, IsOk()) << q.ToString() << ": " << back.error().message;
  EXPECT_EQ(back->milli(), c.milli) << q.ToString();
  const Result<Quantity> cpu = Quantity::Parse(q.ToCpuString());
  ASSERT_THAT(cpu, IsOk()) << q.ToCpuString() << ": " << cpu.error().message;
  EXPECT_EQ(cpu->milli(), c.milli) << q.ToCpuString();
}

INSTANTIATE_TEST_SUITE_P(
    PlainNumbers, QuantityParseTest,
    testing::Values(ParseCase{"0", 0}, ParseCase{"1", 1000}, ParseCase{"42", 42'000},
                    ParseCase{"128974848", 128'974'848'000}, ParseCase{"+1", 1000},
                    ParseCase{"-1", -1000}, ParseCase{"-0", 0}, ParseCase{"+0", 0},
                    ParseCase{"000000000000000000000000007", 7000}, ParseCase{"0.000", 0},
                    ParseCase{"1.5", 1500}, ParseCase{".5", 500}, ParseCase{"5.", 5000},
                    ParseCase{"-.25", -250}, ParseCase{"+2.125", 2125}, ParseCase{"0.001", 1},
                    ParseCase{"3.14159", 3142}),
    ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(
    DecimalSuffixes, QuantityParseTest,
    testing::Values(ParseCase{"1n", 1}, ParseCase{"1000000n", 1}, ParseCase{"2000000n", 2},
                    ParseCase{"1500000n", 2}, ParseCase{"1u", 1}, ParseCase{"1000u", 1},
                    ParseCase{"5000u", 5}, ParseCase{"100m", 100}, ParseCase{"1m", 1},
                    ParseCase{"1500m", 1500}, ParseCase{"0.5m", 1}, ParseCase{"1k", 1'000'000},
                    ParseCase{"1.5k", 1'500'000}, ParseCase{"1M", 1'000'000'000},
                    ParseCase{"1G", 1'000'000'000'000}, ParseCase{"1T", 1'000'000'000'000'000},
                    ParseCase{"1P", 1'000'000'000'000'000'000},
                    ParseCase{"9.2P", 9'200'000'000'000'000'000},
                    ParseCase{"0.001E", 1'000'000'000'000'000'000}, ParseCase{"-2k", -2'000'000}));

INSTANTIATE_TEST_SUITE_P(
    BinarySuffixes, QuantityParseTest,
    testing::Values(ParseCase{"1Ki", kKi * 1000}, ParseCase{"1Mi", kMi * 1000},
                    ParseCase{"1Gi", kGi * 1000}, ParseCase{"1Ti", kTi * 1000},
                    ParseCase{"1Pi", kPi * 1000}, ParseCase{"8Pi", 8 * kPi * 1000},
                    ParseCase{"123Mi", 128'974'848'000}, ParseCase{"1.5Gi", 1536 * kMi * 1000},
                    ParseCase{"0.5Ki", 512'000}, ParseCase{"1.25Mi", 1'310'720'000},
                    // 1/1024 Ki is exactly one unit: no spurious rounding.
                    ParseCase{"0.0009765625Ki", 1000}, ParseCase{"0.001Ei", kEi},
                    ParseCase{"-4Gi", -4 * kGi * 1000}),
    ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(
    Exponents, QuantityParseTest,
    testing::Values(ParseCase{"1e3", 1'000'000}, ParseCase{"1E3", 1'000'000},
                    ParseCase{"1e+3", 1'000'000}, ParseCase{"1E+3", 1'000'000},
                    ParseCase{"1e0", 1000}, ParseCase{"1e-3", 1}, ParseCase{"1E-3", 1},
                    ParseCase{"1e-2", 10}, ParseCase{"12e-1", 1200}, ParseCase{"1.5e2", 150'000},
                    ParseCase{".5e1", 5000}, ParseCase{"5.e-1", 500}, ParseCase{"-1e3", -1'000'000},
                    ParseCase{"129e6", 129'000'000'000},
                    ParseCase{"1e15", 1'000'000'000'000'000'000}, ParseCase{"100e-5", 1},
                    ParseCase{"0e999999999999999999999", 0}, ParseCase{"1e-000003", 1}));

// Anything finer than a milli-unit rounds the magnitude up (away from zero), as the API server
// does.
INSTANTIATE_TEST_SUITE_P(
    Rounding, QuantityParseTest,
    testing::Values(ParseCase{"0.1m", 1}, ParseCase{"-0.1m", -1}, ParseCase{"1.1m", 2},
                    ParseCase{"1.0001", 1001}, ParseCase{"0.0001", 1}, ParseCase{"1e-4", 1},
                    ParseCase{"1E-4", 1}, ParseCase{"1e-999999999999999999999", 1},
                    ParseCase{"0.0000000000000000000000000000000000000001", 1},
                    ParseCase{"0.000000000000000000001Ki", 1},
                    // 1.0000001Ki = 1024.0001024 units = 1024000.1024m.
                    ParseCase{"1.0000001Ki", 1'024'001},
                    // 1.00001Ki = 1024.01024 units = 1024010.24m.
                    ParseCase{"1.00001Ki", 1'024'011}, ParseCase{"1n", 1}, ParseCase{"999999n", 1},
                    ParseCase{"1000001n", 2}, ParseCase{"2.0000000000000000000000001", 2001}),
    ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(Limits, QuantityParseTest,
                         testing::Values(ParseCase{"9223372036854775807m", kMax},
                                         ParseCase{"-9223372036854775807m", -kMax},
                                         ParseCase{"9223372036854775.807", kMax},
                                         ParseCase{"9223372036854775807000000n", kMax},
                                         ParseCase{"9223372036854775806.1m", kMax}));

struct ErrorCase {
  std::string_view text;
  std::string_view reason;  // a fragment the message must contain
};

class QuantityParseErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(QuantityParseErrorTest, RejectsWithReason) {
  const ErrorCase& c = GetParam();
  const Result<Quantity> q = Quantity::Parse(c.text);
  ASSERT_FALSE(q.ok()) << c.text << " parsed as " << q->milli();
  EXPECT_NE(q.error().message.find(c.reason), std::string::npos)
      << c.text << ": " << q.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, QuantityParseErrorTest,
    testing::Values(ErrorCase{"", "empty"}, ErrorCase{" ", "number"}, ErrorCase{" 1", "number"},
                    ErrorCase{"abc", "number"}, ErrorCase{"Mi", "number"},
                    ErrorCase{"Ki", "number"}, ErrorCase{"m", "number"}, ErrorCase{"+", "number"},
                    ErrorCase{"-", "number"}, ErrorCase{".", "number"}, ErrorCase{"--1", "number"},
                    ErrorCase{"+-1", "number"}, ErrorCase{"-.m", "number"},
                    ErrorCase{"e3", "number"}, ErrorCase{"1.2.3", "decimal point"},
                    ErrorCase{"1..2", "decimal point"}, ErrorCase{"1.5.Mi", "decimal point"}),
    ::karpenter::ReadableParamName());

INSTANTIATE_TEST_SUITE_P(BadSuffixes, QuantityParseErrorTest,
                         testing::Values(ErrorCase{"1 ", "suffix"}, ErrorCase{"1 Mi", "suffix"},
                                         ErrorCase{"1Kb", "suffix"}, ErrorCase{"1K", "suffix"},
                                         ErrorCase{"1ki", "suffix"}, ErrorCase{"1KiB", "suffix"},
                                         ErrorCase{"1mi", "suffix"}, ErrorCase{"1Mb", "suffix"},
                                         ErrorCase{"1MM", "suffix"}, ErrorCase{"1mm", "suffix"},
                                         ErrorCase{"1i", "suffix"}, ErrorCase{"1Ki5", "suffix"},
                                         ErrorCase{"1m5", "suffix"}, ErrorCase{"1e", "suffix"},
                                         ErrorCase{"1e+", "suffix"}, ErrorCase{"1e-", "suffix"},
                                         ErrorCase{"1e3.5", "suffix"}, ErrorCase{"1e3m", "suffix"},
                                         ErrorCase{"1e3Ki", "suffix"}, ErrorCase{"1Kie3", "suffix"},
                                         ErrorCase{"1e--3", "suffix"}, ErrorCase{"1ee3", "suffix"},
                                         ErrorCase{"0x10", "suffix"}, ErrorCase{"1,5", "suffix"},
                                         ErrorCase{"1µ", "suffix"}, ErrorCase{"1Mi ", "suffix"}));

INSTANTIATE_TEST_SUITE_P(
    Overflow, QuantityParseErrorTest,
    testing::Values(ErrorCase{"9223372036854775808m", "out of range"},
                    ErrorCase{"-9223372036854775808m", "out of range"},
                    ErrorCase{"9223372036854775.8071", "out of range"},
                    ErrorCase{"9223372036854775807.1m", "out of range"},
                    ErrorCase{"9223372036854776", "out of range"},
                    ErrorCase{"1e16", "out of range"}, ErrorCase{"1E", "out of range"},
                    ErrorCase{"10P", "out of range"}, ErrorCase{"9Pi", "out of range"},
                    ErrorCase{"1Ei", "out of range"}, ErrorCase{"0.5Ei", "out of range"},
                    ErrorCase{"100000000000000000000000000000", "out of range"},
                    ErrorCase{"1e999999999999999999999", "out of range"},
                    ErrorCase{"0.0000000000000000000000000001e9999", "out of range"}),
    ::karpenter::ReadableParamName());

TEST(QuantityTest, ErrorNamesTheReasonOnly) {
  // Callers quote the text and say where it came from; the reason must not repeat it.
  const Result<Quantity> q = Quantity::Parse("12Kb");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().message.find("12Kb"), std::string::npos) << q.error().message;
  EXPECT_NE(q.error().message.find("\"Kb\""), std::string::npos) << q.error().message;
}

struct FormatCase {
  int64_t milli;
  std::string_view text;
  std::string_view cpu;
};

class QuantityFormatTest : public testing::TestWithParam<FormatCase> {};

TEST_P(QuantityFormatTest, FormatsCanonicallyAndAsCpu) {
  const FormatCase& c = GetParam();
  const Quantity q = Quantity::FromMilli(c.milli);
  EXPECT_EQ(q.ToString(), c.text) << c.milli;
  EXPECT_EQ(q.ToCpuString(), c.cpu) << c.milli;
}

INSTANTIATE_TEST_SUITE_P(
    All, QuantityFormatTest,
    testing::Values(FormatCase{0, "0", "0"}, FormatCase{250, "250m", "250m"},
                    FormatCase{1, "1m", "1m"}, FormatCase{1000, "1", "1"},
                    FormatCase{1500, "1500m", "1500m"}, FormatCase{2000, "2", "2"},
                    FormatCase{-500, "-500m", "-500m"}, FormatCase{-3000, "-3", "-3"},
                    FormatCase{1023 * 1000, "1023", "1023"}, FormatCase{1024 * 1000, "1Ki", "1024"},
                    FormatCase{1025 * 1000, "1025", "1025"}, FormatCase{1'000'000, "1000", "1000"},
                    FormatCase{2048 * 1000, "2Ki", "2048"},
                    FormatCase{1536 * kMi * 1000, "1536Mi", "1610612736"},
                    FormatCase{kGi * 1000, "1Gi", "1073741824"},
                    FormatCase{3 * kTi * 1000, "3Ti", "3298534883328"},
                    FormatCase{kPi * 1000, "1Pi", "1125899906842624"},
                    FormatCase{-kKi * 1000, "-1Ki", "-1024"},
                    // A multiple of 1Ki in milli-units is not a whole number of units.
                    FormatCase{1024, "1024m", "1024m"},
                    FormatCase{kMax, "9223372036854775807m", "9223372036854775807m"},
                    FormatCase{std::numeric_limits<int64_t>::min(), "-9223372036854775808m",
                               "-9223372036854775808m"}),
    ::karpenter::ReadableParamName());

TEST(QuantityTest, FromUnitsAndArithmetic) {
  const Quantity a = Quantity::FromUnits(2);
  const Quantity b = Quantity::FromMilli(500);
  EXPECT_EQ(a.milli(), 2000);
  EXPECT_EQ((a + b).milli(), 2500);
  EXPECT_EQ((a - b).milli(), 1500);
  EXPECT_EQ((b - a).milli(), -1500);
  EXPECT_LT(b, a);
  EXPECT_EQ((a + b).units_ceil(), 3);
  EXPECT_EQ(Quantity::FromMilli(-1500).units_ceil(), -1);
  EXPECT_DOUBLE_EQ((a + b).as_double(), 2.5);
  EXPECT_TRUE(Quantity().is_zero());
  EXPECT_FALSE(b.is_zero());
}

TEST(QuantityTest, EquivalentSpellingsAreEqual) {
  const std::string_view spellings[] = {"1024Mi",         "1Gi",           "1073741824",
                                        "1073741824000m", "1.073741824G",  "1073741.824k",
                                        "1073741824e0",   "0.0009765625Ti"};
  for (std::string_view text : spellings) {
    const Result<Quantity> q = Quantity::Parse(text);
    ASSERT_THAT(q, IsOk()) << text << ": " << q.error().message;
    EXPECT_EQ(q->milli(), kGi * 1000) << text;
  }
}

}  // namespace
}  // namespace karpenter
