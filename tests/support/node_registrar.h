#pragma once
// Plays the machines of an EC2 account on a test cluster: for each running instance of the cluster
// it creates the Node its kubelet would register (kwok then runs its pods), with the labels, taints
// and max pods of its user data — what a node joining an EKS cluster does. The AWS end-to-end tests
// and the chaos benchmark use it.

#include <set>
#include <string>

#include "aws/api/ec2_api.h"
#include "common/result.h"
#include "kube/client.h"

namespace karpenter::support {

class NodeRegistrar {
 public:
  NodeRegistrar(kube::Client& client, aws::Ec2Api& ec2, std::string cluster)
      : client_(client), ec2_(ec2), cluster_(std::move(cluster)) {}

  // Registers the instances that booted since the last call; the first error stops it (the
  // instances after it are registered on the next call).
  Status Register();

 private:
  Status RegisterOne(const aws::Instance& instance);

  kube::Client& client_;
  aws::Ec2Api& ec2_;
  const std::string cluster_;
  std::set<std::string> registered_;
};

}  // namespace karpenter::support
