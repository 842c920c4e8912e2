#include "cloud/node_overlays.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "api/labels.h"
#include "scheduling/requirements.h"

namespace karpenter::cloud {
namespace {

int32_t WeightOf(const api::NodeOverlay& overlay) { return overlay.spec.weight.value_or(0); }

// Whether an offering is one the overlay selects: its zone, capacity type and reservation.
bool SelectsOffering(const scheduling::Requirements& overlay, const Offering& offering) {
  if (!overlay.Allows(api::kLabelZone, offering.zone) ||
      !overlay.Allows(api::kLabelCapacityType, offering.capacity_type)) {
    return false;
  }
  if (offering.reservation_id.empty()) {
    const scheduling::Requirement* reservation = overlay.Get(api::kLabelCapacityReservationId);
    return reservation == nullptr || reservation->AllowsAbsent();
  }
  return overlay.Allows(api::kLabelCapacityReservationId, offering.reservation_id);
}

// One NodePool's instance types as the overlays match them: each type's labels, the NodePool's
// name and its template's labels.
struct Target {
  const OverlayTarget* target;
  std::vector<scheduling::Requirements> types;  // parallel to *target->instance_types
};

// The last overlay that priced an offering or set a resource (every later one weighs at most as
// much), for the conflict rule.
struct Mark {
  int32_t weight;
  std::string overlay;
};
struct Marks {
  std::map<std::string, Mark, std::less<>> prices;    // by OfferingKey
  std::map<std::string, Mark, std::less<>> capacity;  // by resource name
};

// What one overlay selects: per target, per instance type, the offerings.
struct Selection {
  size_t target;
  size_t type;
  std::vector<const Offering*> offerings;
};

}  // namespace

std::string OfferingKey(const Offering& offering) {
  return fmt::format("{}/{}/{}", offering.zone, offering.capacity_type, offering.reservation_id);
}

OverlayEvaluation EvaluateOverlays(std::span<const api::NodeOverlay> overlays,
                                   std::span<const OverlayTarget> targets) {
  OverlayEvaluation evaluation;
  std::vector<Target> matched;
  matched.reserve(targets.size());
  for (const OverlayTarget& target : targets) {
    evaluation.node_pools.try_emplace(target.node_pool);
    Target& view = matched.emplace_back(Target{&target, {}});
    // Matching copies every type's labels: only when there is something to match.
    if (!target.instance_types || overlays.empty()) continue;
    scheduling::Requirements pool = scheduling::Requirements::FromLabels(target.template_labels);
    pool.Add(scheduling::Requirement::In(std::string(api::kLabelNodePool), {target.node_pool}));
    view.types.reserve(target.instance_types->size());
    for (const InstanceType& type : *target.instance_types) {
      scheduling::Requirements labels = type.requirements;
      labels.Add(pool);
      view.types.push_back(std::move(labels));
    }
  }

  std::vector<const api::NodeOverlay*> ordered;
  for (const api::NodeOverlay& overlay : overlays) ordered.push_back(&overlay);
  std::sort(ordered.begin(), ordered.end(),
            [](const api::NodeOverlay* a, const api::NodeOverlay* b) {
              if (WeightOf(*a) != WeightOf(*b)) return WeightOf(*a) > WeightOf(*b);
              return a->metadata.name > b->metadata.name;
            });

  // By target, then instance type name.
  std::vector<std::map<std::string, Marks, std::less<>>> marks(matched.size());
  for (const api::NodeOverlay* overlay : ordered) {
    const int32_t weight = WeightOf(*overlay);
    const std::optional<api::PriceChange> price = api::OverlayPriceChange(overlay->spec);
    const api::ResourceList& capacity = overlay->spec.capacity;
    const scheduling::Requirements wanted =
        scheduling::Requirements::FromNodeSelector(overlay->spec.requirements);
    std::vector<Selection> selected;
    for (size_t t = 0; t < matched.size(); ++t) {
      const std::vector<InstanceType>* types = matched[t].target->instance_types.get();
      for (size_t i = 0; i < matched[t].types.size(); ++i) {
        if (!matched[t].types[i].IsCompatible(wanted)) continue;
        Selection selection{t, i, {}};
        for (const Offering& offering : (*types)[i].offerings) {
          if (SelectsOffering(wanted, offering)) selection.offerings.push_back(&offering);
        }
        if (!selection.offerings.empty()) selected.push_back(std::move(selection));
      }
    }

    const auto marks_of = [&](const Selection& selection) -> Marks& {
      return marks[selection.target]
                  [(*matched[selection.target].target->instance_types)[selection.type].name];
    };
    std::optional<OverlayConflict> conflict;
    for (const Selection& selection : selected) {
      if (conflict) break;
      const Marks& seen = marks_of(selection);
      const InstanceType& type =
          (*matched[selection.target].target->instance_types)[selection.type];
      const std::string& node_pool = matched[selection.target].target->node_pool;
      if (price) {
        for (const Offering* offering : selection.offerings) {
          const auto found = seen.prices.find(OfferingKey(*offering));
          if (found == seen.prices.end() || found->second.weight != weight) continue;
          conflict =
              OverlayConflict{overlay->metadata.name, found->second.overlay,
                              fmt::format("the price of {} {} in {} for NodePool {}", type.name,
                                          offering->capacity_type, offering->zone, node_pool)};
          break;
        }
      }
      capacity.ForEach([&](std::string_view name, Quantity) {
        const auto found = seen.capacity.find(name);
        if (conflict || found == seen.capacity.end() || found->second.weight != weight) return;
        conflict = OverlayConflict{
            overlay->metadata.name, found->second.overlay,
            fmt::format("the {} capacity of {} for NodePool {}", name, type.name, node_pool)};
      });
    }
    if (conflict) {
      evaluation.conflicts.push_back(std::move(*conflict));
      continue;
    }

    for (const Selection& selection : selected) {
      Marks& seen = marks_of(selection);
      const OverlayTarget& target = *matched[selection.target].target;
      const std::string& type_name = (*target.instance_types)[selection.type].name;
      NodePoolChanges& changes = evaluation.node_pools[target.node_pool];
      if (price) {
        for (const Offering* offering : selection.offerings) {
          std::string key = OfferingKey(*offering);
          if (!seen.prices.contains(key)) changes[type_name].prices.emplace(key, *price);
          seen.prices.insert_or_assign(std::move(key), Mark{weight, overlay->metadata.name});
        }
      }
      capacity.ForEach([&](std::string_view name, Quantity amount) {
        if (seen.capacity.contains(name)) return;  // a heavier overlay set it
        changes[type_name].capacity.Set(name, amount);
        seen.capacity.emplace(name, Mark{weight, overlay->metadata.name});
      });
    }
  }
  std::sort(
      evaluation.conflicts.begin(), evaluation.conflicts.end(),
      [](const OverlayConflict& a, const OverlayConflict& b) { return a.overlay < b.overlay; });
  return evaluation;
}

std::shared_ptr<const std::vector<InstanceType>> ApplyOverlayChanges(
    const NodePoolChanges& changes, const std::shared_ptr<const std::vector<InstanceType>>& base) {
  if (changes.empty() || !base) return base;
  auto overlaid = std::make_shared<std::vector<InstanceType>>(*base);
  for (InstanceType& type : *overlaid) {
    const auto found = changes.find(type.name);
    if (found == changes.end()) continue;
    const InstanceTypeChanges& change = found->second;
    for (Offering& offering : type.offerings) {
      if (const auto priced = change.prices.find(OfferingKey(offering));
          priced != change.prices.end()) {
        offering.price = priced->second.Apply(offering.price);
      }
    }
    change.capacity.ForEach([&](std::string_view name, Quantity amount) {
      // Huge pages are carved out of the node's memory: what pods may request shrinks as much.
      if (name.starts_with("hugepages-")) {
        const Quantity before = type.capacity.Get(name);
        const Quantity memory = type.capacity.memory() + before - amount;
        type.capacity.Set(api::kResourceMemory, std::max(memory, Quantity()));
      }
      type.capacity.Set(name, amount);
    });
  }
  return overlaid;
}

void OverlayStore::Publish(OverlayEvaluation evaluation) {
  auto published = std::make_shared<const OverlayEvaluation>(std::move(evaluation));
  MutexLock lock(mutex_);
  if (evaluation_ && *evaluation_ == *published) return;
  evaluation_ = std::move(published);
  applied_.clear();
  ++generation_;
}

uint64_t OverlayStore::generation() const {
  MutexLock lock(mutex_);
  return generation_;
}

Result<std::shared_ptr<const std::vector<InstanceType>>> OverlayStore::Apply(
    std::string_view node_pool, const std::shared_ptr<const std::vector<InstanceType>>& base) {
  MutexLock lock(mutex_);
  const NodePoolChanges* changes = nullptr;
  if (evaluation_) {
    const auto found = evaluation_->node_pools.find(node_pool);
    if (found != evaluation_->node_pools.end()) changes = &found->second;
  }
  if (changes == nullptr) {
    return Error(fmt::format("NodePool {}: awaiting the evaluation of the NodeOverlays", node_pool),
                 0, std::string(kReasonAwaitingOverlays));
  }
  if (const auto kept = applied_.find(node_pool);
      kept != applied_.end() && kept->second.base == base) {
    return kept->second.overlaid;
  }
  std::shared_ptr<const std::vector<InstanceType>> overlaid = ApplyOverlayChanges(*changes, base);
  applied_.insert_or_assign(std::string(node_pool), Applied{base, overlaid});
  return overlaid;
}

}  // namespace karpenter::cloud
