#pragma once
// The AWS services the provider calls, set up once for a region: each service's endpoint (or the
// AWS_ENDPOINT_URL override that points at a stand-in such as moto), one cached credentials chain
// shared by all of them, and a ServiceClient per service with its own retry policy.

#include <memory>
#include <string>

#include "aws/sdk/credentials_provider.h"
#include "aws/sdk/environment.h"
#include "aws/sdk/http_transport.h"
#include "aws/sdk/service_client.h"
#include "common/clock.h"
#include "common/result.h"

namespace karpenter::aws {

class AwsClients {
 public:
  // Resolves the endpoints of ec2, ssm, sqs, iam, pricing, eks and events (and sts, for web
  // identity credentials) for `region` and reads AWS_MAX_ATTEMPTS; the error names what could not
  // be resolved. `transport` and `clock` must outlive the clients.
  static Result<AwsClients> Create(const Environment& environment, const std::string& region,
                                   HttpTransport& transport, const Clock& clock);

  const std::string& region() const { return region_; }
  ServiceClient& ec2() { return ec2_; }
  ServiceClient& ssm() { return ssm_; }
  ServiceClient& sqs() { return sqs_; }
  ServiceClient& iam() { return iam_; }
  ServiceClient& pricing() { return pricing_; }
  ServiceClient& eks() { return eks_; }
  ServiceClient& events() { return events_; }

 private:
  AwsClients(std::string region, std::unique_ptr<CredentialsProvider> credentials,
             ServiceClient ec2, ServiceClient ssm, ServiceClient sqs, ServiceClient iam,
             ServiceClient pricing, ServiceClient eks, ServiceClient events);

  std::string region_;
  // On the heap so the clients' references to it survive moving the bundle.
  std::unique_ptr<CredentialsProvider> credentials_;
  ServiceClient ec2_;
  ServiceClient ssm_;
  ServiceClient sqs_;
  ServiceClient iam_;
  ServiceClient pricing_;
  ServiceClient eks_;
  ServiceClient events_;  // EventBridge
};

}  // namespace karpenter::aws
