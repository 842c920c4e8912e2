#pragma once
// One AWS service at one endpoint: addresses, signs and sends each request, turns error responses
// into Errors with the protocol's parser, and retries what the retry policy says is worth it.
// The protocols (query_protocol.h, json_protocol.h) build the requests and read the answers.
//
// Not thread-safe: the retry policy's random source is unguarded. Use one client per thread.

#include <functional>
#include <string>
#include <string_view>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/endpoints.h"
#include "aws/sdk/http_transport.h"
#include "aws/sdk/retry.h"
#include "common/clock.h"

namespace karpenter::aws {

// Reads a non-2xx response of `operation` on `service` into an Error whose reason is the AWS
// error code and whose status is the HTTP status.
using ErrorParser = std::function<Error(const HttpResponse& response, std::string_view service,
                                        std::string_view operation)>;

// The Error for a response whose body names no AWS error (a proxy's or load balancer's page): the
// status alone decides whether it is retried, and the start of the body goes into the message.
Error UnrecognizedError(const HttpResponse& response, std::string_view service,
                        std::string_view operation);

class ServiceClient {
 public:
  // `service` names the service in errors ("ec2"); the references must outlive the client.
  ServiceClient(std::string service, Endpoint endpoint, CredentialsProvider& credentials,
                HttpTransport& transport, const Clock& clock, RetryPolicy retry,
                ErrorParser parse_error);

  // Sends `request` (method, path, query, headers and body set; not signed) to the endpoint,
  // signing each attempt afresh with the clock's time and the provider's current credentials.
  // Returns the first 2xx response, or the last attempt's Error with the attempt count.
  Result<HttpResponse> Call(std::string_view operation, const HttpRequest& request);

  const std::string& service() const { return service_; }
  const Endpoint& endpoint() const { return endpoint_; }

 private:
  std::string service_;
  Endpoint endpoint_;
  CredentialsProvider& credentials_;
  HttpTransport& transport_;
  const Clock& clock_;
  RetryPolicy retry_;
  ErrorParser parse_error_;
};

}  // namespace karpenter::aws
