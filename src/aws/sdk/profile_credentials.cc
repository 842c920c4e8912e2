#include "aws/sdk/profile_credentials.h"

#include <string>
#include <utility>

#include "aws/sdk/shared_config.h"

namespace karpenter::aws {

ProfileCredentialsProvider::ProfileCredentialsProvider(Environment environment, StsEndpoint sts,
                                                       HttpTransport& transport, const Clock& clock)
    : environment_(std::move(environment)),
      sts_(std::move(sts)),
      transport_(transport),
      clock_(clock) {}

Result<Credentials> ProfileCredentialsProvider::Get() {
  ASSIGN_OR_RETURN(Profile profile, LoadProfile(environment_));
  const std::string what = "profile \"" + profile.name + "\"";
  // A role takes precedence over keys in the same profile: the keys may be there only to assume it.
  if (const std::string_view role_arn = profile.Get("role_arn"); !role_arn.empty()) {
    if (const std::string_view token_file = profile.Get("web_identity_token_file");
        !token_file.empty()) {
      WebIdentitySettings settings{std::string(role_arn), std::string(token_file),
                                   std::string(profile.Get("role_session_name"))};
      return WebIdentityCredentialsProvider(std::move(settings), sts_, transport_, clock_).Get();
    }
    return Error{what + ": role_arn without web_identity_token_file (assuming a role with " +
                 "source_profile or credential_source) is not supported"};
  }
  Credentials credentials{std::string(profile.Get("aws_access_key_id")),
                          std::string(profile.Get("aws_secret_access_key")),
                          std::string(profile.Get("aws_session_token")), std::nullopt};
  if (credentials.access_key_id.empty() && credentials.secret_access_key.empty()) {
    return Error{what + " has no aws_access_key_id or role_arn", 0, std::string(kNotConfigured)};
  }
  if (credentials.secret_access_key.empty()) {
    return Error{what + " has aws_access_key_id (" + RedactedKeyId(credentials.access_key_id) +
                 ") but no aws_secret_access_key"};
  }
  if (credentials.access_key_id.empty()) {
    return Error{what + " has aws_secret_access_key but no aws_access_key_id"};
  }
  return credentials;
}

}  // namespace karpenter::aws
