#pragma once
// Readable names for parameterised tests, so that ctest lists `Suite.Test/3_1h30m` rather than
// `Suite.Test/3` or a dump of the parameter's bytes: the index (which keeps names unique) and, when
// the parameter prints as text (a string, a number, a type with PrintTo), that text with every
// character a test name may not hold made '_', cut to 40 characters.

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace karpenter {

struct ReadableParamName {
  template <class T>
  std::string operator()(const ::testing::TestParamInfo<T>& info) const {
    std::string name = std::to_string(info.index);
    const std::string printed = ::testing::PrintToString(info.param);
    // gtest prints a type it cannot show as "N-byte object <…>": the index says more.
    if (printed.find("-byte object <") != std::string::npos) return name;
    std::string text;
    for (char c : printed) {
      if (text.size() == 40) break;
      const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0;
      if (keep) {
        text += c;
      } else if (!text.empty() && text.back() != '_') {
        text += '_';
      }
    }
    while (!text.empty() && text.back() == '_') text.pop_back();
    return text.empty() ? name : name + "_" + text;
  }
};

}  // namespace karpenter
