#include "controllers/instance_type_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "metrics/families.h"

namespace karpenter::controllers {

InstanceTypeMetrics::InstanceTypeMetrics(const ClusterCache& cluster, cloud::CloudProvider& cloud)
    : cluster_(cluster), cloud_(cloud) {}

std::vector<std::string> InstanceTypeMetrics::NodePoolVersions() const {
  std::vector<std::string> versions;
  cluster_.node_pools().ForEach([&](const kube::Object& object) {
    versions.push_back(fmt::format("{}@{}", kube::Name(object), kube::Generation(object)));
  });
  std::sort(versions.begin(), versions.end());
  return versions;
}

bool InstanceTypeMetrics::NodePoolsChanged() const {
  // Asked every round: compare the NodePools only when some informer delivered a change.
  const uint64_t generation = cluster_.generation();
  if (generation == looked_at_) return false;
  looked_at_ = generation;
  return NodePoolVersions() != refreshed_for_;
}

Status InstanceTypeMetrics::Refresh() {
  refreshed_for_ = NodePoolVersions();
  std::vector<std::shared_ptr<const std::vector<cloud::InstanceType>>> lists;
  std::vector<std::string> failures;
  cluster_.node_pools().ForEach([&](const kube::Object& object) {
    const std::optional<api::NodePool> pool = DecodeNodePool(object);
    if (!pool) return;
    Result<std::shared_ptr<const std::vector<cloud::InstanceType>>> types =
        cloud_.GetInstanceTypes(*pool);
    if (types.ok()) {
      lists.push_back(std::move(*types));
    } else {
      failures.push_back(
          fmt::format("nodepool {}: {}", pool->metadata.name, types.error().message));
    }
  });
  {
    MutexLock lock(mutex_);
    lists_ = std::move(lists);
  }
  if (!failures.empty()) {
    return Error(
        fmt::format("reading instance types for their metrics: {}", fmt::join(failures, "; ")));
  }
  return {};
}

std::vector<prometheus::MetricFamily> InstanceTypeMetrics::Collect() const {
  std::vector<std::shared_ptr<const std::vector<cloud::InstanceType>>> lists;
  {
    MutexLock lock(mutex_);
    lists = lists_;
  }
  auto available = metrics::GaugeFamily(
      "karpenter_cloudprovider_instance_type_offering_available",
      "1 when an offering (instance type, capacity type, zone) can be launched now, else 0.");
  auto price = metrics::GaugeFamily("karpenter_cloudprovider_instance_type_offering_price_estimate",
                                    "An offering's estimated price, in USD an hour.");
  auto cpu = metrics::GaugeFamily("karpenter_cloudprovider_instance_type_cpu_cores",
                                  "An instance type's vCPUs.");
  auto memory = metrics::GaugeFamily("karpenter_cloudprovider_instance_type_memory_bytes",
                                     "An instance type's memory, in bytes.");
  // Several NodePools share types: each series once.
  std::set<std::string, std::less<>> types;
  std::set<std::string, std::less<>> offerings;
  for (const auto& list : lists) {
    for (const cloud::InstanceType& type : *list) {
      if (types.insert(type.name).second) {
        metrics::AddSample(cpu, {{"instance_type", type.name}}, type.capacity.cpu().as_double());
        metrics::AddSample(memory, {{"instance_type", type.name}},
                           type.capacity.memory().as_double());
      }
      for (const cloud::Offering& offering : type.offerings) {
        if (!offerings.insert(type.name + "/" + offering.capacity_type + "/" + offering.zone)
                 .second) {
          continue;
        }
        const metrics::LabelPairs labels = {{"instance_type", type.name},
                                            {"capacity_type", offering.capacity_type},
                                            {"zone", offering.zone}};
        metrics::AddSample(available, labels, offering.available ? 1 : 0);
        metrics::AddSample(price, labels, offering.price);
      }
    }
  }
  std::vector<prometheus::MetricFamily> families;
  families.push_back(std::move(available));
  families.push_back(std::move(price));
  families.push_back(std::move(cpu));
  families.push_back(std::move(memory));
  return families;
}

}  // namespace karpenter::controllers
