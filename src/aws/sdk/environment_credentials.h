#pragma once
// Long-term or temporary keys from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN,
// the first place every AWS SDK looks.

#include <utility>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/environment.h"

namespace karpenter::aws {

class EnvironmentCredentialsProvider final : public CredentialsProvider {
 public:
  explicit EnvironmentCredentialsProvider(Environment environment)
      : environment_(std::move(environment)) {}

  // kNotConfigured when neither variable is set; an error naming the missing one when only one
  // of the key ID and the secret is.
  Result<Credentials> Get() override;

 private:
  Environment environment_;
};

}  // namespace karpenter::aws
