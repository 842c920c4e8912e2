#pragma once
// The SSM Parameter Store reads the AWS provider makes: the public parameters that name the
// current EKS-optimized AMIs (an alias such as al2023@latest resolves through them).

#include <map>
#include <string>
#include <vector>

#include "aws/sdk/service_client.h"
#include "common/result.h"

namespace karpenter::aws {

struct SsmParameters {
  std::map<std::string, std::string> values;  // by name
  std::vector<std::string> invalid;           // the names asked for that do not exist
};

// Not thread-safe, as its ServiceClient is not.
class SsmApi {
 public:
  // `client` is the ssm ServiceClient (AwsClients::ssm()) and must outlive this.
  explicit SsmApi(ServiceClient& client) : client_(client) {}

  // The parameter's value; a missing one is an Error with reason "ParameterNotFound".
  Result<std::string> GetParameter(const std::string& name);
  // Several at once, in as many calls as SSM's limit of names per call needs. Missing names are
  // reported, not an Error.
  Result<SsmParameters> GetParameters(const std::vector<std::string>& names);

 private:
  ServiceClient& client_;
};

}  // namespace karpenter::aws
