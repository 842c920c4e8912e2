#pragma once
// IAM Roles for Service Accounts: the pod's projected service-account token (a JWT the kubelet
// rotates in place) exchanged for a role's temporary credentials with STS
// AssumeRoleWithWebIdentity. The call needs no AWS credentials, so it is sent unsigned.

#include <string>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/environment.h"
#include "aws/sdk/http_transport.h"
#include "common/clock.h"

namespace karpenter::aws {

// Where STS is. Choosing it (regional, FIPS, a test server) is the endpoint resolver's job.
struct StsEndpoint {
  std::string scheme = "https";
  std::string host;  // "sts.us-west-2.amazonaws.com", with ":port" when not the default
};

struct WebIdentitySettings {
  std::string role_arn;
  std::string token_file;
  std::string session_name;  // empty: "karpenter-<Unix time>" at each exchange
};

// From AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_SESSION_NAME: kNotConfigured when
// neither of the first two is set, an error naming the missing one when only one is.
Result<WebIdentitySettings> WebIdentitySettingsFromEnvironment(const Environment& environment);

class WebIdentityCredentialsProvider final : public CredentialsProvider {
 public:
  // `transport` and `clock` must outlive the provider.
  WebIdentityCredentialsProvider(WebIdentitySettings settings, StsEndpoint sts,
                                 HttpTransport& transport, const Clock& clock);

  // Reads the token file again and calls STS on every call; cache the result above. STS errors
  // keep their HTTP status and carry the STS error code as the reason.
  Result<Credentials> Get() override;

 private:
  WebIdentitySettings settings_;
  StsEndpoint sts_;
  HttpTransport& transport_;
  const Clock& clock_;
};

}  // namespace karpenter::aws
