#pragma once
// Where the SDK gets credentials for each request: the environment, a profile, a web identity,
// the container or instance metadata service, or a chain of these.

#include "aws/sdk/credentials.h"
#include "common/result.h"

namespace karpenter::aws {

class CredentialsProvider {
 public:
  virtual ~CredentialsProvider() = default;
  // Credentials valid now; a provider that holds temporary ones renews them before they expire.
  virtual Result<Credentials> Get() = 0;
};

}  // namespace karpenter::aws
