#pragma once
// Where the SDK gets credentials for each request: the environment, a profile, a web identity,
// the container or instance metadata service, or a chain of these.

#include <string_view>

#include "aws/sdk/credentials.h"
#include "common/result.h"

namespace karpenter::aws {

// Error::reason of a provider that has nothing to offer because it is not set up here (no
// variables, no profile, IMDS disabled), as opposed to one that is set up and failed. A chain moves
// on past the first kind only.
inline constexpr std::string_view kNotConfigured = "NotConfigured";

class CredentialsProvider {
 public:
  virtual ~CredentialsProvider() = default;
  // Credentials valid now; a provider that holds temporary ones renews them before they expire.
  virtual Result<Credentials> Get() = 0;
};

}  // namespace karpenter::aws
