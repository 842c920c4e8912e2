#pragma once
// The invariants `karpenter-bench chaos` audits after a run, as pure functions of what it recorded:
// pod removals from the API server's audit log against the PodDisruptionBudgets it sampled, and
// NodeClaims launched twice (from the nomination Events and the NodeClaims it saw in flight, and
// from EC2's instances per NodeClaim). Pure, so the unit tests can show each counter counting an
// injected case (tests/bench/chaos_audit_test.cc).

#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"

namespace karpenter::bench {

// A request to remove a pod, as the audit log recorded it (scripts/testenv/audit-policy.yaml
// records every identity's pod deletions and evictions).
struct PodRemoval {
  std::string pod;
  bool eviction = false;   // through the eviction API (which enforces budgets itself)
  std::string user;        // who: system:serviceaccount:kube-system:karpenter, …
  std::string user_agent;  // the client: kube-controller-manager/…/replicaset-controller, …
  TimePoint at;
  int code = 0;  // the response's status code
};

// The removals of pods in `namespace_` at or after `since`, oldest first; lines that are not audit
// events of such a request are skipped.
std::vector<PodRemoval> ReadPodRemovals(std::istream& log, std::string_view namespace_,
                                        TimePoint since);

// What the benchmark saw at one moment.
struct ClusterSample {
  TimePoint at;
  std::map<std::string, std::string> ready_pods;   // Ready, not terminating: pod -> its workload
  std::map<std::string, int> disruptions_allowed;  // workload -> its budget's disruptionsAllowed
};

struct PdbViolation {
  std::string pod;
  std::string workload;
  std::string by;  // the user and the user agent
  TimePoint at;
};

// The removals that broke a budget: the first successful deletion of a pod that no successful
// eviction preceded (the eviction API refuses what a budget forbids), made by anyone but the
// workload's own controllers (a ReplicaSet scaling down, a namespace going), of a pod that was
// Ready in the last sample before it while its budget allowed no disruption. A pod lost with its
// node (the pod garbage collector deleting it) counts like any other deletion.
std::vector<PdbViolation> PdbViolations(const std::vector<PodRemoval>& removals,
                                        const std::vector<ClusterSample>& samples);

// A NodeClaim as the benchmark saw it over the run.
struct ClaimSighting {
  TimePoint created;  // its creationTimestamp
  // The last sample that saw it in flight (not registered, not being deleted).
  std::optional<TimePoint> last_in_flight;
};

// A pod nominated to a NodeClaim (our "Nominated" Events: "Pod should schedule on:
// nodeclaim/NAME").
struct Nomination {
  std::string pod;
  std::string claim;
  TimePoint at;  // the Event's first timestamp (whole seconds)
};

// NodeClaims launched for pods already provided for: every pod nominated to it as it was created
// (within two seconds) had been nominated, at least a second before, to an older NodeClaim that
// was still in flight a second after it was created. Whole-second timestamps make the margins;
// they err towards no duplicate.
std::vector<std::string> DuplicateClaims(const std::vector<Nomination>& nominations,
                                         const std::map<std::string, ClaimSighting>& claims);

// Instances launched for a NodeClaim that already had one: each NodeClaim with more than one
// instance (by their karpenter.sh/nodeclaim tag), and how many it has.
std::map<std::string, size_t> ClaimsLaunchedTwice(
    const std::map<std::string, std::set<std::string>>& instances_by_claim);

}  // namespace karpenter::bench
