#include "aws/provider/drift.h"

#include <algorithm>
#include <set>

#include "api/condition.h"
#include "aws/provider/launch_plan.h"

namespace karpenter::aws {

std::string DriftOf(const Instance& instance, const cloud::InstanceType* type,
                    const api::EC2NodeClass& node_class) {
  const api::EC2NodeClass::Status& status = node_class.status;
  if (type != nullptr && !status.amis.empty() &&
      ImageForType(*type, status.amis) != instance.image_id) {
    return std::string(api::kDriftAmi);
  }
  if (!status.security_groups.empty()) {
    std::set<std::string> resolved;
    for (const api::SecurityGroupStatus& group : status.security_groups) resolved.insert(group.id);
    const std::set<std::string> running(instance.security_group_ids.begin(),
                                        instance.security_group_ids.end());
    if (running != resolved) return std::string(api::kDriftSecurityGroup);
  }
  if (!status.subnets.empty() && std::none_of(status.subnets.begin(), status.subnets.end(),
                                              [&](const api::SubnetStatus& subnet) {
                                                return subnet.id == instance.subnet_id;
                                              })) {
    return std::string(api::kDriftSubnet);
  }
  // Upstream's last check: an instance in a reservation the EC2NodeClass no longer selects (the
  // term changed, the reservation ended). Decided only once the reservations were read.
  if (!instance.capacity_reservation_id.empty() &&
      api::IsConditionTrue(status.conditions, api::kConditionCapacityReservationsReady) &&
      std::none_of(status.capacity_reservations.begin(), status.capacity_reservations.end(),
                   [&](const api::CapacityReservationStatus& reservation) {
                     return reservation.id == instance.capacity_reservation_id;
                   })) {
    return std::string(api::kDriftCapacityReservation);
  }
  return "";
}

}  // namespace karpenter::aws
