#pragma once
// `karpenter migrate plan`: reads what the seed's migration starts from — the EKS cluster (its
// version, OIDC issuer and authentication mode) and its managed node groups — and prints them with
// the NodePools and EC2NodeClasses that would take over from the node groups. Reads, never writes.

#include <ostream>
#include <string>

#include "aws/sdk/environment.h"

namespace karpenter::cli {

struct MigratePlanOptions {
  std::string cluster_name;
  std::string region;                    // "": AWS_REGION, then AWS_DEFAULT_REGION
  std::string alias_version = "latest";  // al2023@<this> in the EC2NodeClass
  std::string output = "text";           // text | json
};

// Reads AWS with the credentials, region and endpoints `environment` gives (the process's, from
// the command line). 0 on success; 1 when AWS cannot be read (an unknown cluster, missing
// permissions: the message names the call and AWS's reason); 2 on bad options.
int RunMigratePlan(const MigratePlanOptions& options, const aws::Environment& environment,
                   std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli
