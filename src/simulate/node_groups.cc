#include "simulate/node_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "api/encode.h"
#include "api/labels.h"
#include "api/pod.h"
#include "cloud/sim/node_booter.h"

namespace karpenter::simulate {
namespace {

using kube::Object;
namespace resources = kube::resources;

constexpr std::chrono::seconds kEvictionRetry(5);

const cloud::InstanceType* FindType(const std::vector<cloud::InstanceType>& catalog,
                                    std::string_view name) {
  for (const cloud::InstanceType& type : catalog) {
    if (type.name == name) return &type;
  }
  return nullptr;
}

// Whether the pod still runs or waits to: neither finished nor already going.
bool Live(const Object& pod) {
  if (!kube::DeletionTimestamp(pod).empty()) return false;
  const std::string_view phase = kube::StringAt(pod, {"status", "phase"});
  return phase != "Succeeded" && phase != "Failed";
}

// Whether `kubectl drain` evicts the pod: live, not a DaemonSet's or a mirror pod.
bool Drained(const Object& pod) {
  if (!Live(pod)) return false;
  if (!kube::Annotation(pod, api::kAnnotationMirrorPod).empty()) return false;
  return kube::ControllerKind(pod) != "DaemonSet";
}

// Whether the pod waits for a node: live and not bound.
bool IsPending(const Object& pod) {
  return Live(pod) && kube::StringAt(pod, {"spec", "nodeName"}).empty();
}

}  // namespace

NodeGroups::NodeGroups(kube::Client& client, controllers::ClusterCache& cluster, const Clock& clock,
                       const std::vector<cloud::InstanceType>& catalog, std::string region,
                       NodeGroupEventSink on_event)
    : client_(client),
      cluster_(cluster),
      clock_(clock),
      catalog_(catalog),
      region_(std::move(region)),
      on_event_(std::move(on_event)) {}

Status NodeGroups::Create(const NodeGroupSpec& spec) {
  const cloud::InstanceType* type = FindType(catalog_, spec.instance_type);
  if (type == nullptr) {
    return Error{fmt::format("node group {}: instanceType: \"{}\" is not in the catalog", spec.name,
                             spec.instance_type)};
  }
  const std::string capacity_type(spec.spot ? api::kCapacityTypeSpot : api::kCapacityTypeOnDemand);
  std::vector<std::string> zones = spec.zones;
  if (zones.empty()) {
    for (const cloud::Offering& offering : type->offerings) {
      if (offering.capacity_type == capacity_type) zones.push_back(offering.zone);
    }
    std::sort(zones.begin(), zones.end());
    zones.erase(std::unique(zones.begin(), zones.end()), zones.end());
  }
  for (const std::string& zone : zones) {
    const bool offered = std::any_of(
        type->offerings.begin(), type->offerings.end(), [&](const cloud::Offering& offering) {
          return offering.zone == zone && offering.capacity_type == capacity_type;
        });
    if (!offered) {
      return Error{fmt::format("node group {}: zones: {} {} is not offered in {}", spec.name,
                               spec.instance_type, capacity_type, zone)};
    }
  }
  if (zones.empty()) {
    return Error{fmt::format("node group {}: {} has no {} offering", spec.name, spec.instance_type,
                             capacity_type)};
  }
  api::Labels labels;
  for (const auto& [key, value] : type->requirements.SingleValueLabels()) {
    if (key == api::kLabelArch || key == api::kLabelOs) labels.emplace(key, value);
  }
  labels.emplace(api::kLabelInstanceType, type->name);
  labels.emplace(api::kLabelRegion, region_);
  labels.emplace(api::kLabelNodeGroup, spec.name);
  labels.emplace(api::kLabelEksCapacityType, spec.spot ? "SPOT" : "ON_DEMAND");
  for (const auto& [key, value] : spec.labels) labels.insert_or_assign(key, value);
  const Object like = {{"metadata", {{"labels", api::Encode(labels)}}},
                       {"status",
                        {{"capacity", api::Encode(type->capacity)},
                         {"allocatable", api::Encode(type->Allocatable())}}}};
  for (int i = 0; i < spec.size; ++i) {
    if (Status added = AddNode(spec.name, like, zones[static_cast<size_t>(i) % zones.size()]);
        !added.ok()) {
      return added;
    }
  }
  return {};
}

Status NodeGroups::AddNode(std::string_view group, const Object& like, std::string_view zone) {
  const int number = ++created_[std::string(group)];
  const std::string name = fmt::format("{}-{}", group, number);
  Object labels = like["metadata"].value("labels", Object::object());
  labels[api::kLabelZone] = zone;
  labels[api::kLabelHostname] = name;
  const std::string now = FormatTime(clock_.Now());
  Object node = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      // The annotation lets kwok play the kubelet when the Node is created on a test cluster
      // (karpenter-bench fidelity); in memory nothing reads it.
      {"metadata",
       {{"name", name},
        {"labels", std::move(labels)},
        {"annotations", {{cloud::kAnnotationKwokNode, "fake"}}}}},
      {"spec", {{"providerID", fmt::format("aws:///{}/i-{}{:04d}", zone, group, number)}}},
      {"status",
       {{"capacity", like["status"].value("capacity", Object::object())},
        {"allocatable", like["status"].value("allocatable", Object::object())},
        {"conditions", Object::array({{{"type", "Ready"},
                                       {"status", "True"},
                                       {"reason", "KubeletReady"},
                                       {"lastHeartbeatTime", now},
                                       {"lastTransitionTime", now}}})}}}};
  RETURN_IF_ERROR(client_.Create(resources::kNodes, node, kube::WriteOptions{}));
  // Status is a subresource: patch it in as the kubelet does (a patch, not an update: on a test
  // cluster kwok writes the same Node's status at once).
  const Object status = {{"status", node["status"]}};
  RETURN_IF_ERROR(client_.Patch(resources::kNodes, "", name, kube::PatchType::kMerge, status,
                                kube::Subresource::kStatus));
  return {};
}

