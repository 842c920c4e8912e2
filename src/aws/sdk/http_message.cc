#include "aws/sdk/http_message.h"

#include <algorithm>
#include <cctype>

namespace karpenter::aws {

std::string_view HeaderValue(const HttpHeaders& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (std::ranges::equal(key, name, [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      return value;
    }
  }
  return {};
}

}  // namespace karpenter::aws
