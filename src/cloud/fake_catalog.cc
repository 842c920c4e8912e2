#include "cloud/fake_catalog.h"

#include <string>

#include "api/labels.h"

namespace karpenter::cloud {

std::vector<InstanceType> BuildFakeCatalog(int count) {
  constexpr int64_t kGi = int64_t{1} << 30;
  constexpr int64_t kMi = int64_t{1} << 20;
  const std::string on_demand(api::kCapacityTypeOnDemand);
  const std::string spot(api::kCapacityTypeSpot);
  std::vector<InstanceType> catalog;
  catalog.reserve(count > 0 ? count : 0);
  for (int i = 0; i < count; ++i) {
    const int64_t vcpus = i + 1;
    const int64_t gib = 2 * vcpus;
    const double price = 0.1 * static_cast<double>(vcpus) + 0.1 * static_cast<double>(gib);
    InstanceType type;
    type.name = "fake-it-" + std::to_string(i);
    type.offerings = {
        Offering{"test-zone-1", spot, price, true},
        Offering{"test-zone-2", spot, price, true},
        Offering{"test-zone-1", on_demand, price, true},
        Offering{"test-zone-2", on_demand, price, true},
        Offering{"test-zone-3", on_demand, price, true},
    };
    scheduling::Requirements& r = type.requirements;
    r.Add(scheduling::Requirement::In(std::string(api::kLabelCapacityType), {on_demand, spot}));
    r.Add(scheduling::Requirement::In(std::string(api::kLabelArch), {"amd64"}));
    r.Add(scheduling::Requirement::In(std::string(api::kLabelOs), {"linux"}));
    r.Add(scheduling::Requirement::In(std::string(api::kLabelInstanceType), {type.name}));
    r.Add(scheduling::Requirement::In(std::string(api::kLabelZone),
                                      {"test-zone-1", "test-zone-2", "test-zone-3"}));
    type.capacity.Set(api::kResourceCpu, Quantity::FromUnits(vcpus));
    type.capacity.Set(api::kResourceMemory, Quantity::FromUnits(gib * kGi));
    type.capacity.Set(api::kResourcePods, Quantity::FromUnits(10 * vcpus));
    type.kube_reserved.Set(api::kResourceCpu, Quantity::FromMilli(100));
    type.kube_reserved.Set(api::kResourceMemory, Quantity::FromUnits(10 * kMi));
    catalog.push_back(std::move(type));
  }
  return catalog;
}

}  // namespace karpenter::cloud
