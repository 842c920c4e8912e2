#pragma once
// `karpenter-bench chaos`: the controller under faults, on the test cluster and the moto account
// (scripts/testenv/up and moto-up), run as the chart runs it (its ServiceAccount, the IAM policy
// `karpenter iam policy` prints, enforced by the fault proxy), with a node registrar playing the
// machines. For `duration` seconds workloads scale in waves (a PodDisruptionBudget over each),
// spot interruptions arrive (some delivered twice), the NodePool's template changes (drift) and
// consolidation runs, while faults strike on a schedule drawn from `seed`: the controller killed
// (SIGKILL) and restarted, a second controller contending for the Lease, the API server restarted,
// every connection to it cut (a relay between the controllers and the API server), EC2 throttling,
// no capacity in a zone, EC2 requests held past the SDK's timeout. Then faults stop, the cluster
// settles, and the invariants are audited: every pod Running, instances = NodeClaims, no duplicate
// launch, no PodDisruptionBudget broken (from the API server's audit log), the unmanaged instance
// untouched, no controller exit but the injected kills. With `inject_violations`, one leaked
// instance and one budget-breaking pod deletion are made behind the controller's back after the
// settle, and the run must count exactly those.

#include <cstdint>
#include <string>

namespace karpenter::bench {

struct ChaosArgs {
  std::string testenv_dir;  // scripts/testenv/up's directory (kubeconfig, identity, audit log)
  std::string moto_dir;     // scripts/testenv/moto-up's directory
  int duration_seconds = 600;
  int settle_seconds = 300;  // how long the cluster may take to settle once faults stop
  uint64_t seed = 0;         // 0: drawn from the clock (printed)
  bool inject_violations = false;
  bool keep_on_failure = false;  // leave the cluster and EC2 as they are when an invariant broke
  std::string karpenter_binary;  // empty: `karpenter` beside this executable
  std::string source_dir;        // where deploy/crds and scripts/ are; empty: this build's source
};

// Prints {"seconds", "seed", "kills", "contenders", "apiserverRestarts", "watchCuts", "throttled",
// "iceInjected", "heldRequests", "interruptions", "redeliveries", "waves", "drifts", "nodeClaims"
// (seen over the run), "nodeClaimsLeft", "leaks",
// "orphans", "duplicates", "pdbViolations", "podsLost", "leadershipLost", "crashes",
// "unmanagedTouched", "settleSeconds"} and the details of any broken invariant; returns 0 when
// every invariant held (with `inject_violations`: when exactly the injected leak and violation were
// counted).
int RunChaos(const ChaosArgs& args);

}  // namespace karpenter::bench
