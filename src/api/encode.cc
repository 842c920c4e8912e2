#include "api/encode.h"

#include <string>

namespace karpenter::api {
namespace {}  // namespace

nlohmann::json Encode(const NodeSelectorRequirement& requirement) {
  nlohmann::json out = {{"key", requirement.key},
                        {"operator", std::string(ToString(requirement.op))}};
  if (!requirement.values.empty()) out["values"] = requirement.values;
  if (requirement.min_values) out["minValues"] = *requirement.min_values;
  return out;
}

nlohmann::json Encode(const std::vector<NodeSelectorRequirement>& requirements) {
  nlohmann::json out = nlohmann::json::array();
  for (const NodeSelectorRequirement& requirement : requirements) {
    out.push_back(Encode(requirement));
  }
  return out;
}

nlohmann::json Encode(const Taint& taint) {
  nlohmann::json out = {{"key", taint.key}, {"effect", std::string(ToString(taint.effect))}};
  if (!taint.value.empty()) out["value"] = taint.value;
  return out;
}

nlohmann::json Encode(const std::vector<Taint>& taints) {
  nlohmann::json out = nlohmann::json::array();
  for (const Taint& taint : taints) out.push_back(Encode(taint));
  return out;
}

nlohmann::json Encode(const ResourceList& resources) {
  nlohmann::json out = nlohmann::json::object();
  resources.ForEach(
      [&](std::string_view name, Quantity value) { out[std::string(name)] = value.ToString(); });
  return out;
}

nlohmann::json Encode(const Labels& labels) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : labels) out[key] = value;
  return out;
}

nlohmann::json Encode(const Condition& condition) {
  return {{"type", condition.type},
          {"status", condition.status},
          {"reason", condition.reason},
          {"message", condition.message},
          {"lastTransitionTime", condition.last_transition_time},
          {"observedGeneration", condition.observed_generation}};
}

nlohmann::json Encode(const EC2NodeClass::Status& status) {
  nlohmann::json subnets = nlohmann::json::array();
  for (const SubnetStatus& subnet : status.subnets) {
    subnets.push_back({{"id", subnet.id}, {"zone", subnet.zone}, {"zoneID", subnet.zone_id}});
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const SecurityGroupStatus& group : status.security_groups) {
    groups.push_back({{"id", group.id}, {"name", group.name}});
  }
  nlohmann::json amis = nlohmann::json::array();
  for (const AmiStatus& ami : status.amis) {
    nlohmann::json entry = {
        {"id", ami.id}, {"name", ami.name}, {"requirements", Encode(ami.requirements)}};
    if (ami.deprecated) entry["deprecated"] = true;
    amis.push_back(std::move(entry));
  }
  nlohmann::json reservations = nlohmann::json::array();
  for (const CapacityReservationStatus& reservation : status.capacity_reservations) {
    nlohmann::json entry = {{"id", reservation.id},
                            {"instanceType", reservation.instance_type},
                            {"ownerID", reservation.owner_id},
                            {"availabilityZone", reservation.zone},
                            {"instanceMatchCriteria", reservation.instance_match_criteria},
                            {"reservationType", reservation.reservation_type},
                            {"state", reservation.state}};
    if (!reservation.end_time.empty()) entry["endTime"] = reservation.end_time;
    reservations.push_back(std::move(entry));
  }
  nlohmann::json conditions = nlohmann::json::array();
  for (const Condition& condition : status.conditions) conditions.push_back(Encode(condition));
  nlohmann::json out = {{"subnets", std::move(subnets)},
                        {"securityGroups", std::move(groups)},
                        {"amis", std::move(amis)},
                        {"capacityReservations", std::move(reservations)},
                        {"conditions", std::move(conditions)}};
  if (!status.instance_profile.empty()) out["instanceProfile"] = status.instance_profile;
  return out;
}

}  // namespace karpenter::api
