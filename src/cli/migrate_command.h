#pragma once
// `karpenter migrate plan`: reads what the seed's migration starts from — the account (the EKS
// cluster and its managed node groups, IAM roles, discovery tags, the AMI release) and the cluster
// (aws-auth, Karpenter, Cluster Autoscaler, add-ons, PodDisruptionBudgets) — and prints the seed's
// nine steps, each done, to do or blocked, with the NodePools and EC2NodeClasses that would take
// over from the node groups and a forecast: the cluster as it runs now, migrated in `karpenter
// simulate`. Reads, never writes.

#include <ostream>
#include <string>

#include "aws/sdk/environment.h"
#include "kube/client.h"

namespace karpenter::cli {

struct MigratePlanOptions {
  std::string cluster_name;
  std::string region;      // "": AWS_REGION, then AWS_DEFAULT_REGION
  std::string kubeconfig;  // "": KUBECONFIG, then ~/.kube/config
  // al2023@<this> in the EC2NodeClass; "": the release the cluster's version recommends (SSM).
  std::string alias_version;
  std::string output = "text";  // text | json
  // How long the forecast simulates the migration (a duration); "0": no forecast.
  std::string forecast = "1h";
};

// Reads AWS with the credentials, region and endpoints `environment` gives, and the cluster through
// `cluster`. 0 on success; 1 when AWS or the cluster cannot be read (an unknown cluster, missing
// permissions: the message names the call and the reason); 2 on bad options.
int RunMigratePlan(const MigratePlanOptions& options, const aws::Environment& environment,
                   kube::Client& cluster, std::ostream& out, std::ostream& err);
// The command line's: the process's environment, and the cluster of options.kubeconfig.
int RunMigratePlanCommand(const MigratePlanOptions& options, std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli
