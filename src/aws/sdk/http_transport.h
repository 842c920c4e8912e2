#pragma once
// The seam between the SDK and the network: sends one signed request and returns the response.
// The production transport is libcurl; tests put a loopback server or a recording fake behind it.

#include "aws/sdk/http_message.h"
#include "common/result.h"

namespace karpenter::aws {

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Any HTTP status is a response; an Error (status 0) means no response arrived: the connection
  // failed or the request timed out.
  virtual Result<HttpResponse> Send(const HttpRequest& request) = 0;
};

}  // namespace karpenter::aws
