#pragma once
// The simulated cloud's machines on the controller loop: a NodeBooter over the manager's Node
// informer that recovers the instances recorded on Nodes when the manager starts, and boots the
// machines launched since in every round. Used by `karpenter simulate`, by `karpenter controller
// --cloud-provider sim` (kwok plays the kubelets) and by the controller scenario tests.

#include <optional>

#include "cloud/sim/node_booter.h"
#include "cloud/sim/sim_cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "kube/client.h"
#include "operator/manager.h"

namespace karpenter::simulate {

class SimulatedMachines final : public op::RoundController {
 public:
  // Registers itself with `manager`, which must not run a round after this is destroyed.
  SimulatedMachines(op::Manager& manager, kube::Client& client, cloud::SimCloudProvider& cloud,
                    const Clock& clock, const Logger& logger, cloud::NodeBooterOptions options);

  void Start() override;
  void Run() override;
  std::optional<MonoTime> NextWake() const override;

 private:
  const Clock& clock_;
  Logger logger_;
  cloud::NodeBooter booter_;
};

}  // namespace karpenter::simulate
