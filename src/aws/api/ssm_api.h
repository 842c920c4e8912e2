#pragma once
// The SSM Parameter Store reads the AWS provider makes: the public parameters that name the
// current EKS-optimized AMIs (an alias such as al2023@latest resolves through them).

#include <string>
#include <string_view>

#include "aws/sdk/service_client.h"
#include "common/result.h"

namespace karpenter::aws {

// The error reason of a parameter that does not exist.
inline constexpr std::string_view kParameterNotFound = "ParameterNotFound";

// Not thread-safe, as its ServiceClient is not.
class SsmApi {
 public:
  // `client` is the ssm ServiceClient (AwsClients::ssm()) and must outlive this.
  explicit SsmApi(ServiceClient& client) : client_(client) {}

  // The parameter's value; a missing one is an Error with reason "ParameterNotFound".
  Result<std::string> GetParameter(const std::string& name);

 private:
  ServiceClient& client_;
};

}  // namespace karpenter::aws
