#include "provisioning/fleet_guidance.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace karpenter::provisioning {
namespace {

constexpr double kEpsilon = 1e-9;

// Memory per CPU; pods without CPU are the richest in memory there are.
double MemoryPerCpu(double cpu, double memory) {
  return cpu > 0 ? memory / cpu : std::numeric_limits<double>::infinity();
}

// What one type of the LP's fleet takes: its share of the fleet, and its proportions.
struct Share {
  int type;
  double cpu;
  double memory;
  double pods;
  double memory_per_cpu;
};

// Which of the types that are `t` scaled up or down (CPU, memory and price in the same
// proportions, within kCopyTolerance) claims for `share` of the fleet should be sized as: the LP
// buys any of them at the same rate, so which one its basis holds is an accident of order. The
// largest that still splits the share into kClaimsPerShare claims or more: large claims strand
// little room per pod, and several per share let the last, part-filled one be small (it is sized
// down to what it holds when it launches). Without such a type, the smallest of them.
int SizeForShare(const std::vector<FleetType>& types, size_t t, double share_cpu) {
  constexpr double kCopyTolerance = 0.01;
  constexpr double kClaimsPerShare = 4;
  const FleetType& base = types[t];
  int best = -1;
  int smallest = static_cast<int>(t);
  for (size_t u = 0; u < types.size(); ++u) {
    const FleetType& other = types[u];
    if (base.cpu <= 0 || base.price <= 0 || other.cpu <= 0) continue;
    const double scale = other.cpu / base.cpu;
    if (std::abs(other.memory - scale * base.memory) > kCopyTolerance * other.memory ||
        std::abs(other.price - scale * base.price) > kCopyTolerance * other.price) {
      continue;
    }
    if (other.cpu < types[smallest].cpu) smallest = static_cast<int>(u);
    if (other.cpu * kClaimsPerShare <= share_cpu && (best < 0 || other.cpu > types[best].cpu)) {
      best = static_cast<int>(u);
    }
  }
  return best >= 0 ? best : smallest;
}

}  // namespace

FleetGuidance GuideByFractionalFleet(const std::vector<GuidedPod>& pods,
                                     const std::vector<std::vector<FleetType>>& pools) {
  FleetGuidance out{std::vector<int>(pods.size(), -1), std::vector<int>(pods.size(), -1)};
  int next = 0;
  for (size_t p = 0; p < pools.size(); ++p) {
    std::vector<int> members;
    FleetDemand demand;
    for (size_t i = 0; i < pods.size(); ++i) {
      if (pods[i].pool != static_cast<int>(p)) continue;
      members.push_back(static_cast<int>(i));
      demand = {demand.cpu + pods[i].cpu, demand.memory + pods[i].memory,
                demand.pods + pods[i].pods};
    }
    if (members.empty()) continue;
    const std::optional<FractionalFleet> fleet = CheapestFractionalFleet(pools[p], demand);
    if (!fleet) continue;
    std::vector<Share> shares;
    for (size_t t = 0; t < pools[p].size(); ++t) {
      const double n = fleet->nodes[t];
      if (n <= kEpsilon) continue;
      const FleetType& type = pools[p][t];
      shares.push_back({SizeForShare(pools[p], t, n * type.cpu), n * type.cpu, n * type.memory,
                        n * type.pods, MemoryPerCpu(type.cpu, type.memory)});
    }
    std::stable_sort(shares.begin(), shares.end(), [](const Share& a, const Share& b) {
      return a.memory_per_cpu > b.memory_per_cpu;
    });
    std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
      return MemoryPerCpu(pods[a].cpu, pods[a].memory) > MemoryPerCpu(pods[b].cpu, pods[b].memory);
    });
    // [rich, poor) are the pods not yet in a group, richest in memory per CPU first.
    size_t rich = 0;
    size_t poor = members.size();
    for (size_t s = 0; s < shares.size() && rich < poor; ++s) {
      const Share& share = shares[s];
      const bool last = s + 1 == shares.size();
      FleetDemand group;
      while (rich < poor) {
        // From the memory-rich end while the group has less memory per CPU than its type.
        const bool from_rich =
            group.cpu <= 0 || MemoryPerCpu(group.cpu, group.memory) < share.memory_per_cpu;
        const int i = members[from_rich ? rich : poor - 1];
        if (!last && (group.cpu + pods[i].cpu > share.cpu + kEpsilon ||
                      group.memory + pods[i].memory > share.memory + kEpsilon ||
                      group.pods + pods[i].pods > share.pods + kEpsilon)) {
          break;  // the group holds its type's share of the fleet
        }
        group = {group.cpu + pods[i].cpu, group.memory + pods[i].memory, group.pods + pods[i].pods};
        out.type[i] = share.type;
        out.rank[i] = next++;
        if (from_rich) {
          ++rich;
        } else {
          --poor;
        }
      }
    }
  }
  for (size_t i = 0; i < pods.size(); ++i) {
    if (pods[i].pool >= 0 && out.rank[i] < 0) out.rank[i] = next;  // after every group
  }
  return out;
}

}  // namespace karpenter::provisioning
