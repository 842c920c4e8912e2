#pragma once
// `karpenter migrate plan`: reads what the seed's migration starts from — the account (the EKS
// cluster and its managed node groups, IAM roles, discovery tags, the AMI release) and the cluster
// (aws-auth, Karpenter, Cluster Autoscaler, add-ons, PodDisruptionBudgets) — and prints the seed's
// nine steps, each done, to do or blocked, with the NodePools and EC2NodeClasses that would take
// over from the node groups and a forecast: the cluster as it runs now, migrated in `karpenter
// simulate`. Reads, never writes. `karpenter migrate apply` carries the steps out and `rollback`
// undoes them (migrate/apply.h).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "aws/sdk/environment.h"
#include "kube/client.h"

namespace karpenter::cli {

// Which cluster, where: every `karpenter migrate` subcommand's.
struct MigrateTarget {
  std::string cluster_name;
  std::string region;      // "": AWS_REGION, then AWS_DEFAULT_REGION
  std::string kubeconfig;  // "": KUBECONFIG, then ~/.kube/config
};

struct MigratePlanOptions {
  MigrateTarget target;
  // al2023@<this> in the EC2NodeClass; "": the release the cluster's version recommends (SSM).
  std::string alias_version;
  std::string output = "text";  // text | json | html
  // How long the forecast simulates the migration (a duration); "0": no forecast.
  std::string forecast = "1h";
  std::string namespace_ = "kube-system";  // Karpenter's: the controller role trusts its SA
  // The forecast shrinks the node groups this many nodes at a time, as `apply --batch` would.
  int64_t batch = 1;
};

// Reads AWS with the credentials, region and endpoints `environment` gives, and the cluster through
// `cluster`. 0 on success; 1 when AWS or the cluster cannot be read (an unknown cluster, missing
// permissions: the message names the call and the reason); 2 on bad options.
int RunMigratePlan(const MigratePlanOptions& options, const aws::Environment& environment,
                   kube::Client& cluster, std::ostream& out, std::ostream& err);

struct MigrateApplyOptions {
  MigrateTarget target;
  std::string namespace_ = "kube-system";  // Karpenter's: where the record is kept
  std::string alias_version;
  std::string chart;                      // step 5
  std::vector<std::string> values_files;  // step 5, over the seed's values
  int step = 0;                           // 0: every step (--all)
  bool dry_run = false;
  int64_t batch = 1;
  bool allow_unprotected = false;
  std::string settle_timeout = "10m";  // per batch of step 8
};

// `karpenter migrate apply`: the steps (migrate/apply.h), waiting in real time. 0 when every step
// asked for is done; 1 when one fails (the message names the step, why, and what is left as it
// is); 2 on bad options.
int RunMigrateApply(const MigrateApplyOptions& options, const aws::Environment& environment,
                    kube::Client& cluster, std::ostream& out, std::ostream& err);

struct MigrateRollbackOptions {
  MigrateTarget target;
  std::string namespace_ = "kube-system";
  bool all = false;
  bool dry_run = false;
};

int RunMigrateRollback(const MigrateRollbackOptions& options, const aws::Environment& environment,
                       kube::Client& cluster, std::ostream& out, std::ostream& err);

struct MigrateVerifyOptions {
  MigrateTarget target;
  std::string namespace_ = "kube-system";  // Karpenter's
  std::string output = "text";             // text | json
};

// `karpenter migrate verify` (migrate/verify.h): each check with what it found. 0 when every check
// passes, 1 when one fails or AWS or the cluster cannot be read, 2 on bad options.
int RunMigrateVerify(const MigrateVerifyOptions& options, const aws::Environment& environment,
                     kube::Client& cluster, std::ostream& out, std::ostream& err);

// The command line's: the process's environment, and the cluster of the target's kubeconfig.
int RunMigrateCommand(const MigratePlanOptions& options, std::ostream& out, std::ostream& err);
int RunMigrateCommand(const MigrateApplyOptions& options, std::ostream& out, std::ostream& err);
int RunMigrateCommand(const MigrateRollbackOptions& options, std::ostream& out, std::ostream& err);
int RunMigrateCommand(const MigrateVerifyOptions& options, std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli
