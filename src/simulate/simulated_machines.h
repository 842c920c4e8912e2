#pragma once
// The simulated cloud's machines beside the controller: a NodeBooter over the manager's Node
// informer that recovers the instances recorded on Nodes when the manager starts, then boots the
// machines launched since. Used by `karpenter simulate`, by `karpenter controller --cloud-provider
// sim` (kwok plays the kubelets) and by the controller scenario tests.

#include <atomic>
#include <optional>
#include <stop_token>

#include "cloud/sim/node_booter.h"
#include "cloud/sim/sim_cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "kube/client.h"
#include "operator/manager.h"

namespace karpenter::simulate {

// Where the machines boot. In the manager's rounds, woken at each boot's deadline: deterministic,
// for `simulate` and the tests, whose clock may be virtual. Or on a thread of their own, as real
// machines do: a kubelet registers when its instance has booted, with its own client, whatever the
// controller is busy with and however much of its rate limit it is using.
enum class BootLoop { kManagerRounds, kOwnThread };

class SimulatedMachines final : public op::RoundController {
 public:
  // Registers itself with `manager`, which must not run a round after this is destroyed. With
  // kOwnThread, `client` is the machines' own and RunBootLoop must run on a thread.
  SimulatedMachines(op::Manager& manager, kube::Client& client, cloud::SimCloudProvider& cloud,
                    const Clock& clock, const Logger& logger, cloud::NodeBooterOptions options,
                    BootLoop loop = BootLoop::kManagerRounds);

  void Start() override;
  void Run() override;
  std::optional<MonoTime> NextWake() const override;

  // kOwnThread: boots machines until `stop`, from when Start() has recovered the cloud's
  // instances (the manager's first round) — before that the booter would take recorded
  // instances for new ones.
  void RunBootLoop(const std::stop_token& stop);

 private:
  const Clock& clock_;
  Logger logger_;
  const BootLoop loop_;
  std::atomic<bool> started_ = false;
  cloud::NodeBooter booter_;
};

}  // namespace karpenter::simulate
