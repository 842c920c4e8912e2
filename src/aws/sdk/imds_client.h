#pragma once
// The EC2 instance metadata service, version 2: every read carries a session token obtained
// with a PUT, which a server-side request forgery (a GET relayed by some proxy) cannot obtain.

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "aws/sdk/environment.h"
#include "aws/sdk/http_transport.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/result.h"

namespace karpenter::aws {

struct ImdsEndpoint {
  std::string scheme = "http";
  std::string host = "169.254.169.254";
};

// AWS_EC2_METADATA_SERVICE_ENDPOINT, or the default address. kNotConfigured when
// AWS_EC2_METADATA_DISABLED is "true".
Result<ImdsEndpoint> ImdsEndpointFromEnvironment(const Environment& environment);

class ImdsClient {
 public:
  // `transport` and `clock` must outlive the client.
  ImdsClient(ImdsEndpoint endpoint, HttpTransport& transport, const Clock& clock);

  // The body of a GET of `path` ("/latest/meta-data/instance-id"). Thread-safe. The session token
  // is reused until shortly before it expires. Errors keep the HTTP status (404: no such item).
  Result<std::string> Get(std::string_view path);

  // The instance's region, from /latest/meta-data/placement/region.
  Result<std::string> Region();

 private:
  struct Token {
    std::string value;
    MonoTime renew_at;
  };

  Result<std::string> SessionToken();
  Error Failed(std::string_view what, const Result<HttpResponse>& response) const;

  const ImdsEndpoint endpoint_;
  HttpTransport& transport_;
  const Clock& clock_;
  Mutex mutex_;
  std::optional<Token> token_ GUARDED_BY(mutex_);
};

}  // namespace karpenter::aws