std::vector<std::string> NodeGroups::Members(std::string_view group) const {
  std::vector<std::string> names;
  cluster_.nodes().ForEach([&](const Object& node) {
    if (kube::Label(node, api::kLabelNodeGroup) == group && kube::DeletionTimestamp(node).empty()) {
      names.emplace_back(kube::Name(node));
    }
  });
  std::sort(names.begin(), names.end());
  return names;
}

Status NodeGroups::Scale(const ScaleNodeGroup& scale) {
  const std::vector<std::string> members = Members(scale.name);
  if (members.empty()) {
    return Error{fmt::format("scaleNodeGroup: node group \"{}\" has no nodes", scale.name)};
  }
  if (scale.size > static_cast<int>(members.size())) {
    std::optional<Object> like = cluster_.nodes().Get(members.front());
    std::map<std::string, int, std::less<>> per_zone;
    for (const std::string& member : members) {
      if (std::optional<Object> node = cluster_.nodes().Get(member)) {
        ++per_zone[std::string(kube::Label(*node, api::kLabelZone))];
      }
    }
    for (auto i = static_cast<int>(members.size()); i < scale.size && like; ++i) {
      auto zone =
          std::min_element(per_zone.begin(), per_zone.end(),
                           [](const auto& a, const auto& b) { return a.second < b.second; });
      ++zone->second;
      if (Status added = AddNode(scale.name, *like, zone->first); !added.ok()) return added;
    }
    return {};
  }
  Resize& resize = resizes_[scale.name];
  resize.size = scale.size;
  resize.batch = scale.batch;
  if (scale.settle && !resize.settle) resize.order = ++settle_order_;
  resize.settle = scale.settle;
  return {};
}

