#pragma once
// The instance profile's role credentials from the EC2 instance metadata service, the last
// resort of the chain: what a node's own role may do.

#include <utility>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/imds_client.h"

namespace karpenter::aws {

class ImdsCredentialsProvider final : public CredentialsProvider {
 public:
  // `transport` and `clock` must outlive the provider.
  ImdsCredentialsProvider(ImdsEndpoint endpoint, HttpTransport& transport, const Clock& clock)
      : client_(std::move(endpoint), transport, clock) {}

  // Asks for the role's name and then its credentials on every call; cache the result above.
  // kNotConfigured when the instance has no role (HTTP 404).
  Result<Credentials> Get() override;

 private:
  ImdsClient client_;
};

}  // namespace karpenter::aws
