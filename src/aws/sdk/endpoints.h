#pragma once
// Where each AWS service we call lives for a region, and how requests to it are signed: the
// partition's DNS suffix, the global services' single endpoint, Pricing's few regions, and the
// AWS_ENDPOINT_URL overrides that point the SDK at a local stand-in such as moto.

#include <string>
#include <string_view>

#include "aws/sdk/environment.h"
#include "common/result.h"

namespace karpenter::aws {

struct Endpoint {
  std::string scheme = "https";
  std::string host;  // with ":port" when the URL named one
  std::string path;  // an override URL's base path ("/prefix"), empty otherwise
  std::string signing_region;
  std::string signing_name;
};

// The endpoint of `service` ("ec2", "ssm", "sqs", "sts", "iam", "pricing", "eks") for `region`.
// AWS_ENDPOINT_URL_<SERVICE> and then AWS_ENDPOINT_URL replace the scheme, host and path unless
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is "true"; the signing region and name stay the region's.
Result<Endpoint> ResolveEndpoint(std::string_view service, std::string_view region,
                                 const Environment& environment);

}  // namespace karpenter::aws
