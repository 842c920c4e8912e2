#pragma once
// What controllers ask of a cloud (upstream-reference §2, §9): launch a machine for a NodeClaim (or
// for several at once, so a provider can merge identical launches), find it again, list the
// machines this cluster owns, and delete them. Implemented by the simulated EC2
// (cloud/sim/sim_cloud_provider.h) and the AWS provider.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "api/object_meta.h"
#include "api/resource_list.h"
#include "cloud/instance_type.h"
#include "cloud/repair_policy.h"
#include "common/clock.h"
#include "common/result.h"

namespace karpenter::cloud {

// One machine as the cloud reports it.
struct Instance {
  std::string provider_id;  // "aws:///us-east-1a/i-0123…", "sim:///us-east-1a/i-0000…01"
  std::string node_claim;   // the NodeClaim it was launched for (its ownership tag)
  std::string node_pool;
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  std::string image_id;
  std::string node_name;  // the name its kubelet registers the Node under
  double price = 0;       // USD per hour of the chosen offering
  TimePoint launch_time;
  // The labels the node will carry: the instance type's single-valued labels, zone, region,
  // capacity type, and the NodeClaim's own single-valued requirements.
  api::Labels labels;
  // The taints the kubelet registers with: the NodeClaim's taints and startup taints, and
  // karpenter.sh/unregistered until Karpenter has synced the Node.
  std::vector<api::Taint> taints;
  api::ResourceList capacity;
  api::ResourceList allocatable;
};

// Error reasons a provider returns so controllers can react.
inline constexpr std::string_view kReasonNotFound = "NotFound";  // the instance is gone
// No offering compatible with the NodeClaim has capacity now: re-plan its pods elsewhere.
inline constexpr std::string_view kReasonInsufficientCapacity = "InsufficientCapacity";
// The provider ID names no machine of this cluster: another cloud's scheme, or (AWS) an instance
// without this cluster's ownership tags. Such a machine is never drained for nor terminated.
inline constexpr std::string_view kReasonNotOwned = "NotOwned";

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;

  // Launches the cheapest available offering that satisfies the NodeClaim's requirements and
  // resource requests. Idempotent per NodeClaim: a second call returns the same instance.
  virtual Result<Instance> Create(const api::NodeClaim& node_claim) = 0;
  // Create for each NodeClaim; the results are parallel to the input. A provider may launch
  // NodeClaims with identical launch requests together (the AWS provider sends one CreateFleet
  // for them); this default launches them one at a time.
  virtual std::vector<Result<Instance>> CreateAll(
      std::span<const api::NodeClaim* const> node_claims) {
    std::vector<Result<Instance>> instances;
    instances.reserve(node_claims.size());
    for (const api::NodeClaim* node_claim : node_claims) instances.push_back(Create(*node_claim));
    return instances;
  }
  // Terminates the instance. Fails with reason NotFound when it no longer exists, NotOwned when it
  // is not this cluster's (and then leaves it alone).
  virtual Status Delete(std::string_view provider_id) = 0;
  // The instance; reasons NotFound and NotOwned as Delete's.
  virtual Result<Instance> Get(std::string_view provider_id) = 0;
  // Every instance this cluster owns, in a stable order.
  virtual Result<std::vector<Instance>> List() = 0;
  // The instance types a NodePool may launch, offerings marked (un)available now. Shared and
  // immutable: a provisioning pass holds it without copying a catalog of a thousand types.
  virtual Result<std::shared_ptr<const std::vector<InstanceType>>> GetInstanceTypes(
      const api::NodePool& node_pool) = 0;
  // Why the instance of `node_claim` (launched, with a provider ID) no longer matches what its
  // node class resolves to now — an AWS instance whose AMI, subnet or security groups are no
  // longer the EC2NodeClass's ("AMIDrift", "SubnetDrift", "SecurityGroupDrift") —; empty when it
  // matches or the provider cannot tell yet. This default: never (the simulated cloud has
  // nothing that resolves).
  virtual Result<std::string> IsDrifted(const api::NodeClaim& node_claim) {
    (void)node_claim;
    return std::string();
  }
  // The Node conditions after which a node is replaced when the NodeRepair gate is on. This
  // default: none.
  virtual std::span<const RepairPolicy> RepairPolicies() const { return {}; }
  // "aws" or "sim": the scheme of provider IDs.
  virtual std::string_view Name() const = 0;
};

}  // namespace karpenter::cloud
