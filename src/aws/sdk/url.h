#pragma once
// Absolute http(s) URLs from configuration (AWS_CONTAINER_CREDENTIALS_FULL_URI,
// AWS_EC2_METADATA_SERVICE_ENDPOINT), split into the parts an HttpRequest takes.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace karpenter::aws {

struct Url {
  std::string scheme;  // "http" or "https", lowercase
  std::string host;    // with ":port" when given; an IPv6 literal keeps its brackets
  std::string path;    // "/" when the URL has none
  std::vector<std::pair<std::string, std::string>> query;  // percent-decoded
};

// An error, naming the setting `what`, for anything but http(s)://host[:port][/path][?query].
// The URL itself is not echoed: configured URLs may carry tokens.
Result<Url> ParseUrl(std::string_view text, std::string_view what);

// `host` without its port and without the brackets of an IPv6 literal ("[::1]:80" -> "::1").
std::string_view HostName(std::string_view host);

}  // namespace karpenter::aws
