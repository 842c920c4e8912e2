#pragma once
// Leader election with a coordination.k8s.io/v1 Lease, so that of several controller replicas one
// acts: the holder renews the Lease every `renew_period`; the others try every `follower_period`
// and take over once they have not seen it renewed for `lease_duration`. Optimistic concurrency
// (resourceVersion) makes a takeover race safe: exactly one update wins.

#include <chrono>
#include <functional>
#include <stop_token>
#include <string>

#include "common/clock.h"
#include "kube/client.h"

namespace karpenter::kube {

struct LeaderElectionOptions {
  std::string namespace_ = "kube-system";
  std::string lease_name = "karpenter-leader-election";
  std::string identity;  // unique per replica, e.g. hostname + "_" + a random suffix
  std::chrono::seconds lease_duration{15};
  std::chrono::milliseconds renew_period{1000};  // the leader renews this often
  // A follower tries this often; with the renewal period it bounds a takeover after a crash to
  // lease_duration + follower_period.
  std::chrono::milliseconds follower_period{250};
};

// One thread drives an elector (it keeps what it last saw of the Lease).
class LeaderElector {
 public:
  LeaderElector(Client& client, const Clock& clock, LeaderElectionOptions options);

  // One attempt: acquires a free or expired Lease, or renews ours. True while we lead. A conflict
  // (another replica wrote first) is a plain "no".
  Result<bool> TryAcquireOrRenew();
  // Gives the Lease up (on graceful shutdown) so another replica takes over at once.
  Status Release();

  // Tries every follower_period until this replica leads (true) or `stop` is requested (false).
  // Failed attempts (not a lost race: an API error) go to `on_error`.
  bool AwaitLeadership(const std::stop_token& stop,
                       const std::function<void(const Error&)>& on_error);
  // While leading: renews every renew_period until `stop` is requested (OK), or fails once the
  // Lease has gone unrenewed for lease_duration (another replica may lead by then, so the caller
  // must stop acting).
  Status HoldLeadership(const std::stop_token& stop);
  const LeaderElectionOptions& options() const { return options_; }

 private:
  Object NewLease() const;

  Client& client_;
  const Clock& clock_;
  const LeaderElectionOptions options_;
  // The Lease's holder, renewTime and duration as last read, and when they were first read so.
  std::string observed_record_;
  MonoTime observed_at_{};
};

}  // namespace karpenter::kube
