#pragma once
// The AWS account scripts/testenv/moto-up serves from a directory: moto's endpoint and the fault
// proxy's in front of it, what it seeded (seed.json: region, account, cluster, subnets, the
// unmanaged instance, the test's and the controller's credentials), the proxy's controls (faults
// and the IAM policy it enforces on the controller's key, scripts/testenv/fault_proxy.py), and the
// environment a controller run as the chart runs it gets from IRSA. No test framework here: the
// tests' helpers (tests/aws/api/moto_fixture.h) and the chaos benchmark share it.

#include <string>
#include <vector>

#include "aws/api/ec2_api.h"
#include "aws/sdk/environment.h"
#include "common/result.h"
#include "kube/object.h"

namespace karpenter::support {

class MotoAccount {
 public:
  // Reads what moto-up wrote in `dir`; an error names the file and says to run the script.
  static Result<MotoAccount> Read(const std::string& dir);

  const std::string& endpoint() const { return endpoint_; }
  const std::string& fault_endpoint() const { return fault_endpoint_; }
  const kube::Object& seed() const { return seed_; }
  std::string Seeded(const char* field) const { return seed_.value(field, ""); }

  // POST /_faults: the faults the proxy injects from now on (an empty object: none); its counts of
  // injected faults start again.
  Status SetFaults(const kube::Object& faults) const;
  // GET /_faults: the faults, their counts and the requests forwarded since they were set.
  Result<kube::Object> FaultState() const;
  // Enforces `policy` (an IAM policy document; null: nothing) on the requests the controller's key
  // signs, and zeroes the proxy's IAM counts.
  Status SetControllerPolicy(const kube::Object& policy) const;
  // What `karpenter iam policy` (the binary at `karpenter`) prints for this account, cluster,
  // queue and node role.
  Result<kube::Object> GeneratedPolicy(const std::string& karpenter) const;
  // `env` (NAME=VALUE entries, a chart-run controller's) with what IRSA would add for this account:
  // the controller's own key, the region, the fault proxy as the AWS endpoint, and the cluster's
  // name and interruption queue.
  std::vector<std::string> ControllerEnvironment(std::vector<std::string> env) const;
  // The environment of a test's own AWS clients: moto itself (not the proxy) and the test's key.
  aws::Environment TestEnvironment() const;

  // The instances EC2 has for the seeded cluster (tagged kubernetes.io/cluster/NAME=owned) in
  // `states`.
  Result<std::vector<aws::Instance>> ClusterInstances(aws::Ec2Api& ec2,
                                                      const std::vector<std::string>& states) const;
  // Terminates the cluster's pending and running instances (what an earlier run left).
  Status TerminateClusterInstances(aws::Ec2Api& ec2) const;
  // Launches, behind the controller's back, an m5.large tagged for the cluster and the NodePool
  // "default" but claimed by no NodeClaim (a launch whose NodeClaim was lost), from a launch
  // template of the cluster; its instance id.
  Result<std::string> LeakInstance(aws::Ec2Api& ec2) const;

 private:
  std::string endpoint_;
  std::string fault_endpoint_;
  kube::Object seed_;
};

}  // namespace karpenter::support
