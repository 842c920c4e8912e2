#pragma once
// An HTTP request to an AWS endpoint as the SDK builds, signs and sends it, and the response it
// gets back.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace karpenter::aws {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string scheme = "https";  // "http" for a local endpoint such as moto; not signed
  std::string host;              // with ":port" when not the scheme's default; signed as Host
  std::string path = "/";        // not yet URI-encoded, unless path_encoded
  // The path is URI-encoded already: it has a segment with '/' or ':' in it (an ARN in EKS's
  // DeleteAccessEntry), which the caller encoded. Sent as it is; SigV4 encodes it once more, as it
  // does every path of a service other than S3.
  bool path_encoded = false;
  std::vector<std::pair<std::string, std::string>> query;  // decoded names and values
  HttpHeaders headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;  // names as the server sent them
  std::string body;
};

// The value of header `name` (compared case-insensitively), or empty.
std::string_view HeaderValue(const HttpHeaders& headers, std::string_view name);

}  // namespace karpenter::aws
