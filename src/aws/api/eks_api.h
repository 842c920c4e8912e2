#pragma once
// The EKS read the AWS provider makes (REST-JSON, GET /clusters/<name>): what a new node needs to
// join the cluster when the settings do not say — the API server endpoint, its CA bundle and the
// service CIDR the kubelet's cluster DNS address comes from.

#include <string>

#include "aws/sdk/service_client.h"
#include "common/result.h"

namespace karpenter::aws {

struct EksCluster {
  std::string name;
  std::string arn;
  std::string status;  // ACTIVE, CREATING, …
  std::string version;
  std::string endpoint;               // https://…
  std::string certificate_authority;  // base64 of the PEM, as EKS returns it
  std::string service_ipv4_cidr;      // "" for an IPv6 cluster or when EKS does not say
  std::string service_ipv6_cidr;
};

// Not thread-safe, as its ServiceClient is not.
class EksApi {
 public:
  // `client` is the eks ServiceClient (AwsClients::eks()) and must outlive this.
  explicit EksApi(ServiceClient& client) : client_(client) {}

  // An unknown cluster is an Error with reason "ResourceNotFoundException".
  Result<EksCluster> DescribeCluster(const std::string& name);

 private:
  ServiceClient& client_;
};

}  // namespace karpenter::aws
