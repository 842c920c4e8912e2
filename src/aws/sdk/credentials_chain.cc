#include "aws/sdk/credentials_chain.h"

#include <utility>

#include "aws/sdk/container_credentials.h"
#include "aws/sdk/environment_credentials.h"
#include "aws/sdk/imds_credentials.h"
#include "aws/sdk/profile_credentials.h"
#include "common/mutex.h"

namespace karpenter::aws {
namespace {

// A link whose configuration was already found missing or invalid when the chain was built.
class Unavailable final : public CredentialsProvider {
 public:
  explicit Unavailable(Error error) : error_(std::move(error)) {}
  Result<Credentials> Get() override { return error_; }

 private:
  Error error_;
};

template <class Settings, class Make>
std::unique_ptr<CredentialsProvider> ProviderOr(Result<Settings> settings, Make make) {
  if (!settings.ok()) return std::make_unique<Unavailable>(settings.error());
  return make(std::move(*settings));
}

}  // namespace

CredentialsChain::CredentialsChain(std::vector<ChainLink> links) : links_(std::move(links)) {}

Result<Credentials> CredentialsChain::Get() {
  MutexLock lock(mutex_);
  if (answered_.has_value()) {
    const ChainLink& link = links_[*answered_];
    Result<Credentials> credentials = link.provider->Get();
    if (!credentials.ok()) {
      const Error& error = credentials.error();
      return Error{"AWS credentials from " + link.name + ": " + error.message, error.status,
                   error.reason};
    }
    return credentials;
  }
  std::string reasons;
  Error last{"no credential providers configured", 0, std::string(kNotConfigured)};
  for (size_t i = 0; i < links_.size(); ++i) {
    Result<Credentials> credentials = links_[i].provider->Get();
    if (credentials.ok()) {
      answered_ = i;
      return credentials;
    }
    last = credentials.error();
    reasons += (reasons.empty() ? "" : "; ") + links_[i].name + ": " + last.message;
    if (last.reason != kNotConfigured) break;
  }
  return Error{"no AWS credentials (" + reasons + ")", last.status, last.reason};
}

std::string CredentialsChain::Source() const {
  MutexLock lock(mutex_);
  return answered_.has_value() ? links_[*answered_].name : std::string();
}

std::unique_ptr<CredentialsChain> DefaultCredentialsChain(const Environment& environment,
                                                          const StsEndpoint& sts,
                                                          HttpTransport& transport,
                                                          const Clock& clock) {
  std::vector<ChainLink> links;
  links.push_back({"environment", std::make_unique<EnvironmentCredentialsProvider>(environment)});
  links.push_back(
      {"web identity", ProviderOr(WebIdentitySettingsFromEnvironment(environment),
                                  [&](WebIdentitySettings settings) {
                                    return std::make_unique<WebIdentityCredentialsProvider>(
                                        std::move(settings), sts, transport, clock);
                                  })});
  links.push_back({"profile", std::make_unique<ProfileCredentialsProvider>(environment, sts,
                                                                           transport, clock)});
  links.push_back(
      {"container",
       ProviderOr(ContainerEndpointFromEnvironment(environment), [&](ContainerEndpoint endpoint) {
         return std::make_unique<ContainerCredentialsProvider>(std::move(endpoint), transport);
       })});
  links.push_back(
      {"IMDS", ProviderOr(ImdsEndpointFromEnvironment(environment), [&](ImdsEndpoint endpoint) {
         return std::make_unique<ImdsCredentialsProvider>(std::move(endpoint), transport, clock);
       })});
  return std::make_unique<CredentialsChain>(std::move(links));
}

}  // namespace karpenter::aws
