#include "aws/sdk/url.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace karpenter::aws {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
    } else {
      if (i + 2 >= text.size()) return std::nullopt;
      const int high = HexDigit(text[i + 1]);
      const int low = HexDigit(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    }
  }
  return out;
}

}  // namespace

Result<Url> ParseUrl(std::string_view text, std::string_view what) {
  const auto invalid = [&](std::string_view why) {
    return Error{std::string(what) + " is not a valid URL: " + std::string(why)};
  };
  const size_t separator = text.find("://");
  if (separator == std::string_view::npos) return invalid("expected scheme://host");
  Url url;
  url.scheme = std::string(text.substr(0, separator));
  std::ranges::transform(url.scheme, url.scheme.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (url.scheme != "http" && url.scheme != "https") return invalid("the scheme is not http(s)");
  std::string_view rest = text.substr(separator + 3);
  const size_t authority_end = rest.find_first_of("/?#");
  url.host = std::string(rest.substr(0, authority_end));
  if (url.host.empty()) return invalid("no host");
  if (url.host.find('@') != std::string::npos) return invalid("user information is not allowed");
  if (url.host.front() == '[' && url.host.find(']') == std::string::npos) {
    return invalid("unterminated IPv6 address");
  }
  rest = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  rest = rest.substr(0, rest.find('#'));
  const size_t question = rest.find('?');
  const std::string_view path = rest.substr(0, question);
  url.path = path.empty() ? std::string("/") : std::string(path);
  if (question == std::string_view::npos) return url;
  std::string_view query = rest.substr(question + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t equals = pair.find('=');
    std::optional<std::string> name = PercentDecode(pair.substr(0, equals));
    std::optional<std::string> value = PercentDecode(
        equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1));
    if (!name.has_value() || !value.has_value()) return invalid("bad percent-encoding in query");
    url.query.emplace_back(std::move(*name), std::move(*value));
  }
  return url;
}

std::string_view HostName(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    return host.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1);
  }
  return host.substr(0, host.find(':'));
}

}  // namespace karpenter::aws
