#include "aws/sdk/service_client.h"

#include <utility>

#include "aws/sdk/sigv4.h"

namespace karpenter::aws {
namespace {

// Enough of an unrecognised body to tell an HTML page from a truncated answer.
constexpr size_t kBodyExcerpt = 200;

}  // namespace

Error UnrecognizedError(const HttpResponse& response, std::string_view service,
                        std::string_view operation) {
  std::string excerpt = response.body.substr(0, kBodyExcerpt);
  for (char& c : excerpt) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return Error{std::string(service) + " " + std::string(operation) + ": HTTP " +
                   std::to_string(response.status) + " without an AWS error: " + excerpt,
               response.status, ""};
}

ServiceClient::ServiceClient(std::string service, Endpoint endpoint,
                             CredentialsProvider& credentials, HttpTransport& transport,
                             const Clock& clock, RetryPolicy retry, ErrorParser parse_error)
    : service_(std::move(service)),
      endpoint_(std::move(endpoint)),
      credentials_(credentials),
      transport_(transport),
      clock_(clock),
      retry_(std::move(retry)),
      parse_error_(std::move(parse_error)) {}

Result<HttpResponse> ServiceClient::Call(std::string_view operation, const HttpRequest& request) {
  const std::string context = service_ + " " + std::string(operation);
  for (int attempt = 1;; ++attempt) {
    // Fetched per attempt: a provider renews temporary credentials that expire during backoff.
    Result<Credentials> credentials = credentials_.Get();
    if (!credentials.ok()) {
      // The provider retries its own sources; another attempt here would only repeat that.
      Error error = credentials.error();
      error.message = context + ": credentials: " + error.message;
      return error;
    }
    HttpRequest attempt_request = request;
    attempt_request.scheme = endpoint_.scheme;
    attempt_request.host = endpoint_.host;
    attempt_request.path = endpoint_.path + request.path;
    // A retried request must carry a fresh date: AWS rejects signatures more than 5 minutes old.
    Sign(attempt_request, *credentials,
         {endpoint_.signing_region, endpoint_.signing_name, clock_.Now()});
    Result<HttpResponse> response = transport_.Send(attempt_request);
    Error error;
    if (!response.ok()) {
      error = response.error();
      error.message = context + ": " + error.message;
    } else if (response->status >= 200 && response->status < 300) {
      return response;
    } else {
      error = parse_error_(*response, service_, operation);
    }
    if (!retry_.ShouldRetry(error, attempt)) {
      error.message +=
          attempt == 1 ? " (after 1 attempt)" : " (after " + std::to_string(attempt) + " attempts)";
      return error;
    }
    (void)retry_.Wait(attempt - 1);
  }
}

}  // namespace karpenter::aws