std::set<std::string, std::less<>> NodeGroups::Pending() const {
  std::set<std::string, std::less<>> pending;
  cluster_.pods().ForEach([&](const Object& pod) {
    if (IsPending(pod)) pending.emplace(kube::Uid(pod));
  });
  return pending;
}

bool NodeGroups::NewlyPending(const Resize& resize) const {
  // Asked on every step while a batch settles: no copy of the pods' uids.
  bool found = false;
  cluster_.pods().ForEach([&](const Object& pod) {
    found = found || (IsPending(pod) && !resize.pending_before.contains(kube::Uid(pod)));
  });
  return found;
}

Result<size_t> NodeGroups::Run() {
  const TimePoint now = clock_.Now();
  const bool retry_due = !retry_at_ || now >= *retry_at_;
  size_t changes = 0;
  // Settling groups shrink one at a time: the first asked for goes on, the others wait.
  const Resize* settling = nullptr;
  for (const auto& [group, resize] : resizes_) {
    if (resize.settle && (settling == nullptr || resize.order < settling->order)) {
      settling = &resize;
    }
  }
  for (auto it = resizes_.begin(); it != resizes_.end();) {
    const std::string& group = it->first;
    Resize& resize = it->second;
    if (resize.settle && &resize != settling) {
      ++it;
      continue;
    }
    const std::vector<std::string> members = Members(group);
    std::erase_if(resize.draining, [&](const std::string& name) {
      return !std::binary_search(members.begin(), members.end(), name);
    });
    const int surplus = static_cast<int>(members.size()) - resize.size;
    // A settling group's batch is done once its nodes are gone and the pods it displaced are
    // placed (a pod pending before it does not hold it back); only then does the next start, or
    // the next group.
    const bool settled =
        !resize.settle || !resize.started || (resize.draining.empty() && !NewlyPending(resize));
    if (surplus <= 0 && resize.draining.empty() && settled) {
      it = resizes_.erase(it);
      continue;
    }
    if (resize.settle && resize.draining.empty() && settled) {
      resize.started = true;
      resize.pending_before = Pending();
    }
    // Cordon the next nodes, up to the batch, never more than the surplus (settling: a whole
    // batch at once, once the last one has settled).
    for (const std::string& name : members) {
      if (resize.settle && !settled) break;
      if (static_cast<int>(resize.draining.size()) >= std::min(resize.batch, surplus)) break;
      if (resize.draining.contains(name)) continue;
      ASSIGN_OR_RETURN(
          Object cordoned,
          client_.Patch(resources::kNodes, "", name, kube::PatchType::kMerge,
                        {{"spec", {{"unschedulable", true}}}}, kube::Subresource::kNone));
      resize.draining.insert(name);
      on_event_("NodeCordoned", name);
      ++changes;
    }
    // Evict what runs on the draining nodes; terminate the drained ones.
    for (const std::string& name : resize.draining) {
      size_t left = 0;
      for (const Object& pod : cluster_.pods().ByIndex(controllers::kIndexPodsByNode, name)) {
        if (!Drained(pod)) continue;
        ++left;
        if (!retry_due) continue;
        const Status evicted =
            client_.Evict(kube::Namespace(pod), kube::Name(pod), kube::DeleteOptions{});
        if (evicted.ok()) {
          ++changes;
        } else if (evicted.error().status == 429) {
          retry_at_ = now + kEvictionRetry;
        } else if (evicted.error().status != 404) {
          return evicted.error();
        }
      }
      if (left == 0) {
        const Status deleted = client_.Delete(resources::kNodes, "", name, {});
        if (!deleted.ok() && deleted.error().status != 404) return deleted.error();
        on_event_("NodeGroupNodeTerminated", name);
        ++changes;
      }
    }
    ++it;
  }
  if (retry_at_ && now >= *retry_at_ && changes == 0) retry_at_.reset();
  return changes;
}

std::optional<TimePoint> NodeGroups::NextWake() const {
  if (resizes_.empty()) return std::nullopt;
  return retry_at_;
}

}  // namespace karpenter::simulate
