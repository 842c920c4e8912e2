#include "chaos_audit.h"

#include <algorithm>
#include <chrono>

#include "common/json.h"

namespace karpenter::bench {
namespace {

using std::chrono::seconds;

bool OwnControllers(std::string_view user_agent) {
  return user_agent.find("replicaset-controller") != std::string_view::npos ||
         user_agent.find("namespace-controller") != std::string_view::npos;
}

}  // namespace

std::vector<PodRemoval> ReadPodRemovals(std::istream& log, std::string_view namespace_,
                                        TimePoint since) {
  std::vector<PodRemoval> out;
  std::string line;
  while (std::getline(log, line)) {
    // Most lines are other requests: only those naming pods are worth parsing.
    if (line.find("\"pods\"") == std::string::npos) continue;
    const Json event = Json::parse(line, nullptr, false);
    if (!event.is_object() || event.value("stage", "") != "ResponseComplete") continue;
    const Json reference = event.value("objectRef", Json::object());
    if (reference.value("resource", "") != "pods" ||
        reference.value("namespace", "") != namespace_) {
      continue;
    }
    const std::string subresource = reference.value("subresource", "");
    const std::string verb = event.value("verb", "");
    PodRemoval removal;
    if (subresource == "eviction" && verb == "create") {
      removal.eviction = true;
    } else if (!subresource.empty() || verb != "delete") {
      continue;
    }
    const std::optional<TimePoint> at = ParseTime(event.value("requestReceivedTimestamp", ""));
    if (!at || *at < since) continue;
    removal.pod = reference.value("name", "");
    removal.user = event.value("user", Json::object()).value("username", "");
    removal.user_agent = event.value("userAgent", "");
    removal.at = *at;
    removal.code = event.value("responseStatus", Json::object()).value("code", 0);
    out.push_back(std::move(removal));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const PodRemoval& a, const PodRemoval& b) { return a.at < b.at; });
  return out;
}

std::vector<PdbViolation> PdbViolations(const std::vector<PodRemoval>& removals,
                                        const std::vector<ClusterSample>& samples) {
  std::vector<PdbViolation> out;
  std::set<std::string> removed;  // pods already evicted or deleted
  for (const PodRemoval& removal : removals) {
    if (removal.code < 200 || removal.code >= 300) continue;  // refused: nothing was removed
    if (!removed.insert(removal.pod).second) continue;        // the kubelet finishing a removal
    if (removal.eviction || OwnControllers(removal.user_agent)) continue;
    const auto after =
        std::upper_bound(samples.begin(), samples.end(), removal.at,
                         [](TimePoint at, const ClusterSample& sample) { return at < sample.at; });
    if (after == samples.begin()) continue;  // before the first sample: nothing known
    const ClusterSample& before = *std::prev(after);
    const auto ready = before.ready_pods.find(removal.pod);
    if (ready == before.ready_pods.end()) continue;
    const auto allowed = before.disruptions_allowed.find(ready->second);
    if (allowed == before.disruptions_allowed.end() || allowed->second > 0) continue;
    out.push_back(
        {removal.pod, ready->second, removal.user + " (" + removal.user_agent + ")", removal.at});
  }
  return out;
}

std::vector<std::string> DuplicateClaims(const std::vector<Nomination>& nominations,
                                         const std::map<std::string, ClaimSighting>& claims) {
  std::map<std::string, std::vector<const Nomination*>> by_pod;
  std::map<std::string, std::set<std::string>> pods_of_claim;  // nominated as it was created
  for (const Nomination& nomination : nominations) {
    by_pod[nomination.pod].push_back(&nomination);
    const auto claim = claims.find(nomination.claim);
    if (claim != claims.end() && nomination.at <= claim->second.created + seconds(2)) {
      pods_of_claim[nomination.claim].insert(nomination.pod);
    }
  }
  // Whether `pod` was nominated, a second or more before `claim` was created, to an older claim
  // still in flight a second or more after.
  auto provided_for = [&](const std::string& pod, const std::string& claim,
                          const ClaimSighting& sighting) {
    for (const Nomination* earlier : by_pod[pod]) {
      if (earlier->claim == claim || earlier->at + seconds(1) > sighting.created) continue;
      const auto other = claims.find(earlier->claim);
      if (other == claims.end() || other->second.created >= sighting.created) continue;
      const std::optional<TimePoint>& in_flight = other->second.last_in_flight;
      if (in_flight && *in_flight >= sighting.created + seconds(1)) return true;
    }
    return false;
  };
  std::vector<std::string> out;
  for (const auto& [claim, pods] : pods_of_claim) {
    const auto sighting = claims.find(claim);
    if (std::all_of(pods.begin(), pods.end(), [&](const std::string& pod) {
          return provided_for(pod, claim, sighting->second);
        })) {
      out.push_back(claim);
    }
  }
  return out;
}

std::map<std::string, size_t> ClaimsLaunchedTwice(
    const std::map<std::string, std::set<std::string>>& instances_by_claim) {
  std::map<std::string, size_t> out;
  for (const auto& [claim, instances] : instances_by_claim) {
    if (instances.size() > 1) out[claim] = instances.size();
  }
  return out;
}

}  // namespace karpenter::bench
