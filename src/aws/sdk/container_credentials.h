#pragma once
// Credentials from a local HTTP endpoint of the container platform: the EKS Pod Identity agent
// (AWS_CONTAINER_CREDENTIALS_FULL_URI with AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE) or an ECS
// task role (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI).

#include <string>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/environment.h"
#include "aws/sdk/http_transport.h"
#include "aws/sdk/url.h"

namespace karpenter::aws {

struct ContainerEndpoint {
  Url url;
  std::string token;       // the Authorization header's value; may be empty
  std::string token_file;  // read on every request and preferred to `token` when set
};

// AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (under http://169.254.170.2) or else
// AWS_CONTAINER_CREDENTIALS_FULL_URI, with AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or
// AWS_CONTAINER_AUTHORIZATION_TOKEN. kNotConfigured when neither URI is set. A full URI must be
// https, or http to a loopback address, ECS's 169.254.170.2 or EKS's 169.254.170.23 and
// fd00:ec2::23: credentials must not travel in clear text to anywhere else. Host names are not
// resolved, so an http URI needs an IP address.
Result<ContainerEndpoint> ContainerEndpointFromEnvironment(const Environment& environment);

class ContainerCredentialsProvider final : public CredentialsProvider {
 public:
  // `transport` must outlive the provider.
  ContainerCredentialsProvider(ContainerEndpoint endpoint, HttpTransport& transport);

  // One GET per call; cache the result above. An error response keeps its HTTP status, and its
  // JSON "code" as the reason.
  Result<Credentials> Get() override;

 private:
  ContainerEndpoint endpoint_;
  HttpTransport& transport_;
};

}  // namespace karpenter::aws
