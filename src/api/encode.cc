#include "api/encode.h"

#include <string>

namespace karpenter::api {
namespace {}  // namespace

Json Encode(const NodeSelectorRequirement& requirement) {
  Json out = {{"key", requirement.key}, {"operator", std::string(ToString(requirement.op))}};
  if (!requirement.values.empty()) out["values"] = requirement.values;
  if (requirement.min_values) out["minValues"] = *requirement.min_values;
  return out;
}

Json Encode(const std::vector<NodeSelectorRequirement>& requirements) {
  Json out = Json::array();
  for (const NodeSelectorRequirement& requirement : requirements) {
    out.push_back(Encode(requirement));
  }
  return out;
}

Json Encode(const Taint& taint) {
  Json out = {{"key", taint.key}, {"effect", std::string(ToString(taint.effect))}};
  if (!taint.value.empty()) out["value"] = taint.value;
  return out;
}

Json Encode(const std::vector<Taint>& taints) {
  Json out = Json::array();
  for (const Taint& taint : taints) out.push_back(Encode(taint));
  return out;
}

Json Encode(const ResourceList& resources) {
  Json out = Json::object();
  resources.ForEach(
      [&](std::string_view name, Quantity value) { out[std::string(name)] = value.ToString(); });
  return out;
}

Json Encode(const Labels& labels) {
  Json out = Json::object();
  for (const auto& [key, value] : labels) out[key] = value;
  return out;
}

Json Encode(const Condition& condition) {
  return {{"type", condition.type},
          {"status", condition.status},
          {"reason", condition.reason},
          {"message", condition.message},
          {"lastTransitionTime", condition.last_transition_time},
          {"observedGeneration", condition.observed_generation}};
}

Json Encode(const EC2NodeClass::Status& status) {
  Json subnets = Json::array();
  for (const SubnetStatus& subnet : status.subnets) {
    subnets.push_back({{"id", subnet.id}, {"zone", subnet.zone}, {"zoneID", subnet.zone_id}});
  }
  Json groups = Json::array();
  for (const SecurityGroupStatus& group : status.security_groups) {
    groups.push_back({{"id", group.id}, {"name", group.name}});
  }
  Json amis = Json::array();
  for (const AmiStatus& ami : status.amis) {
    Json entry = {{"id", ami.id}, {"name", ami.name}, {"requirements", Encode(ami.requirements)}};
    if (ami.deprecated) entry["deprecated"] = true;
    amis.push_back(std::move(entry));
  }
  Json reservations = Json::array();
  for (const CapacityReservationStatus& reservation : status.capacity_reservations) {
    Json entry = {{"id", reservation.id},
                  {"instanceType", reservation.instance_type},
                  {"ownerID", reservation.owner_id},
                  {"availabilityZone", reservation.zone},
                  {"instanceMatchCriteria", reservation.instance_match_criteria},
                  {"reservationType", reservation.reservation_type},
                  {"state", reservation.state}};
    if (!reservation.end_time.empty()) entry["endTime"] = reservation.end_time;
    reservations.push_back(std::move(entry));
  }
  Json conditions = Json::array();
  for (const Condition& condition : status.conditions) conditions.push_back(Encode(condition));
  Json out = {{"subnets", std::move(subnets)},
              {"securityGroups", std::move(groups)},
              {"amis", std::move(amis)},
              {"capacityReservations", std::move(reservations)},
              {"conditions", std::move(conditions)}};
  if (!status.instance_profile.empty()) out["instanceProfile"] = status.instance_profile;
  return out;
}

}  // namespace karpenter::api
