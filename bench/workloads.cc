#include "workloads.h"

#include <array>
#include <random>
#include <string>

#include "api/labels.h"

namespace karpenter::bench {
namespace {

constexpr std::array<int64_t, 5> kCpuMilli = {100, 250, 500, 1000, 1500};
constexpr std::array<int64_t, 6> kMemoryMi = {100, 256, 512, 1024, 2048, 4096};

api::Pod MakePod(const std::string& name, const std::string& app, std::mt19937_64& rng) {
  api::Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = "default";
  pod.metadata.uid = name;
  pod.metadata.labels = {{"app", app}};
  api::Container c;
  c.name = "app";
  c.requests.Set(api::kResourceCpu, Quantity::FromMilli(kCpuMilli[rng() % kCpuMilli.size()]));
  c.requests.Set(api::kResourceMemory,
                 Quantity::FromUnits(kMemoryMi[rng() % kMemoryMi.size()] * 1024 * 1024));
  pod.spec.containers.push_back(std::move(c));
  pod.status.phase = "Pending";
  return pod;
}

api::LabelSelector SelectApp(const std::string& app) {
  api::LabelSelector s;
  s.match_labels = {{"app", app}};
  return s;
}

void AddSpread(api::Pod& pod, std::string_view key) {
  api::TopologySpreadConstraint spread;
  spread.max_skew = 1;
  spread.topology_key = std::string(key);
  spread.label_selector = SelectApp(pod.metadata.labels.at("app"));
  pod.spec.topology_spread_constraints.push_back(std::move(spread));
}

api::PodAffinityTerm Term(const api::Pod& pod, std::string_view key) {
  api::PodAffinityTerm term;
  term.topology_key = std::string(key);
  term.label_selector = SelectApp(pod.metadata.labels.at("app"));
  return term;
}

}  // namespace

std::vector<api::Pod> MakeGenericPods(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<api::Pod> pods;
  pods.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    pods.push_back(MakePod("generic-" + std::to_string(i), "generic", rng));
  return pods;
}

std::vector<api::Pod> MakeDiversePods(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<api::Pod> pods;
  pods.reserve(static_cast<size_t>(count));
  const int fifth = count / 5;
  for (int i = 0; i < count; ++i) {
    const int kind = fifth == 0 ? 0 : std::min(i / fifth, 4);
    static constexpr std::array<const char*, 5> kApps = {"generic", "zone-spread", "host-spread",
                                                         "zone-affinity", "host-anti-affinity"};
    api::Pod pod = MakePod(std::string(kApps[kind]) + '-' + std::to_string(i), kApps[kind], rng);
    switch (kind) {
      case 1:
        AddSpread(pod, api::kLabelZone);
        break;
      case 2:
        AddSpread(pod, api::kLabelHostname);
        break;
      case 3:
        pod.spec.affinity.emplace().pod_affinity.emplace().required.push_back(
            Term(pod, api::kLabelZone));
        break;
      case 4:
        pod.spec.affinity.emplace().pod_anti_affinity.emplace().required.push_back(
            Term(pod, api::kLabelHostname));
        break;
      default:
        break;
    }
    pods.push_back(std::move(pod));
  }
  return pods;
}

}  // namespace karpenter::bench
