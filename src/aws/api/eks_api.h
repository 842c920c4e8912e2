#pragma once
// The EKS calls (REST-JSON): the cluster (GET /clusters/<name>) — what a new node needs to join
// it when the settings do not say: the API server endpoint, its CA bundle and the service CIDR the
// kubelet's cluster DNS address comes from; and for `karpenter migrate`, its OIDC issuer and
// authentication mode — its managed node groups and access entries, and the writes the migration
// makes to them (an access entry for the node role, a node group's size).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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
  // The security groups of the cluster's network interfaces: those it was given, and the one EKS
  // made (empty when EKS does not say).
  std::vector<std::string> security_group_ids;
  std::string cluster_security_group_id;
  std::string oidc_issuer;  // https://oidc.eks.<region>.amazonaws.com/id/…; "" when none
  // API, API_AND_CONFIG_MAP or CONFIG_MAP. A cluster that does not say predates access entries:
  // CONFIG_MAP, as EKS itself treats it.
  std::string authentication_mode;
};

struct EksTaint {
  std::string key;
  std::string value;
  std::string effect;  // as EKS spells it: NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE
};

// A managed node group, as DescribeNodegroup gives it.
struct EksNodegroup {
  std::string name;
  std::string status;     // ACTIVE, CREATING, UPDATING, DELETING, …
  std::string node_role;  // the role's ARN
  std::vector<std::string> instance_types;
  std::string capacity_type;  // ON_DEMAND, SPOT or CAPACITY_BLOCK
  std::string ami_type;  // AL2023_x86_64_STANDARD, AL2_ARM_64, BOTTLEROCKET_x86_64, CUSTOM, …
  std::map<std::string, std::string> labels;
  std::vector<EksTaint> taints;
  int64_t min_size = 0;
  int64_t max_size = 0;
  int64_t desired_size = 0;
  std::vector<std::string> subnets;
};

// Not thread-safe, as its ServiceClient is not.
class EksApi {
 public:
  // `client` is the eks ServiceClient (AwsClients::eks()) and must outlive this.
  explicit EksApi(ServiceClient& client) : client_(client) {}

  // An unknown cluster is an Error with reason "ResourceNotFoundException".
  Result<EksCluster> DescribeCluster(const std::string& name);
  // The names of `cluster`'s managed node groups, every page.
  Result<std::vector<std::string>> ListNodegroups(const std::string& cluster);
  // An unknown node group is an Error with reason "ResourceNotFoundException".
  Result<EksNodegroup> DescribeNodegroup(const std::string& cluster, const std::string& name);
  // The principal ARNs of `cluster`'s access entries, every page (clusters in API or
  // API_AND_CONFIG_MAP authentication mode have them).
  Result<std::vector<std::string>> ListAccessEntries(const std::string& cluster);
  // An access entry of `type` (EC2_LINUX for a node role) for `principal_arn`; an existing one is
  // an Error with reason "ResourceInUseException".
  Status CreateAccessEntry(const std::string& cluster, const std::string& principal_arn,
                           const std::string& type);
  // An entry that does not exist is an Error with reason "ResourceNotFoundException".
  Status DeleteAccessEntry(const std::string& cluster, const std::string& principal_arn);
  // Sets the node group's scaling (EKS then adds or drains nodes). Returns the update's id.
  Result<std::string> UpdateNodegroupScaling(const std::string& cluster, const std::string& name,
                                             int64_t min_size, int64_t max_size,
                                             int64_t desired_size);

 private:
  // The names a paginated list of `cluster`'s `collection` gives under `key`.
  Result<std::vector<std::string>> ListNames(std::string_view operation, const std::string& cluster,
                                             std::string_view collection, const char* key);

  ServiceClient& client_;
};

}  // namespace karpenter::aws
