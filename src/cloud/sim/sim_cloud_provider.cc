#include "cloud/sim/sim_cloud_provider.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/labels.h"
#include "common/mutex.h"
#include "scheduling/requirements.h"

namespace karpenter::cloud {
namespace {

// Another cloud's provider ID: nothing of the simulated cloud's, never to be terminated.
std::optional<Error> NotOwned(std::string_view provider_id) {
  if (provider_id.starts_with("sim://")) return std::nullopt;
  return Error(fmt::format("{} is not a provider ID of the simulated cloud", provider_id), 0,
               std::string(kReasonNotOwned));
}

// The chosen instance type and offering for a NodeClaim.
struct Choice {
  const InstanceType* type = nullptr;
  const Offering* offering = nullptr;
};

// The cheapest available offering of a type compatible with the NodeClaim. Ties between types go
// to the earlier type in the catalog; between zones of a type, to the zone where the fewest of our
// instances run (EC2's fleets do not put every tie in one zone, and the zone spread of a forecast
// is what an availability review asks about). Either way the choice is deterministic.
Choice Cheapest(const std::vector<InstanceType>& catalog, const api::NodeClaim& node_claim,
                const std::map<std::string, size_t, std::less<>>& per_zone) {
  const auto running_in = [&](const std::string& zone) {
    const auto found = per_zone.find(zone);
    return found == per_zone.end() ? size_t{0} : found->second;
  };
  const scheduling::Requirements wanted =
      scheduling::Requirements::FromNodeSelector(node_claim.spec.requirements);
  Choice best;
  for (const InstanceType& type : catalog) {
    if (!type.requirements.Intersects(wanted)) continue;
    if (!node_claim.spec.resource_requests.FitsIn(type.Allocatable())) continue;
    for (const Offering& offering : type.offerings) {
      if (!offering.available || !wanted.Allows(api::kLabelZone, offering.zone) ||
          !wanted.Allows(api::kLabelCapacityType, offering.capacity_type)) {
        continue;
      }
      if (best.offering == nullptr || offering.price < best.offering->price ||
          (offering.price == best.offering->price && &type == best.type &&
           running_in(offering.zone) < running_in(best.offering->zone))) {
        best = Choice{&type, &offering};
      }
    }
  }
  return best;
}

}  // namespace

SimCloudProvider::SimCloudProvider(std::vector<InstanceType> catalog, const Clock& clock,
                                   std::string region)
    : clock_(clock),
      region_(std::move(region)),
      catalog_(std::make_shared<const std::vector<InstanceType>>(std::move(catalog))) {}

Result<Instance> SimCloudProvider::Create(const api::NodeClaim& node_claim) {
  MutexLock lock(mutex_);
  if (const auto it = by_node_claim_.find(node_claim.metadata.name); it != by_node_claim_.end()) {
    return instances_.at(it->second);
  }
  const std::shared_ptr<const std::vector<InstanceType>> offered = Offered();
  std::shared_ptr<const std::vector<InstanceType>> priced = offered;
  if (overlays_ != nullptr) {
    ASSIGN_OR_RETURN(
        priced, overlays_->Apply(api::LabelValue(node_claim.metadata.labels, api::kLabelNodePool),
                                 offered));
  }
  const Choice choice = Cheapest(*priced, node_claim, per_zone_);
  if (choice.type == nullptr) {
    return Error(
        fmt::format("NodeClaim {}: no available offering satisfies its requirements and "
                    "requests of {} cpu / {} memory",
                    node_claim.metadata.name, node_claim.spec.resource_requests.cpu().ToString(),
                    node_claim.spec.resource_requests.memory().ToString()),
        0, std::string(kReasonInsufficientCapacity));
  }
  ++launched_;
  launches_.fetch_add(1, std::memory_order_relaxed);
  Instance instance;
  // Shaped as EC2's instance IDs: an interruption message names one (aws/provider reads them).
  const std::string id = fmt::format("i-{:017x}", launched_);
  instance.provider_id = fmt::format("sim:///{}/{}", choice.offering->zone, id);
  instance.node_claim = node_claim.metadata.name;
  if (const auto it = node_claim.metadata.labels.find(api::kLabelNodePool);
      it != node_claim.metadata.labels.end()) {
    instance.node_pool = it->second;
  }
  instance.instance_type = choice.type->name;
  instance.zone = choice.offering->zone;
  instance.capacity_type = choice.offering->capacity_type;
  instance.image_id = "sim-image";
  instance.node_name = fmt::format("ip-10-{}-{}-{}.{}.compute.internal", (launched_ >> 16) & 255,
                                   (launched_ >> 8) & 255, launched_ & 255, region_);
  // Overlays copy the catalog in its order: the same indexes name the catalog's own offering.
  const size_t type_index = static_cast<size_t>(choice.type - priced->data());
  const size_t offering_index =
      static_cast<size_t>(choice.offering - choice.type->offerings.data());
  instance.price = (*offered)[type_index].offerings[offering_index].price;
  instance.launch_time = clock_.Now();
  instance.labels =
      scheduling::Requirements::FromNodeSelector(node_claim.spec.requirements).SingleValueLabels();
  for (const auto& [key, value] : node_claim.metadata.labels) instance.labels[key] = value;
  for (const auto& [key, value] : choice.type->requirements.SingleValueLabels()) {
    instance.labels[key] = value;
  }
  instance.labels[std::string(api::kLabelInstanceType)] = choice.type->name;
  instance.labels[std::string(api::kLabelZone)] = choice.offering->zone;
  instance.labels[std::string(api::kLabelRegion)] = region_;
  instance.labels[std::string(api::kLabelCapacityType)] = choice.offering->capacity_type;
  instance.labels[std::string(api::kLabelHostname)] = instance.node_name;
  instance.taints = node_claim.spec.taints;
  instance.taints.insert(instance.taints.end(), node_claim.spec.startup_taints.begin(),
                         node_claim.spec.startup_taints.end());
  instance.taints.push_back(
      api::Taint{std::string(api::kTaintUnregistered), "", api::TaintEffect::kNoExecute});
  instance.capacity = choice.type->capacity;
  instance.allocatable = choice.type->Allocatable();
  by_node_claim_.emplace(node_claim.metadata.name, instance.provider_id);
  ++per_zone_[instance.zone];
  return instances_.emplace(instance.provider_id, std::move(instance)).first->second;
}

void SimCloudProvider::UseOverlays(OverlayStore& overlays) {
  MutexLock lock(mutex_);
  overlays_ = &overlays;
}

void SimCloudProvider::Adopt(Instance instance) {
  MutexLock lock(mutex_);
  if (instances_.contains(instance.provider_id)) return;
  // Later launches must not reuse the adopted instance's number (nor its node name).
  const size_t dash = instance.provider_id.rfind('-');
  if (dash != std::string::npos) {
    launched_ = std::max<uint64_t>(
        launched_, std::strtoull(instance.provider_id.c_str() + dash + 1, nullptr, 16));
  }
  by_node_claim_[instance.node_claim] = instance.provider_id;
  ++per_zone_[instance.zone];
  std::string id = instance.provider_id;
  instances_.emplace(std::move(id), std::move(instance));
  launches_.fetch_add(1, std::memory_order_relaxed);
}

Status SimCloudProvider::Delete(std::string_view provider_id) {
  if (std::optional<Error> foreign = NotOwned(provider_id)) return *foreign;
  MutexLock lock(mutex_);
  const auto it = instances_.find(provider_id);
  if (it == instances_.end()) {
    return Error(fmt::format("instance {} not found", provider_id), 404,
                 std::string(kReasonNotFound));
  }
  by_node_claim_.erase(it->second.node_claim);
  --per_zone_[it->second.zone];
  instances_.erase(it);
  return {};
}

Result<Instance> SimCloudProvider::Get(std::string_view provider_id) {
  if (std::optional<Error> foreign = NotOwned(provider_id)) return *foreign;
  MutexLock lock(mutex_);
  const auto it = instances_.find(provider_id);
  if (it == instances_.end()) {
    return Error(fmt::format("instance {} not found", provider_id), 404,
                 std::string(kReasonNotFound));
  }
  return it->second;
}

Result<std::vector<Instance>> SimCloudProvider::List() {
  MutexLock lock(mutex_);
  std::vector<Instance> out;
  out.reserve(instances_.size());
  for (const auto& [id, instance] : instances_) out.push_back(instance);
  return out;
}

Result<std::shared_ptr<const std::vector<InstanceType>>> SimCloudProvider::GetInstanceTypes(
    const api::NodePool&) {
  MutexLock lock(mutex_);
  return Offered();
}

void SimCloudProvider::ConsultAvailability(const OfferingAvailability& availability) {
  MutexLock lock(mutex_);
  consulted_ = &availability;
  offered_.reset();
}

std::shared_ptr<const std::vector<InstanceType>> SimCloudProvider::Offered() {
  if (consulted_ == nullptr) return catalog_;
  const uint64_t seq_num = consulted_->SeqNum();
  if (offered_ != nullptr && seq_num == offered_seq_num_) return offered_;
  auto offered = std::make_shared<std::vector<InstanceType>>(*catalog_);
  for (InstanceType& type : *offered) {
    for (Offering& offering : type.offerings) {
      if (offering.available &&
          consulted_->IsUnavailable(type.name, offering.zone, offering.capacity_type)) {
        offering.available = false;
      }
    }
  }
  offered_ = std::move(offered);
  offered_seq_num_ = seq_num;
  return offered_;
}

void SimCloudProvider::SetOfferingAvailable(std::string_view instance_type, std::string_view zone,
                                            std::string_view capacity_type, bool available) {
  MutexLock lock(mutex_);
  auto changed = std::make_shared<std::vector<InstanceType>>(*catalog_);
  for (InstanceType& type : *changed) {
    if (type.name != instance_type) continue;
    for (Offering& offering : type.offerings) {
      if (offering.zone == zone && offering.capacity_type == capacity_type) {
        offering.available = available;
      }
    }
  }
  catalog_ = std::move(changed);
  offered_.reset();
}

void SimCloudProvider::RemoveInstanceType(std::string_view instance_type) {
  MutexLock lock(mutex_);
  auto changed = std::make_shared<std::vector<InstanceType>>(*catalog_);
  std::erase_if(*changed, [&](const InstanceType& type) { return type.name == instance_type; });
  catalog_ = std::move(changed);
  offered_.reset();
}

}  // namespace karpenter::cloud
