#pragma once
// `karpenter migrate apply` and `rollback`: the seed's steps carried out on the account and the
// cluster that `migrate plan` reads. Each step reads the state afresh, writes to the record
// (record.h) what was there and what it is about to create before it changes anything, and does
// nothing when its work is done already: an apply that stops anywhere — an error, a batch that
// does not settle, a crash — is finished by running it again. Rollback undoes what the record
// names, and nothing the migration did not create.
//
// What each step does:
//   1 checks the cluster (ACTIVE, an OIDC issuer);
//   2 creates the node role with its managed policies and the controller role (IRSA) with the
//     controller policy inline, those `karpenter iam` prints;
//   5 installs the chart with `helm upgrade --install --wait`, with the seed's values and its
//     affinity edit (the controller required onto the controller's node group, off Karpenter's
//     nodes);
//   3 tags the subnets and security groups that lack karpenter.sh/discovery=<cluster>;
//   4 gives the node role an EC2_LINUX access entry (authentication mode API or
//     API_AND_CONFIG_MAP) or a mapRoles entry in aws-auth (CONFIG_MAP);
//   6 creates the NodePools and EC2NodeClasses derived from the node groups;
//   7 requires kube-system's Deployments onto the controller's node group;
//   8 scales Cluster Autoscaler to 0, then shrinks each node group to its target `batch` nodes at a
//     time, waiting after each batch until it settles (settle.h); refused while workloads on node
//     groups have no PodDisruptionBudget, unless allowed;
//   9 checks the seed's verification: steps 1 to 8 done, no pod pending, Karpenter's nodes
//     joined.

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "aws/api/aws_clients.h"
#include "common/clock.h"
#include "common/result.h"
#include "kube/client.h"

namespace karpenter::migrate {

struct ApplyOptions {
  std::string cluster_name;
  std::string namespace_ = "kube-system";  // Karpenter's, where the record is kept
  std::string alias_version;               // "": the release the cluster's version recommends
  std::string kubeconfig;                  // handed to helm; "": helm's default, as ours
  // Step 5: the karpenter-cpp chart (a directory, a .tgz or an oci:// reference), and values files
  // applied over the seed's values.
  std::string chart;
  std::vector<std::string> values_files;
  std::vector<int> steps;  // in order, each 1 to 9
  bool dry_run = false;    // say what would change; change nothing
  int64_t batch = 1;       // nodes a node group loses at a time
  bool allow_unprotected = false;
  std::chrono::seconds settle_timeout{600};  // per batch
  std::chrono::seconds poll_interval{5};
};

// Runs a program (helm) and returns its output; common/run_program.h's RunProgram.
using ProgramRunner = std::function<Result<std::string>(const std::vector<std::string>& argv)>;

// Time, programs, and the test-only crash points (apply's and rollback's).
struct ApplyHooks {
  const Clock* clock = nullptr;
  std::function<void(std::chrono::milliseconds)> sleep;
  ProgramRunner run;
  // Called at each point a crash could fall between two writes ("step 3: recorded", "step 3:
  // changed", "step 8: batch"); true stops apply there, as a crash would, writing nothing more.
  // Tests only: the command line leaves it empty.
  std::function<bool(std::string_view point)> crash_at;
};

// Runs options.steps in order and stops at the first that fails; what each did (or would do) goes
// to `out`. Errors name the step and the reason, and say what is left as it is.
Status ApplyMigration(aws::AwsClients& clients, kube::Client& cluster, const ApplyOptions& options,
                      const ApplyHooks& hooks, std::ostream& out);

struct RollbackOptions {
  std::string cluster_name;
  std::string namespace_ = "kube-system";
  // false: Cluster Autoscaler's replicas, the node groups' sizes and the pinning (Cluster
  // Autoscaler takes over again, Karpenter stays); true: also the NodePools and EC2NodeClasses
  // (waiting until Karpenter's nodes are gone), the chart, the node role's access, the discovery
  // tags, the IAM roles, and the record itself.
  bool all = false;
  bool dry_run = false;
  std::string kubeconfig;  // handed to helm
  // --all: how long the controller may take to drain and terminate its nodes once the NodePools
  // are deleted, before the chart goes.
  std::chrono::seconds drain_timeout{600};
  std::chrono::seconds poll_interval{5};
};

Status RollbackMigration(aws::AwsClients& clients, kube::Client& cluster,
                         const RollbackOptions& options, const ApplyHooks& hooks,
                         std::ostream& out);

}  // namespace karpenter::migrate
