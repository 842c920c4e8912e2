#include "aws/provider/launch_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "api/labels.h"
#include "cloud/cloud_provider.h"
#include "scheduling/requirements.h"

namespace karpenter::aws {
namespace {

constexpr std::string_view kSpot = api::kCapacityTypeSpot;
constexpr std::string_view kOnDemand = api::kCapacityTypeOnDemand;
constexpr std::string_view kReserved = api::kCapacityTypeReserved;

// The image for a type: the first of the node class's AMIs (newest first) whose requirements
// the type meets; empty when none does.
std::string ImageFor(const cloud::InstanceType& type,
                     const std::vector<std::pair<std::string, scheduling::Requirements>>& amis) {
  for (const auto& [id, requirements] : amis) {
    if (type.requirements.Intersects(requirements)) return id;
  }
  return "";
}

}  // namespace

std::string ImageForType(const cloud::InstanceType& type, const std::vector<api::AmiStatus>& amis) {
  for (const api::AmiStatus& ami : amis) {
    if (type.requirements.Intersects(
            scheduling::Requirements::FromNodeSelector(ami.requirements))) {
      return ami.id;
    }
  }
  return "";
}

Result<LaunchPlan> PlanLaunch(const api::NodeClaim& node_claim, const api::EC2NodeClass& node_class,
                              const std::vector<cloud::InstanceType>& instance_types) {
  const std::string& claim = node_claim.metadata.name;
  if (node_class.status.subnets.empty()) {
    return Error(fmt::format("NodeClaim {}: EC2NodeClass {} has no resolved subnets", claim,
                             node_class.metadata.name));
  }
  if (node_class.status.amis.empty()) {
    return Error(fmt::format("NodeClaim {}: EC2NodeClass {} has no resolved AMIs", claim,
                             node_class.metadata.name));
  }
  // The subnet of each zone with the most free addresses (status lists them most free first).
  std::map<std::string, std::string, std::less<>> subnet_of_zone;
  for (const api::SubnetStatus& subnet : node_class.status.subnets) {
    subnet_of_zone.emplace(subnet.zone, subnet.id);
  }
  std::vector<std::pair<std::string, scheduling::Requirements>> amis;
  for (const api::AmiStatus& ami : node_class.status.amis) {
    amis.emplace_back(ami.id, scheduling::Requirements::FromNodeSelector(ami.requirements));
  }

  const scheduling::Requirements wanted =
      scheduling::Requirements::FromNodeSelector(node_claim.spec.requirements);
  struct Fitting {
    const cloud::InstanceType* type;
    std::string image_id;
  };
  std::vector<Fitting> fitting;
  // Whether an offering of `type` in its zone may take this launch.
  const auto usable = [&](const cloud::Offering& offering) {
    return offering.available && subnet_of_zone.contains(offering.zone) &&
           wanted.Allows(api::kLabelZone, offering.zone) &&
           (offering.reservation_id.empty() ||
            wanted.Allows(api::kLabelCapacityReservationId, offering.reservation_id));
  };
  bool spot_available = false;
  bool reserved_available = false;
  for (const cloud::InstanceType& type : instance_types) {
    if (!type.requirements.Intersects(wanted)) continue;
    if (!node_claim.spec.resource_requests.FitsIn(type.Allocatable())) continue;
    std::string image_id = ImageFor(type, amis);
    if (image_id.empty()) continue;
    for (const cloud::Offering& offering : type.offerings) {
      if (!usable(offering)) continue;
      if (offering.capacity_type == kSpot) spot_available = true;
      if (offering.capacity_type == kReserved) reserved_available = true;
    }
    fitting.push_back(Fitting{&type, std::move(image_id)});
  }

  LaunchPlan plan;
  if (reserved_available && wanted.Allows(api::kLabelCapacityType, kReserved)) {
    plan.capacity_type = kReserved;
  } else if (spot_available && wanted.Allows(api::kLabelCapacityType, kSpot)) {
    plan.capacity_type = kSpot;
  } else {
    plan.capacity_type = kOnDemand;
  }
  if (!wanted.Allows(api::kLabelCapacityType, plan.capacity_type)) {
    return Error(fmt::format("NodeClaim {}: no capacity it allows is available (its reserved "
                             "capacity is full, or it allows neither spot nor on-demand)",
                             claim),
                 0, std::string(cloud::kReasonInsufficientCapacity));
  }
  struct TypeCandidates {
    double cheapest = std::numeric_limits<double>::infinity();
    std::vector<LaunchCandidate> candidates;
  };
  std::vector<TypeCandidates> by_type;
  for (const Fitting& fit : fitting) {
    TypeCandidates entry;
    std::map<std::string_view, const cloud::Offering*> roomiest;  // reserved: by zone
    for (const cloud::Offering& offering : fit.type->offerings) {
      if (!usable(offering) || offering.capacity_type != plan.capacity_type) continue;
      if (plan.capacity_type == kReserved) {
        const cloud::Offering*& best = roomiest[offering.zone];
        if (best == nullptr || offering.reservation_capacity > best->reservation_capacity) {
          best = &offering;
        }
        continue;
      }
      entry.cheapest = std::min(entry.cheapest, offering.price);
      entry.candidates.push_back(LaunchCandidate{fit.type, offering.zone,
                                                 subnet_of_zone.at(offering.zone), fit.image_id,
                                                 offering.price, ""});
    }
    for (const auto& [zone, offering] : roomiest) {
      entry.cheapest = std::min(entry.cheapest, offering->price);
      entry.candidates.push_back(LaunchCandidate{fit.type, offering->zone,
                                                 subnet_of_zone.at(offering->zone), fit.image_id,
                                                 offering->price, offering->reservation_id});
    }
    if (!entry.candidates.empty()) by_type.push_back(std::move(entry));
  }
  if (by_type.empty()) {
    return Error(
        fmt::format("NodeClaim {}: no available {} offering of a compatible instance "
                    "type that fits {} cpu / {} memory in a zone with a subnet of "
                    "EC2NodeClass {}",
                    claim, plan.capacity_type, node_claim.spec.resource_requests.cpu().ToString(),
                    node_claim.spec.resource_requests.memory().ToString(),
                    node_class.metadata.name),
        0, std::string(cloud::kReasonInsufficientCapacity));
  }
  // Cheapest first; ties keep the catalog's order, so plans are deterministic.
  std::stable_sort(
      by_type.begin(), by_type.end(),
      [](const TypeCandidates& a, const TypeCandidates& b) { return a.cheapest < b.cheapest; });
  if (by_type.size() > kMaxLaunchInstanceTypes) by_type.resize(kMaxLaunchInstanceTypes);
  for (TypeCandidates& entry : by_type) {
    std::stable_sort(
        entry.candidates.begin(), entry.candidates.end(),
        [](const LaunchCandidate& a, const LaunchCandidate& b) { return a.price < b.price; });
    for (LaunchCandidate& candidate : entry.candidates) {
      plan.candidates.push_back(std::move(candidate));
    }
  }
  return plan;
}

}  // namespace karpenter::aws
