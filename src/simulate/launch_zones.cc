#include "simulate/launch_zones.h"

#include <algorithm>
#include <set>

#include "api/labels.h"

namespace karpenter::simulate {

std::vector<std::string> InferLaunchZones(const std::vector<kube::Object>& objects,
                                          const Timeline& timeline) {
  std::set<std::string, std::less<>> zones;
  for (const kube::Object& object : objects) {
    if (!object.is_object() || kube::StringAt(object, {"kind"}) != "Node") continue;
    const std::string_view zone = kube::Label(object, api::kLabelZone);
    if (!zone.empty()) zones.emplace(zone);
  }
  for (const NodeGroupSpec& group : timeline.node_groups) {
    zones.insert(group.zones.begin(), group.zones.end());
  }
  return {zones.begin(), zones.end()};
}

std::vector<cloud::InstanceType> OfferedIn(const std::vector<cloud::InstanceType>& catalog,
                                           const std::vector<std::string>& zones) {
  std::vector<cloud::InstanceType> offered;
  for (const cloud::InstanceType& type : catalog) {
    cloud::InstanceType kept = type;
    std::erase_if(kept.offerings, [&](const cloud::Offering& offering) {
      return std::find(zones.begin(), zones.end(), offering.zone) == zones.end();
    });
    if (!kept.offerings.empty()) offered.push_back(std::move(kept));
  }
  return offered;
}

}  // namespace karpenter::simulate
