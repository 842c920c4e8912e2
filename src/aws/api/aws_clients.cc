#include "aws/api/aws_clients.h"

#include <utility>

#include "aws/sdk/caching_credentials.h"
#include "aws/sdk/credentials_chain.h"
#include "aws/sdk/endpoints.h"
#include "aws/sdk/json_protocol.h"
#include "aws/sdk/query_protocol.h"
#include "aws/sdk/retry.h"

namespace karpenter::aws {
namespace {

Error Prefixed(const Error& error, const std::string& region) {
  return Error{"AWS clients for " + region + ": " + error.message, error.status, error.reason};
}

}  // namespace

AwsClients::AwsClients(std::string region, std::unique_ptr<CredentialsProvider> credentials,
                       ServiceClient ec2, ServiceClient ssm, ServiceClient sqs, ServiceClient iam,
                       ServiceClient pricing, ServiceClient eks, ServiceClient events)
    : region_(std::move(region)),
      credentials_(std::move(credentials)),
      ec2_(std::move(ec2)),
      ssm_(std::move(ssm)),
      sqs_(std::move(sqs)),
      iam_(std::move(iam)),
      pricing_(std::move(pricing)),
      eks_(std::move(eks)),
      events_(std::move(events)) {}

Result<AwsClients> AwsClients::Create(const Environment& environment, const std::string& region,
                                      HttpTransport& transport, const Clock& clock) {
  if (region.empty()) return Error{"AWS clients: no region given"};
  Result<Endpoint> sts = ResolveEndpoint("sts", region, environment);
  if (!sts.ok()) return Prefixed(sts.error(), region);
  auto credentials = std::make_unique<CachingCredentialsProvider>(
      DefaultCredentialsChain(environment, StsEndpoint{sts->scheme, sts->host}, transport, clock),
      clock);

  // Each client gets its own policy: a policy's random source is not shared between threads.
  auto make = [&](const std::string& service, const ErrorParser& parse) -> Result<ServiceClient> {
    Result<Endpoint> endpoint = ResolveEndpoint(service, region, environment);
    if (!endpoint.ok()) return Prefixed(endpoint.error(), region);
    Result<RetryPolicy> retry = RetryPolicy::Standard(environment);
    if (!retry.ok()) return Prefixed(retry.error(), region);
    return ServiceClient(service, std::move(*endpoint), *credentials, transport, clock,
                         std::move(*retry), parse);
  };
  ASSIGN_OR_RETURN(ServiceClient ec2, make("ec2", ParseQueryError));
  ASSIGN_OR_RETURN(ServiceClient ssm, make("ssm", ParseJsonError));
  ASSIGN_OR_RETURN(ServiceClient sqs, make("sqs", ParseJsonError));
  ASSIGN_OR_RETURN(ServiceClient iam, make("iam", ParseQueryError));
  ASSIGN_OR_RETURN(ServiceClient pricing, make("pricing", ParseJsonError));
  ASSIGN_OR_RETURN(ServiceClient eks, make("eks", ParseJsonError));
  ASSIGN_OR_RETURN(ServiceClient events, make("events", ParseJsonError));
  return AwsClients(region, std::move(credentials), std::move(ec2), std::move(ssm), std::move(sqs),
                    std::move(iam), std::move(pricing), std::move(eks), std::move(events));
}

}  // namespace karpenter::aws
