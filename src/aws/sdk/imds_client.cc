#include "aws/sdk/imds_client.h"

#include <chrono>
#include <utility>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/url.h"
#include "common/mutex.h"

namespace karpenter::aws {
namespace {

constexpr std::chrono::seconds kTokenTtl{21600};  // six hours, the longest IMDS grants
// Renew this long before the token expires so a request never carries one that lapses in flight.
constexpr std::chrono::seconds kTokenRenewBefore{60};

}  // namespace

Result<ImdsEndpoint> ImdsEndpointFromEnvironment(const Environment& environment) {
  if (environment.IsTrue("AWS_EC2_METADATA_DISABLED")) {
    return Error{"AWS_EC2_METADATA_DISABLED is true", 0, std::string(kNotConfigured)};
  }
  const std::string_view configured = environment.Get("AWS_EC2_METADATA_SERVICE_ENDPOINT");
  if (configured.empty()) return ImdsEndpoint();
  ASSIGN_OR_RETURN(Url url, ParseUrl(configured, "AWS_EC2_METADATA_SERVICE_ENDPOINT"));
  return ImdsEndpoint{std::move(url.scheme), std::move(url.host)};
}

ImdsClient::ImdsClient(ImdsEndpoint endpoint, HttpTransport& transport, const Clock& clock)
    : endpoint_(std::move(endpoint)), transport_(transport), clock_(clock) {}

Error ImdsClient::Failed(std::string_view what, const Result<HttpResponse>& response) const {
  if (!response.ok()) {
    return Error{"cannot reach IMDS at " + endpoint_.scheme + "://" + endpoint_.host + ": " +
                 response.error().message};
  }
  return Error{"IMDS " + std::string(what) + ": HTTP " + std::to_string(response->status),
               response->status, ""};
}

Result<std::string> ImdsClient::SessionToken() {
  MutexLock lock(mutex_);
  const MonoTime now = clock_.Monotonic();
  if (token_.has_value() && now < token_->renew_at) return token_->value;
  HttpRequest request;
  request.method = "PUT";
  request.scheme = endpoint_.scheme;
  request.host = endpoint_.host;
  request.path = "/latest/api/token";
  request.headers = {{"X-aws-ec2-metadata-token-ttl-seconds", std::to_string(kTokenTtl.count())}};
  Result<HttpResponse> response = transport_.Send(request);
  if (!response.ok() || response->status != 200) return Failed("PUT /latest/api/token", response);
  token_ = Token{std::move(response->body), now + kTokenTtl - kTokenRenewBefore};
  return token_->value;
}

Result<std::string> ImdsClient::Get(std::string_view path) {
  for (int attempt = 0;; ++attempt) {
    ASSIGN_OR_RETURN(std::string token, SessionToken());
    HttpRequest request;
    request.scheme = endpoint_.scheme;
    request.host = endpoint_.host;
    request.path = std::string(path);
    request.headers = {{"X-aws-ec2-metadata-token", std::move(token)}};
    Result<HttpResponse> response = transport_.Send(request);
    if (response.ok() && response->status == 200) return std::move(response->body);
    // 401: the token is no longer valid (the service restarted, say); fetch a new one once.
    if (response.ok() && response->status == 401 && attempt == 0) {
      MutexLock lock(mutex_);
      token_.reset();
      continue;
    }
    return Failed("GET " + std::string(path), response);
  }
}

Result<std::string> ImdsClient::Region() { return Get("/latest/meta-data/placement/region"); }

}  // namespace karpenter::aws
