#pragma once
// Golden files for the user data tests, under tests/testdata/aws/userdata/. Run the tests with
// KARPENTER_UPDATE_GOLDEN=1 to (re)write them from the current output, then review the diff.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace karpenter::aws::testing {

inline std::string UserDataTestFile(std::string_view name) {
  return std::string(KARPENTER_TESTDATA) + "/aws/userdata/" + std::string(name);
}

inline std::string ReadUserDataTestFile(std::string_view name) {
  std::ifstream in(UserDataTestFile(name), std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void ExpectGolden(std::string_view name, const std::string& actual) {
  const char* update = std::getenv("KARPENTER_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream(UserDataTestFile(name), std::ios::binary) << actual;
    return;
  }
  std::ifstream in(UserDataTestFile(name), std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "golden file " << UserDataTestFile(name)
                  << " is missing; run the test with KARPENTER_UPDATE_GOLDEN=1 to write it";
    return;
  }
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str())
      << "differs from golden file " << name << " (KARPENTER_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace karpenter::aws::testing
