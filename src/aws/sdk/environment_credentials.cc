#include "aws/sdk/environment_credentials.h"

#include <string>

namespace karpenter::aws {

Result<Credentials> EnvironmentCredentialsProvider::Get() {
  Credentials credentials{std::string(environment_.Get("AWS_ACCESS_KEY_ID")),
                          std::string(environment_.Get("AWS_SECRET_ACCESS_KEY")),
                          std::string(environment_.Get("AWS_SESSION_TOKEN")), std::nullopt};
  if (credentials.access_key_id.empty() && credentials.secret_access_key.empty()) {
    return Error{"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set", 0,
                 std::string(kNotConfigured)};
  }
  if (credentials.secret_access_key.empty()) {
    return Error{"AWS_ACCESS_KEY_ID (" + RedactedKeyId(credentials.access_key_id) +
                 ") is set but AWS_SECRET_ACCESS_KEY is not"};
  }
  if (credentials.access_key_id.empty()) {
    return Error{"AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not"};
  }
  return credentials;
}

}  // namespace karpenter::aws
