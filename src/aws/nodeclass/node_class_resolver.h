#pragma once
// Resolves an EC2NodeClass's selectors into its status, as its controller reconciles it: the
// subnets (most free addresses first), the security groups, the AMIs (aliases through the public
// SSM parameters, other terms through DescribeImages; the newest per requirement set), the
// instance profile (created and owned for spec.role), the capacity reservations (with the
// ReservedCapacity gate on: each term its own DescribeCapacityReservations query of active ones,
// as upstream; those that ended left out; their counts synced; a selected capacity block, which
// is not supported yet, makes CapacityReservationsReady False rather than be ignored), and the
// conditions SubnetsReady, SecurityGroupsReady, AMIsReady, InstanceProfileReady,
// CapacityReservationsReady (with the gate) and Ready (all True).

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/ec2nodeclass.h"
#include "aws/api/ec2_api.h"
#include "aws/api/iam_api.h"
#include "aws/api/ssm_api.h"
#include "aws/nodeclass/reservation_counts.h"
#include "common/clock.h"
#include "common/result.h"

namespace karpenter::aws {

// Held by EC2NodeClasses until Finalize has cleaned up after them.
inline constexpr std::string_view kFinalizerNodeClassTermination = "karpenter.k8s.aws/termination";

struct NodeClassResolverOptions {
  std::string cluster_name;
  std::string region;
  // The cluster's Kubernetes version now ("1.31"), asked at each AMI resolution: it picks the
  // EKS-optimized AMIs of aliases, which follow a control-plane upgrade.
  std::function<std::string()> kubernetes_version;
  bool reserved_capacity = true;  // the ReservedCapacity feature gate
  // Where the reservations' counts go when they are read; null: nowhere. Must outlive this.
  ReservationCounts* reservation_counts = nullptr;
};

// Which parts of the status a Resolve refreshes; the others keep their value and condition.
struct ResolveParts {
  bool subnets = true;
  bool security_groups = true;
  bool amis = true;
  bool instance_profile = true;
  bool capacity_reservations = true;
};

// Not thread-safe, as the API clients are not. The clients and clock must outlive this.
class NodeClassResolver {
 public:
  using Options = NodeClassResolverOptions;

  NodeClassResolver(Ec2Api& ec2, SsmApi& ssm, IamApi& iam, Options options, const Clock& clock);

  // The status `node_class` should have now. Never fails: what matched nothing and AWS errors
  // land in the conditions (False, with a reason and a message naming the node class, the terms
  // and the error). On an AWS error the part keeps its previous value from node_class.status;
  // when the terms match nothing it is emptied. Conditions of other types are carried over, and
  // each condition keeps its lastTransitionTime while its status does not change.
  api::EC2NodeClass::Status Resolve(const api::EC2NodeClass& node_class,
                                    const ResolveParts& parts = {});

  // Cleanup before the node class goes (its finalizer): deletes the instance profile Resolve
  // created for spec.role, detaching its roles first. A profile already gone is success; a
  // node class with spec.instanceProfile has nothing to clean up.
  Status Finalize(const api::EC2NodeClass& node_class);

  // The parts of Resolve, each on its own. Errors name the node class and the field.
  Result<std::vector<api::SubnetStatus>> ResolveSubnets(const api::EC2NodeClass& node_class);
  Result<std::vector<api::SecurityGroupStatus>> ResolveSecurityGroups(
      const api::EC2NodeClass& node_class);
  // Sorted newest first (then by id); one entry per distinct requirement set.
  Result<std::vector<api::AmiStatus>> ResolveAmis(const api::EC2NodeClass& node_class);
  // What the capacity reservation terms select, by id: the default reservations, and the ids of
  // the capacity blocks (not supported yet).
  struct SelectedReservations {
    std::vector<api::CapacityReservationStatus> reservations;
    std::vector<std::string> capacity_blocks;
  };
  Result<SelectedReservations> ResolveCapacityReservations(const api::EC2NodeClass& node_class);
  // spec.instanceProfile when it exists; for spec.role, the profile this controller owns
  // (InstanceProfileName), created, tagged and given the role as needed.
  Result<std::string> ResolveInstanceProfile(const api::EC2NodeClass& node_class);

  // The name of the profile created for `node_class`'s role: "<cluster>_<hash of region and
  // node class name>", stable across restarts.
  std::string InstanceProfileName(const api::EC2NodeClass& node_class) const;
  // The tags that profile carries: kubernetes.io/cluster/<cluster>=owned,
  // karpenter.sh/managed-by=<cluster>, karpenter.k8s.aws/ec2nodeclass=<name>,
  // topology.kubernetes.io/region=<region>, on top of spec.tags.
  IamTags InstanceProfileTags(const api::EC2NodeClass& node_class) const;

 private:
  Ec2Api& ec2_;
  SsmApi& ssm_;
  IamApi& iam_;
  Options options_;
  const Clock& clock_;
};

}  // namespace karpenter::aws
