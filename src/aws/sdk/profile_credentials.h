#pragma once
// Credentials from the profile AWS_PROFILE selects in the shared files: static keys
// (aws_access_key_id, aws_secret_access_key, aws_session_token), or a role to assume with a web
// identity token (role_arn with web_identity_token_file). Assuming a role with another profile's
// or a named source's credentials (source_profile, credential_source) is not supported.

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/environment.h"
#include "aws/sdk/http_transport.h"
#include "aws/sdk/web_identity_credentials.h"
#include "common/clock.h"

namespace karpenter::aws {

class ProfileCredentialsProvider final : public CredentialsProvider {
 public:
  // `transport` and `clock` (for web identity profiles) must outlive the provider.
  ProfileCredentialsProvider(Environment environment, StsEndpoint sts, HttpTransport& transport,
                             const Clock& clock);

  // Reads the files again on every call. kNotConfigured when the files, the profile, or any
  // credentials in it are missing; errors name the file and line of a malformed file.
  Result<Credentials> Get() override;

 private:
  Environment environment_;
  StsEndpoint sts_;
  HttpTransport& transport_;
  const Clock& clock_;
};

}  // namespace karpenter::aws
