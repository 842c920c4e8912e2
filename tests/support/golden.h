#pragma once
// Golden files under tests/testdata/: the expected output of a test, reviewed like code. Run the
// tests with KARPENTER_UPDATE_GOLDEN=1 to (re)write them from the current output, then review the
// diff.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace karpenter::support {

// tests/testdata/<path>.
inline std::string TestDataPath(std::string_view path) {
  return std::string(KARPENTER_TESTDATA) + "/" + std::string(path);
}

// The file's text; empty when it cannot be read.
inline std::string ReadTestData(std::string_view path) {
  std::ifstream in(TestDataPath(path), std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `actual` equals tests/testdata/<path> (or, with KARPENTER_UPDATE_GOLDEN=1, is written there).
inline void ExpectGolden(std::string_view path, const std::string& actual) {
  const char* update = std::getenv("KARPENTER_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream(TestDataPath(path), std::ios::binary) << actual;
    return;
  }
  std::ifstream in(TestDataPath(path), std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "golden file " << TestDataPath(path)
                  << " is missing; run the test with KARPENTER_UPDATE_GOLDEN=1 to write it";
    return;
  }
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str())
      << "differs from golden file " << path << " (KARPENTER_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace karpenter::support
